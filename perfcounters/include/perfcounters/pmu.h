// pmu.h: the kernel's dynamic PMUs as sysfs describes them.
//
// Every PMU lives in <SystemPaths::EventSourceDevices()>/<name>/ with
//   type          the number to put in perf_event_attr.type
//   format/<f>    where term <f> goes: "config:0-7", "config1:0",
//                 "config:0-7,32-35" (split ranges), "config2:0-63"
//   events/<a>    an alias: terms such as "event=0x3c,umask=0x00"
//   events/<a>.scale, events/<a>.unit   how to present the alias's counts
//   cpumask       the CPUs the PMU counts on ("0-3,8"), for uncore PMUs
// `Pmu` is that directory read into memory; `FormatField` is one format
// file; `PmuAlias` one events/ file; `PmuTerm` one `name=value` term.
// `PlaceFormatValue()` puts a term's value into an Attr by its format, the
// way perf does (value bits fill the format's bits from the lowest up).
// Malformed sysfs contents give an error naming the file.
#ifndef PERFCOUNTERS_PMU_H_
#define PERFCOUNTERS_PMU_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/attr.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Which perf_event_attr word a format field lives in. config3 (Linux 6.3+)
// is recognised so such PMUs load, but Attr has no config3 (Debian 12's
// headers lack it): placing a value there is an error.
enum class ConfigWord { kConfig, kConfig1, kConfig2, kConfig3 };

// The word's name as sysfs and perf spell it: "config", "config1",
// "config2", "config3".
std::string_view ConfigWordName(ConfigWord word);

// One format/<name> file: term `name` occupies the bits of `mask` in `word`.
struct FormatField {
  std::string name;
  ConfigWord word = ConfigWord::kConfig;
  // The bits the field occupies (possibly non-contiguous).
  uint64_t mask = 0;

  // Number of bits, i.e. the widest value the field holds.
  int width() const;
  // The largest value that fits: 2^width - 1.
  uint64_t max_value() const;

  // Parses format file contents such as "config:0-7,32-35" or "config1:0".
  // `file` names the file in errors.
  static absl::StatusOr<FormatField> Parse(std::string_view name,
                                           std::string_view contents,
                                           std::string_view file = "");

  friend bool operator==(const FormatField&, const FormatField&) = default;
};

// Places `value` into `attr` by `field`: bit i of value goes to the i-th
// lowest bit of the mask; the field's bits are cleared first. Error when the
// value does not fit, naming the term, the value and the width, and
// UnimplementedError for config3 fields.
absl::Status PlaceFormatValue(const FormatField& field, uint64_t value,
                              Attr& attr);

// One `name=value` (or bare `name`) term, as written in events/ files and
// inside pmu/.../.
struct PmuTerm {
  std::string name;
  // The value text ("0x3c", "12", "?" for "user must supply"); empty for a
  // bare term.
  std::string value;
  // True when the term had '='.
  bool has_value = false;
  // Byte offset of the term's name in the parsed text.
  size_t offset = 0;

  friend bool operator==(const PmuTerm&, const PmuTerm&) = default;
};

// Splits "event=0x3c,umask=0x00" into terms. Offsets (in the terms and in
// errors) are `base_offset` plus the position within `text`. Errors name
// the term and its offset: empty terms, empty names, `name=` without a
// value.
absl::StatusOr<std::vector<PmuTerm>> ParsePmuTerms(std::string_view text,
                                                   size_t base_offset = 0);

// Parses a term value: decimal, or hexadecimal with 0x. Errors name the
// value and say what is allowed; values beyond 64 bits are errors.
absl::StatusOr<uint64_t> ParseTermValue(std::string_view text);

// One events/<name> file with its optional .scale and .unit.
struct PmuAlias {
  std::string name;
  // The file's contents, trimmed ("event=0x3c,umask=0x00").
  std::string terms_text;
  std::vector<PmuTerm> terms;
  // events/<name>.scale, 1.0 when absent.
  double scale = 1.0;
  // events/<name>.unit, empty when absent.
  std::string unit;

  friend bool operator==(const PmuAlias&, const PmuAlias&) = default;
};

// A PMU read from sysfs.
struct Pmu {
  std::string name;
  // perf_event_attr.type for this PMU.
  uint32_t type = 0;
  // format/ files, sorted by name.
  std::vector<FormatField> formats;
  // events/ aliases, sorted by name.
  std::vector<PmuAlias> aliases;
  // CPUs from cpumask; empty when the PMU has no cpumask file.
  std::vector<int> cpus;

  // Finds a format field, exactly or else case-insensitively; nullptr if
  // none.
  const FormatField* FindFormat(std::string_view name) const;
  // Finds an alias case-insensitively; nullptr if none.
  const PmuAlias* FindAlias(std::string_view name) const;
};

// Names of every PMU under <sysfs>/bus/event_source/devices, sorted.
absl::StatusOr<std::vector<std::string>> ListPmus(
    const SystemPaths& paths = {});

// Reads one PMU. NotFoundError when there is no such directory (the message
// lists the PMUs that exist); InvalidArgumentError naming the file for
// malformed contents.
absl::StatusOr<Pmu> LoadPmu(std::string_view name,
                            const SystemPaths& paths = {});

// Parses a CPU list such as "0-3,8" (the cpumask file format).
absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_PMU_H_
