// gbench_json.h: reading Google Benchmark JSON output (`--benchmark_out=`,
// `--benchmark_format=json`) into `BenchmarkFile`, the data `perfcounters
// compare` and `perfcounters report` work on.
//
// Every entry of the "benchmarks" array becomes a `RunEntry`: its name,
// run_name, run type, repetition, times normalised to nanoseconds and every
// extra numeric field as a counter. Counters that were not counted are kept
// as such (never 0): gbench writes a NaN counter as a bare `NaN` token, and
// perfcounters' benchmark integration writes "<label>.not_counted": 1 (see
// docs/benchmark_ext.md); `null` and "<not counted>" strings mean the same.
// "<label>.coverage" and "<label>.mux_intervals" keys are kept beside the
// counters (RunEntryDetails::coverages and mux_intervals).
// One reader: nlohmann-json's SAX
// parser over the input in 1 MB chunks, building the entries as it goes, so
// that memory is what the result takes (no copy of the text, no document
// tree) and errors carry exact positions from the same pass.
#ifndef PERFCOUNTERS_TOOLS_GBENCH_JSON_H_
#define PERFCOUNTERS_TOOLS_GBENCH_JSON_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "input_text.h"
#include "maybe_double.h"

namespace perfcounters::tools {

struct BenchmarkProfile;  // profile_data.h
struct NamedProfile;      // profile_data.h

// One counter of one entry as read from the file (the core's CounterValue
// is a live reading; this is a recorded one).
struct EntryCounter {
  // The value; meaningless when !counted.
  double value = 0;
  // Index into BenchmarkFile::counter_names.
  uint32_t name = 0;
  // False when the entry marks the counter as not counted (NaN, null, a
  // "<not counted>" string, or "<label>.not_counted": 1). Such a value is never
  // treated as 0.
  bool counted = true;
};

// The kind of an entry ("run_type").
enum class RunType {
  kIteration,  // one (repetition of a) run
  kAggregate,  // mean/median/stddev/cv/... over repetitions
};

// The fields of an entry that most entries leave empty (RunEntry::details):
// kept out of line, because a file can hold hundreds of thousands of
// entries and compare holds two files at once.
struct RunEntryDetails {
  // "aggregate_name" ("mean", "median", "stddev", "cv", "BigO", "RMS", ...),
  // empty for iterations.
  std::string aggregate_name;
  // "error_message".
  std::string error_message;
  // "skip_message".
  std::string skip_message;
  // "<label>.coverage" (benchmark_ext's multiplexing coverage of a counted
  // <label>, in [0, 1]): (index into BenchmarkFile::counter_names, value).
  // Only multiplexed counters have one; the rest were on the PMU the whole
  // time.
  std::vector<std::pair<uint32_t, double>> coverages;
  // "<label>.mux_intervals" (benchmark_ext: a multiplexed <label> whose
  // batch spanned fewer than kFewMuxIntervals of the kernel's multiplexing
  // intervals, counters.h): (index into BenchmarkFile::counter_names,
  // intervals). Its value is a rough estimate.
  std::vector<std::pair<uint32_t, double>> mux_intervals;
  // The sampled profile ("perfcounters_profile", profile_data.h), if the
  // row carries one.
  std::shared_ptr<const BenchmarkProfile> profile;
};

// Owns an entry's RunEntryDetails, if it has any; copies copy them.
class RunEntryDetailsPtr {
 public:
  RunEntryDetailsPtr() = default;
  RunEntryDetailsPtr(const RunEntryDetailsPtr& other)
      : p_(other.p_ ? std::make_unique<RunEntryDetails>(*other.p_) : nullptr) {}
  RunEntryDetailsPtr& operator=(const RunEntryDetailsPtr& other) {
    if (this != &other) *this = RunEntryDetailsPtr(other);
    return *this;
  }
  RunEntryDetailsPtr(RunEntryDetailsPtr&&) noexcept = default;
  RunEntryDetailsPtr& operator=(RunEntryDetailsPtr&&) noexcept = default;

  // The details; empty ones when the entry has none.
  const RunEntryDetails& get() const;
  // The details, created empty when the entry has none.
  RunEntryDetails& mutable_get() {
    if (!p_) p_ = std::make_unique<RunEntryDetails>();
    return *p_;
  }

 private:
  std::unique_ptr<RunEntryDetails> p_;
};

// One element of the "benchmarks" array. Fields most entries have are
// members; the rest are in details() (RunEntryDetails), read through the
// accessors below.
struct RunEntry {
  // "name" (e.g. "BM_sort/1024_mean" for an aggregate).
  std::string name;
  // "run_name", the key benchmarks are paired by; "name" when absent
  // (very old gbench).
  std::string run_name;
  // Every other numeric field, in file order.
  std::vector<EntryCounter> counters;
  // "real_time" / "cpu_time" in nanoseconds (converted from "time_unit").
  // (8 bytes each: a time is finite, never NaN, maybe_double.h.)
  MaybeDouble real_time_ns;
  MaybeDouble cpu_time_ns;
  // "iterations", 0 when absent.
  double iterations = 0;
  // "repetition_index", -1 when absent.
  int64_t repetition_index = -1;
  RunType run_type = RunType::kIteration;
  // "error_occurred" (the message: error_message()).
  bool error_occurred = false;
  // "skipped" (newer gbench; the message: skip_message()).
  bool skipped = false;
  // The rarely present fields (RunEntryDetails).
  RunEntryDetailsPtr details;

  const std::string& aggregate_name() const {
    return details.get().aggregate_name;
  }
  const std::string& error_message() const {
    return details.get().error_message;
  }
  const std::string& skip_message() const { return details.get().skip_message; }
  const std::vector<std::pair<uint32_t, double>>& coverages() const {
    return details.get().coverages;
  }
  const std::vector<std::pair<uint32_t, double>>& mux_intervals() const {
    return details.get().mux_intervals;
  }
  const std::shared_ptr<const BenchmarkProfile>& profile() const {
    return details.get().profile;
  }
};

// A whole gbench JSON file.
struct BenchmarkFile {
  // Things in the file that were accepted but may not be what the writer
  // meant, each naming where: a counter that is not a number (a string or
  // boolean, not used), an entry without real_time and cpu_time, a benchmark
  // name (run_name) that repeats a repetition or aggregate already seen
  // (both entries are used as samples). At most kMaxWarnings are kept;
  // `warning_count` counts them all.
  std::vector<std::string> warnings;
  size_t warning_count = 0;
  // Where it was read from (for messages).
  std::string source;
  // "context" fields kept as text (e.g. "date", "host_name",
  // "perfcounters.env.cpu.model_name"), then those of "context_end"
  // (benchmark_ext's end-of-run facts, docs/environment.md); numbers are
  // rendered as text.
  std::vector<std::pair<std::string, std::string>> context;
  // "context" members that are arrays or objects (gbench's "caches",
  // "load_avg"), as compact JSON text.
  std::vector<std::pair<std::string, std::string>> context_json;
  // Counter names, interned: EntryCounter::name indexes this.
  std::vector<std::string> counter_names;
  std::vector<RunEntry> entries;
};

// Parses gbench JSON text. `source` names it in errors. Errors are
// InvalidArgument and say what is wrong and where: the byte offset for
// malformed JSON, the JSON path (e.g. benchmarks[12].real_time) for a value
// of the wrong kind or a non-finite / out-of-range number.
absl::StatusOr<BenchmarkFile> ParseBenchmarkJson(absl::string_view text,
                                                 absl::string_view source);

// Warnings kept per file (BenchmarkFile::warnings).
inline constexpr size_t kMaxWarnings = 20;

// Reads and parses a file: a regular file or a pipe (`<(...)`,
// /dev/stdin; "-" is standard input), at most `max_bytes`, in one pass
// with memory for the result and a small buffer, never the whole text.
// Unreadable files are NotFound / PermissionDenied / InvalidArgument naming the
// path; a directory, a device
// (/dev/zero, /dev/urandom) or a socket is InvalidArgument, and so is a
// file or pipe with more than `max_bytes` (an endless pipe stops there).
absl::StatusOr<BenchmarkFile> LoadBenchmarkJson(
    const std::string& path, uint64_t max_bytes = kDefaultMaxInputBytes);

// Prints `file`'s warnings to stderr as "perfcounters COMMAND: warning:".
void PrintWarnings(const char* command, const BenchmarkFile& file);

// `file`'s warnings, each prefixed with its source.
std::vector<std::string> WarningLines(const BenchmarkFile& file);

// Every profiled benchmark of `file`, in file order, one profile per
// benchmark (profile_data.h: copies of repetitions merged).
std::vector<NamedProfile> Profiles(const BenchmarkFile& file);

// Nanoseconds per `unit` ("ns", "us", "ms", "s"), or nullopt.
std::optional<double> NanosecondsPer(absl::string_view unit);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_GBENCH_JSON_H_
