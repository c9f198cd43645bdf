// pmu.cc: reading sysfs PMU directories (type, format/, events/, cpumask)
// and placing term values into an Attr by format.
#include "perfcounters/pmu.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "event_sources.h"
#include "perfcounters/internal/status_macros.h"
#include "sysfs_file.h"
#include "text_util.h"

namespace perfcounters {

using internal::Cat;
using internal::IEquals;
using internal::IStartsWith;
using internal::Split;
using internal::Sv;
using internal::Trim;

namespace {

uint64_t& WordOf(ConfigWord word, Attr& attr) {
  switch (word) {
    case ConfigWord::kConfig1:
      return attr.config1;
    case ConfigWord::kConfig2:
      return attr.config2;
    case ConfigWord::kConfig:
    case ConfigWord::kConfig3:
      break;
  }
  return attr.config;
}

std::string InFile(std::string_view file) {
  return file.empty() ? std::string() : Cat(" in ", file);
}

// Parses one bit number 0..63.
bool ParseBit(std::string_view text, int& bit) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), absl::ascii_isdigit) &&
         absl::SimpleAtoi(Sv(text), &bit) && bit >= 0 && bit < 64;
}

}  // namespace

std::string_view ConfigWordName(ConfigWord word) {
  switch (word) {
    case ConfigWord::kConfig1:
      return "config1";
    case ConfigWord::kConfig2:
      return "config2";
    case ConfigWord::kConfig3:
      return "config3";
    case ConfigWord::kConfig:
      break;
  }
  return "config";
}

int FormatField::width() const { return std::popcount(mask); }

uint64_t FormatField::max_value() const {
  const int w = width();
  return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
}

absl::StatusOr<FormatField> FormatField::Parse(std::string_view name,
                                               std::string_view contents,
                                               std::string_view file) {
  const std::string_view text = Trim(contents);
  const auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        Cat("malformed format '", text, "' for term '", name, "'", InFile(file),
            ": ", why,
            "; expected <word>:<bits> such as config:0-7, config1:0 or "
            "config:0-7,32-35"));
  };
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return bad("no ':'");
  FormatField field;
  field.name = std::string(name);
  const std::string_view word = text.substr(0, colon);
  if (word == "config") {
    field.word = ConfigWord::kConfig;
  } else if (word == "config1") {
    field.word = ConfigWord::kConfig1;
  } else if (word == "config2") {
    field.word = ConfigWord::kConfig2;
  } else if (word == "config3") {
    field.word = ConfigWord::kConfig3;
  } else {
    return bad(Cat("unknown word '", word,
                   "' (supported: config, config1, config2, config3)"));
  }
  const std::string_view bits = text.substr(colon + 1);
  if (bits.empty()) return bad("no bits after ':'");
  for (std::string_view range : Split(bits, ',')) {
    range = Trim(range);
    int lo = 0;
    int hi = 0;
    const size_t dash = range.find('-');
    if (dash == std::string_view::npos) {
      if (!ParseBit(range, lo)) {
        return bad(Cat("'", range, "' is not a bit number 0..63"));
      }
      hi = lo;
    } else if (!ParseBit(range.substr(0, dash), lo) ||
               !ParseBit(range.substr(dash + 1), hi) || lo > hi) {
      return bad(Cat("'", range,
                     "' is not a bit range lo-hi with 0 <= lo <= "
                     "hi <= 63"));
    }
    const uint64_t ones =
        hi - lo == 63 ? ~uint64_t{0} : ((uint64_t{1} << (hi - lo + 1)) - 1);
    field.mask |= ones << lo;
  }
  return field;
}

absl::Status PlaceFormatValue(const FormatField& field, uint64_t value,
                              Attr& attr) {
  if (value > field.max_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "value %#x (%u) for term '%s' does not fit its %d-bit field "
        "(%s bits %#x); the maximum is %#x",
        value, value, field.name, field.width(), ConfigWordName(field.word),
        field.mask, field.max_value()));
  }
  if (field.word == ConfigWord::kConfig3) {
    return absl::UnimplementedError(
        Cat("term '", field.name,
            "' lives in config3, which this build's kernel headers (and so "
            "Attr) do not have"));
  }
  uint64_t& word = WordOf(field.word, attr);
  int vbit = 0;
  for (int fbit = 0; fbit < 64; ++fbit) {
    const uint64_t fmask = uint64_t{1} << fbit;
    if ((field.mask & fmask) == 0) continue;
    if ((value >> vbit++) & 1) {
      word |= fmask;
    } else {
      word &= ~fmask;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ParseTermValue(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        Cat("bad value '", text, "': ", why,
            "; expected a decimal number or 0x followed by hex "
            "digits, at most 64 bits"));
  };
  if (text.empty()) return bad("empty");
  std::string_view digits = text;
  int base = 10;
  if (IStartsWith(text, "0x")) {
    digits.remove_prefix(2);
    base = 16;
    if (digits.empty()) return bad("no hex digits after 0x");
  }
  uint64_t value = 0;
  for (char c : digits) {
    int d = 0;
    if (absl::ascii_isdigit(c)) {
      d = c - '0';
    } else if (base == 16 && absl::ascii_isxdigit(c)) {
      d = absl::ascii_tolower(c) - 'a' + 10;
    } else {
      return bad(Cat("'", std::string(1, c), "' is not a ",
                     base == 16 ? "hex" : "decimal", " digit"));
    }
    if (value > (~uint64_t{0} - d) / base) {
      return bad("the value does not fit in 64 bits");
    }
    value = value * base + d;
  }
  return value;
}

absl::StatusOr<std::vector<PmuTerm>> ParsePmuTerms(std::string_view text,
                                                   size_t base_offset) {
  std::vector<PmuTerm> terms;
  size_t offset = base_offset;
  for (std::string_view raw : Split(text, ',')) {
    const std::string_view item = Trim(raw);
    PmuTerm term;
    term.offset = offset + (item.empty() ? 0 : item.data() - raw.data());
    offset += raw.size() + 1;
    if (item.empty()) {
      return absl::InvalidArgumentError(
          Cat("empty term at offset ", term.offset,
              "; expected name=value or a name, separated by single commas"));
    }
    const size_t eq = item.find('=');
    term.name = std::string(Trim(item.substr(0, eq)));
    if (term.name.empty()) {
      return absl::InvalidArgumentError(Cat("term '", item, "' at offset ",
                                            term.offset,
                                            " has no name before '='"));
    }
    if (eq != std::string_view::npos) {
      term.has_value = true;
      term.value = std::string(Trim(item.substr(eq + 1)));
      if (term.value.empty()) {
        return absl::InvalidArgumentError(
            Cat("term '", term.name, "' at offset ", term.offset,
                " has no value after '='; write ", term.name,
                "=<number> (decimal or 0x hex)"));
      }
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) return cpus;
  for (std::string_view range : Split(trimmed, ',')) {
    int lo = 0;
    int hi = 0;
    const size_t dash = range.find('-');
    const bool ok = dash == std::string_view::npos
                        ? absl::SimpleAtoi(Sv(range), &lo) && (hi = lo, true)
                        : absl::SimpleAtoi(Sv(range.substr(0, dash)), &lo) &&
                              absl::SimpleAtoi(Sv(range.substr(dash + 1)), &hi);
    if (!ok || lo < 0 || hi < lo || hi - lo > 65535) {
      return absl::InvalidArgumentError(
          Cat("bad CPU list '", text, "' at '", range,
              "'; expected numbers and ranges such as 0-3,8"));
    }
    for (int cpu = lo; cpu <= hi; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

const FormatField* Pmu::FindFormat(std::string_view name) const {
  for (const FormatField& f : formats) {
    if (f.name == name) return &f;
  }
  for (const FormatField& f : formats) {
    if (IEquals(f.name, name)) return &f;
  }
  return nullptr;
}

const PmuAlias* Pmu::FindAlias(std::string_view name) const {
  for (const PmuAlias& a : aliases) {
    if (IEquals(a.name, name)) return &a;
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::string>> ListPmus(const SystemPaths& paths) {
  return internal::ListDirectory(paths.EventSourceDevices());
}

absl::Status internal::NoSuchPmuError(
    std::string_view name, const SystemPaths& paths,
    const absl::StatusOr<std::vector<std::string>>& all) {
  return absl::NotFoundError(Cat(
      "no PMU named '", name, "' (no directory ", paths.EventSourceDevices(),
      "/", name,
      "); PMUs here: ", all.ok() ? Join(*all, ", ") : all.status().ToString()));
}

absl::StatusOr<Pmu> LoadPmu(std::string_view name, const SystemPaths& paths) {
  const std::string dir = Cat(paths.EventSourceDevices(), "/", name);
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." ||
      name == ".." || !internal::IsDirectory(dir)) {
    return internal::NoSuchPmuError(name, paths, ListPmus(paths));
  }
  Pmu pmu;
  pmu.name = std::string(name);

  const std::string type_file = dir + "/type";
  ASSIGN_OR_RETURN(std::string type_text, internal::ReadTextFile(type_file));
  if (!absl::SimpleAtoi(type_text, &pmu.type) ||
      !std::all_of(type_text.begin(), type_text.end(), absl::ascii_isdigit)) {
    return absl::InvalidArgumentError(
        Cat("malformed ", type_file, ": '", type_text,
            "'; expected the PMU's type as a decimal number"));
  }

  const std::string format_dir = dir + "/format";
  if (internal::IsDirectory(format_dir)) {
    ASSIGN_OR_RETURN(std::vector<std::string> names,
                     internal::ListDirectory(format_dir));
    for (const std::string& field_name : names) {
      const std::string file = format_dir + "/" + field_name;
      ASSIGN_OR_RETURN(std::string text, internal::ReadTextFile(file));
      ASSIGN_OR_RETURN(FormatField field,
                       FormatField::Parse(field_name, text, file));
      pmu.formats.push_back(std::move(field));
    }
  }

  const std::string events_dir = dir + "/events";
  if (internal::IsDirectory(events_dir)) {
    ASSIGN_OR_RETURN(std::vector<std::string> names,
                     internal::ListDirectory(events_dir));
    for (const std::string& alias_name : names) {
      if (alias_name.find('.') != std::string::npos) continue;  // .scale ...
      const std::string file = events_dir + "/" + alias_name;
      ASSIGN_OR_RETURN(std::string text, internal::ReadTextFile(file));
      PmuAlias alias;
      alias.name = alias_name;
      alias.terms_text = text;
      absl::StatusOr<std::vector<PmuTerm>> terms = ParsePmuTerms(text);
      if (!terms.ok()) {
        return absl::InvalidArgumentError(
            Cat("malformed alias file ", file, ": ", terms.status().message()));
      }
      alias.terms = *std::move(terms);
      const std::string scale_file = file + ".scale";
      if (absl::StatusOr<std::string> scale =
              internal::ReadTextFile(scale_file);
          !scale.ok() && !absl::IsNotFound(scale.status())) {
        return scale.status();
      } else if (scale.ok()) {
        if (!absl::SimpleAtod(*scale, &alias.scale) ||
            !std::isfinite(alias.scale)) {
          return absl::InvalidArgumentError(
              Cat("malformed ", scale_file, ": '", *scale,
                  "'; expected a finite number such as 1e-3"));
        }
      }
      if (absl::StatusOr<std::string> unit =
              internal::ReadTextFile(file + ".unit");
          !unit.ok() && !absl::IsNotFound(unit.status())) {
        return unit.status();
      } else if (unit.ok()) {
        alias.unit = std::string(Trim(*unit));
      }
      pmu.aliases.push_back(std::move(alias));
    }
  }

  for (const char* mask_name : {"cpumask", "cpus"}) {
    const std::string file = Cat(dir, "/", mask_name);
    absl::StatusOr<std::string> text = internal::ReadTextFile(file);
    if (!text.ok()) continue;
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(*text);
    if (!cpus.ok()) {
      return absl::InvalidArgumentError(
          Cat("malformed ", file, ": ", cpus.status().message()));
    }
    pmu.cpus = *std::move(cpus);
    break;
  }
  return pmu;
}

}  // namespace perfcounters
