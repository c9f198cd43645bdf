// grammar_pmu.cc: the sysfs form of the perf event grammar,
// pmu/term=value,.../ and pmu/alias[,term=value...]/, with modifiers after
// the closing slash (pmu/.../u or pmu/.../:u).
#include <linux/perf_event.h>

#include <optional>

#include "grammar_internal.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/internal/edit_distance.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/pmu.h"
#include "text_util.h"

namespace perfcounters::internal {
namespace {

constexpr std::string_view kBuiltinTerms[] = {"config", "config1", "config2",
                                              "name",   "period",  "freq"};

bool IsBuiltinTerm(std::string_view name) {
  for (std::string_view builtin : kBuiltinTerms) {
    if (builtin == name) return true;
  }
  return false;
}

// Core CPU PMUs (where ParseOptions::default_user_only applies): "cpu",
// the hybrid "cpu_core"/"cpu_atom", and PMUs with a cpus file (arm's
// armv8_pmuv3_*, hybrid PMUs).
bool IsCorePmu(const Pmu& pmu, const EventSources& sources) {
  if (pmu.name == "cpu" || IStartsWith(pmu.name, "cpu_") ||
      IStartsWith(pmu.name, "armv8_pmuv3") || IStartsWith(pmu.name, "armv7")) {
    return true;
  }
  return sources.HasCpusFile(pmu.name);
}

// Finds the PMU directory for `name`: exact, else case-insensitive, else
// the one PMU named <name>_<digits> (perf accepts armv8_pmuv3 for
// armv8_pmuv3_0).
absl::StatusOr<std::string> ResolvePmuName(const ParseContext& ctx,
                                           std::string_view name,
                                           size_t offset) {
  absl::StatusOr<std::vector<std::string>> all = ctx.sources.ListPmus();
  if (!all.ok()) {
    return absl::Status(all.status().code(),
                        Cat("cannot list PMUs for ", Quote(name),
                            At(ctx, offset), ": ", all.status().message()));
  }
  std::vector<std::string> matches;
  for (const std::string& pmu : *all) {
    if (pmu == name) return pmu;
  }
  for (const std::string& pmu : *all) {
    if (IEquals(pmu, name)) matches.push_back(pmu);
  }
  if (matches.empty()) {
    for (const std::string& pmu : *all) {
      if (pmu.size() > name.size() + 1 && IStartsWith(pmu, name) &&
          pmu[name.size()] == '_' &&
          pmu.find_first_not_of("0123456789", name.size() + 1) ==
              std::string::npos) {
        matches.push_back(pmu);
      }
    }
  }
  if (matches.size() == 1) return matches[0];
  if (matches.size() > 1) {
    return absl::InvalidArgumentError(Cat(
        "PMU name ", Quote(name), At(ctx, offset), " matches several PMUs (",
        Join(matches, ", "), "); write one of them"));
  }
  std::string hint;
  const std::vector<std::string> close = ClosestNames(name, *all, 3);
  if (!close.empty()) hint = Cat("; did you mean ", Join(close, ", "), "?");
  return absl::NotFoundError(Cat("unknown PMU ", Quote(name), At(ctx, offset),
                                 hint,
                                 "; PMUs on this machine: ", Join(*all, ", ")));
}

std::string ValidTerms(const Pmu& pmu) {
  std::vector<std::string> names;
  for (const FormatField& f : pmu.formats) names.push_back(f.name);
  for (std::string_view b : kBuiltinTerms) names.emplace_back(b);
  return Join(names, ", ");
}

// Applies one term (from the alias or the user) to the event.
absl::Status ApplyTerm(const ParseContext& ctx, const Pmu& pmu,
                       const PmuTerm& term, size_t offset, ParsedEvent& event) {
  Attr& attr = event.spec.attr;
  if (term.name == "name") {
    if (!term.has_value) {
      return absl::InvalidArgumentError(Cat("term 'name' needs a value",
                                            At(ctx, offset),
                                            "; write name=<label>"));
    }
    event.base_label = term.value;
    event.label_from_name_term = true;
    return absl::OkStatus();
  }
  const FormatField* field = pmu.FindFormat(term.name);
  if (field == nullptr && !IsBuiltinTerm(term.name)) {
    std::vector<std::string> candidates;
    for (const FormatField& f : pmu.formats) candidates.push_back(f.name);
    for (std::string_view b : kBuiltinTerms) candidates.emplace_back(b);
    for (const PmuAlias& a : pmu.aliases) candidates.push_back(a.name);
    const std::vector<std::string> close =
        ClosestNames(term.name, candidates, 3);
    return absl::InvalidArgumentError(
        Cat("unknown term ", Quote(term.name), " for '", pmu.name, "'",
            At(ctx, offset),
            close.empty() ? std::string()
                          : Cat("; did you mean ", Join(close, ", "), "?"),
            "; valid terms are ", ValidTerms(pmu),
            pmu.aliases.empty() ? std::string()
                                : Cat(", or one of the PMU's ",
                                      pmu.aliases.size(), " event names")));
  }
  uint64_t value = 1;  // a bare format term means 1, as in perf
  if (term.has_value) {
    absl::StatusOr<uint64_t> parsed = ParseTermValue(term.value);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(Cat(AtPrefix(ctx, offset), "term '",
                                            term.name,
                                            "': ", parsed.status().message()));
    }
    value = *parsed;
  } else if (field == nullptr) {
    return absl::InvalidArgumentError(Cat("term '", term.name,
                                          "' needs a value", At(ctx, offset),
                                          "; write ", term.name, "=<number>"));
  }
  if (field != nullptr) {
    // perf ORs a format term's bits into the field (pmu_format_value): a
    // field given twice, or over config=, keeps the bits of both.
    Attr placed;
    absl::Status status = PlaceFormatValue(*field, value, placed);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          Cat(AtPrefix(ctx, offset), status.message()));
    }
    attr.config |= placed.config;
    attr.config1 |= placed.config1;
    attr.config2 |= placed.config2;
  } else if (term.name == "config") {
    attr.config = value;
  } else if (term.name == "config1") {
    attr.config1 = value;
  } else if (term.name == "config2") {
    attr.config2 = value;
  } else {  // period or freq
    attr.sample_period = value;
    attr.freq = term.name == "freq";
  }
  return absl::OkStatus();
}

// config=, config1= and config2= set their word before any format term
// ORs into it (perf's config_attr runs before perf_pmu__config).
bool IsConfigTerm(std::string_view name) {
  return name == "config" || name == "config1" || name == "config2";
}

}  // namespace

absl::StatusOr<ParsedEvent> ParseSymbolWithTerms(const ParseContext& ctx,
                                                 ParsedEvent event,
                                                 std::string_view terms_text,
                                                 size_t terms_offset) {
  absl::StatusOr<std::vector<PmuTerm>> terms =
      ParsePmuTerms(terms_text, terms_offset);
  if (!terms.ok()) {
    return absl::InvalidArgumentError(
        Cat(terms.status().message(), " in ", Quote(ctx.input)));
  }
  // A generic, cache or software event takes perf's built-in terms only.
  Pmu none;
  none.name = event.base_label;
  for (int pass = 0; pass < 2; ++pass) {
    for (const PmuTerm& term : *terms) {
      if (IsConfigTerm(term.name) != (pass == 0)) continue;
      RETURN_IF_ERROR(ApplyTerm(ctx, none, term, term.offset, event));
    }
  }
  return event;
}

namespace {

// pmu/terms/mods split at its slashes, with each part's offset in the
// input.
struct PmuEventText {
  std::string_view pmu, terms, mods;
  size_t terms_offset = 0, mods_offset = 0;
  size_t close = 0;  // where the terms' closing '/' is in `text`
};

absl::StatusOr<PmuEventText> SplitPmuEventText(const ParseContext& ctx,
                                               std::string_view text,
                                               size_t offset) {
  const size_t open = text.find('/');
  const size_t close = text.find('/', open + 1);
  if (open == 0) {
    return absl::InvalidArgumentError(
        Cat("missing PMU name before '/'", At(ctx, offset),
            "; write pmu/term=value,.../, e.g. cpu/event=0x3c/"));
  }
  if (close == std::string_view::npos) {
    return absl::InvalidArgumentError(
        Cat("'/' opened", At(ctx, offset + open),
            " is never closed; write pmu/term=value,.../"));
  }
  PmuEventText parts;
  parts.pmu = text.substr(0, open);
  parts.terms = text.substr(open + 1, close - open - 1);
  parts.terms_offset = offset + open + 1;
  parts.close = close;
  parts.mods = text.substr(close + 1);
  parts.mods_offset = offset + close + 1;
  if (!parts.mods.empty() && parts.mods[0] == ':') {
    parts.mods.remove_prefix(1);
    ++parts.mods_offset;
    if (parts.mods.empty()) {
      RETURN_IF_ERROR(CheckModifiers(ctx, parts.mods, parts.mods_offset));
    }
  }
  if (parts.mods.find('/') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        Cat("unexpected '/'", At(ctx, offset + text.find('/', close + 1)),
            " after the PMU terms; write pmu/term=value,.../[modifiers]"));
  }
  return parts;
}

// The event a pmu/.../ names, if any: an alias from events/, or on a core
// PMU one of perf's legacy names (cpu/cycles/, cpu_core/LLC-loads/).
struct PmuEventName {
  const PmuAlias* alias = nullptr;
  // The term that names it.
  std::optional<size_t> index;
  uint32_t generic_type = 0;
  std::optional<uint64_t> generic_config;
  std::string generic_label;
};

// A bare term that is neither a format field nor a built-in term names an
// alias from events/.
absl::StatusOr<PmuEventName> FindPmuEventName(
    const ParseContext& ctx, const Pmu& pmu, bool cpu_pmu,
    const std::vector<PmuTerm>& terms) {
  PmuEventName name;
  for (size_t i = 0; i < terms.size(); ++i) {
    const PmuTerm& term = terms[i];
    if (term.has_value || pmu.FindFormat(term.name) != nullptr ||
        IsBuiltinTerm(term.name)) {
      continue;
    }
    const PmuAlias* found = pmu.FindAlias(term.name);
    const size_t at = term.offset;
    if (found == nullptr && cpu_pmu && name.alias == nullptr &&
        !name.generic_config) {
      // perf's legacy names on a core PMU: cpu/cycles/, cpu_core/LLC-loads/.
      if (const GenericEvent* g = FindGenericEvent(term.name);
          g != nullptr && g->type == PERF_TYPE_HARDWARE) {
        name.generic_type = PERF_TYPE_HARDWARE;
        name.generic_config = g->config;
        name.generic_label = g->canonical;
      } else if (absl::StatusOr<HwCacheEvent> cache =
                     ParseHwCacheName(term.name);
                 cache.ok()) {
        name.generic_type = PERF_TYPE_HW_CACHE;
        name.generic_config = cache->config();
        name.generic_label = cache->CanonicalName();
      }
      if (name.generic_config) {
        name.index = i;
        continue;
      }
    }
    if (found == nullptr) {
      std::vector<std::string> names;
      for (const PmuAlias& a : pmu.aliases) names.push_back(a.name);
      const std::vector<std::string> close_names =
          ClosestNames(term.name, names, 3);
      return absl::NotFoundError(
          Cat("PMU '", pmu.name, "' has no event or term ", Quote(term.name),
              At(ctx, at),
              close_names.empty()
                  ? std::string()
                  : Cat("; did you mean ", Join(close_names, ", "), "?"),
              "; its events are listed under ",
              ctx.sources.paths().EventSourceDevices(), "/", pmu.name,
              "/events and its terms are ", ValidTerms(pmu)));
    }
    if (name.alias != nullptr || name.generic_config) {
      return absl::InvalidArgumentError(
          Cat("second event name ", Quote(term.name), At(ctx, at), " after '",
              name.alias != nullptr ? name.alias->name : name.generic_label,
              "'; a pmu/.../ event names at most one event"));
    }
    name.alias = found;
    name.index = i;
  }
  return name;
}

// A legacy name's type and config; no format field or config term beside
// it.
absl::Status ApplyPmuGenericEvent(const ParseContext& ctx, const Pmu& pmu,
                                  const PmuEventName& name,
                                  const std::vector<PmuTerm>& terms,
                                  ParsedEvent& event) {
  // Hybrid core PMUs (cpu_core, cpu_atom) take the PMU type in the upper
  // 32 bits of a generic event's config (PERF_PMU_TYPE_SHIFT).
  event.spec.attr.type = name.generic_type;
  event.spec.attr.config =
      *name.generic_config |
      (IStartsWith(pmu.name, "cpu_") ? uint64_t{pmu.type} << 32 : 0);
  for (const PmuTerm& term : terms) {
    if (pmu.FindFormat(term.name) != nullptr || term.name == "config" ||
        term.name == "config1" || term.name == "config2") {
      return absl::InvalidArgumentError(Cat(
          "term '", term.name, "'", At(ctx, term.offset),
          " cannot be combined with the generic event '", name.generic_label,
          "'; use raw terms or the generic name alone"));
    }
  }
  return absl::OkStatus();
}

// The alias's terms, then the user's, as perf splices them; config=
// terms in a first pass, the others (format fields OR) in a second.
absl::Status ApplyPmuEventTerms(const ParseContext& ctx, const Pmu& pmu,
                                const PmuEventName& name,
                                const std::vector<PmuTerm>& terms,
                                size_t offset, ParsedEvent& event) {
  static const std::vector<PmuTerm> kNoTerms;
  const PmuAlias* alias = name.alias;
  for (int pass = 0; pass < 2; ++pass) {
    for (const PmuTerm& term : alias != nullptr ? alias->terms : kNoTerms) {
      if (IsConfigTerm(term.name) != (pass == 0)) continue;
      if (term.value == "?") {
        bool supplied = false;
        for (const PmuTerm& user : terms) supplied |= user.name == term.name;
        if (!supplied) {
          return absl::InvalidArgumentError(
              Cat("event '", alias->name, "' of PMU '", pmu.name, "' needs '",
                  term.name, "=<value>' (its sysfs file says ",
                  alias->terms_text, ")", At(ctx, offset), "; write ", pmu.name,
                  "/", alias->name, ",", term.name, "=<value>/"));
        }
        continue;
      }
      absl::Status status = ApplyTerm(ctx, pmu, term, offset, event);
      if (!status.ok()) {
        return absl::InvalidArgumentError(
            Cat("in the sysfs definition of '", pmu.name, "/", alias->name,
                "/' (", alias->terms_text, "): ", status.message()));
      }
    }
    for (size_t i = 0; i < terms.size(); ++i) {
      if (name.index == i || IsConfigTerm(terms[i].name) != (pass == 0)) {
        continue;
      }
      RETURN_IF_ERROR(ApplyTerm(ctx, pmu, terms[i], terms[i].offset, event));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ParsedEvent> ParsePmuEvent(const ParseContext& ctx,
                                          std::string_view text,
                                          size_t offset) {
  ASSIGN_OR_RETURN(const PmuEventText parts,
                   SplitPmuEventText(ctx, text, offset));
  ASSIGN_OR_RETURN(std::string pmu_name,
                   ResolvePmuName(ctx, parts.pmu, offset));
  absl::StatusOr<std::shared_ptr<const Pmu>> loaded =
      ctx.sources.LoadPmu(pmu_name);
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        Cat("PMU '", pmu_name, "'", At(ctx, offset), ": ",
                            loaded.status().message()));
  }
  const Pmu* const pmu = loaded->get();
  absl::StatusOr<std::vector<PmuTerm>> terms =
      ParsePmuTerms(parts.terms, parts.terms_offset);
  if (!terms.ok()) {
    return absl::InvalidArgumentError(
        Cat(terms.status().message(), " in ", Quote(ctx.input)));
  }

  ParsedEvent event;
  event.spec.attr.type = pmu->type;
  event.spec.pmu = pmu->name;
  event.base_label = std::string(text.substr(0, parts.close + 1));
  event.cpu_pmu = IsCorePmu(*pmu, ctx.sources);

  ASSIGN_OR_RETURN(const PmuEventName name,
                   FindPmuEventName(ctx, *pmu, event.cpu_pmu, *terms));
  if (name.alias != nullptr) {
    event.spec.scale = name.alias->scale;
    event.spec.unit = name.alias->unit;
  }
  if (name.generic_config) {
    RETURN_IF_ERROR(ApplyPmuGenericEvent(ctx, *pmu, name, *terms, event));
  }
  RETURN_IF_ERROR(ApplyPmuEventTerms(ctx, *pmu, name, *terms, offset, event));
  if (!parts.mods.empty()) {
    RETURN_IF_ERROR(CheckModifiers(ctx, parts.mods, parts.mods_offset));
    RETURN_IF_ERROR(ApplyModifiers(ctx, parts.mods, parts.mods_offset, event));
  }
  return event;
}

}  // namespace perfcounters::internal
