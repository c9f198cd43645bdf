// env_diff.h: what differs between the environments of two runs (their
// fingerprints, `perfcounters.env.*` in the files' context,
// docs/environment.md), which metrics such a difference can move (the
// decision table), and the gates it refuses (`compare` and `report`:
// exit 2 unless --allow-env-diff names every moving field).
#ifndef PERFCOUNTERS_TOOLS_ENV_DIFF_H_
#define PERFCOUNTERS_TOOLS_ENV_DIFF_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compare_gates.h"
#include "gbench_json.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {

// A run's fingerprint as its file recorded it: the perfcounters.env.*
// fields (prefix taken off), plus gbench.build_type and gbench.version
// from gbench's own library_build_type and library_version where the
// fingerprint has none. Empty when the file has no perfcounters.env.*
// field at all (a run from before fingerprints).
using Fingerprint = std::map<std::string, std::string>;
Fingerprint FingerprintOf(const BenchmarkFile& file);

// What a metric is, for the decision table.
enum class MetricClass {
  kTime,          // real_time, cpu_time, task-clock, cpu-clock, *_per_second
  kInstructions,  // instructions (any modifiers)
  kHardware,      // other hardware events, table metrics (IPC, miss rates),
                  // raw and vendor events the run requested
  kSoftware,      // page faults, context switches, tracepoints
  kOther,         // the benchmark's own counters
};
// `events` is the file's perfcounters.events (the requested list), whose
// names count as hardware events unless they are software events.
MetricClass ClassifyMetric(absl::string_view metric, absl::string_view events);

// "times", "instructions", ...
const char* MetricClassName(MetricClass c);

// Whether a difference in fingerprint field `field` can move a metric of
// class `c` (docs/environment.md, "Decision table"). `user_only`: the
// metric counts user mode only (":u"), which a kernel cannot move.
bool FieldMoves(absl::string_view field, MetricClass c, bool user_only);

// Whether the two runs ran the same binary, by the binary.* fields of
// their fingerprints (binary.build_id): unknown where a side has none.
enum class SameBinary { kUnknown, kSame, kDifferent };
SameBinary SameBinaryOf(const BenchmarkFile& base, const BenchmarkFile& next);

// "same", "different", "unknown".
const char* SameBinaryName(SameBinary s);

// One field that differs; a side without the field has nullopt.
struct FieldDiff {
  std::string field;
  std::optional<std::string> base;
  std::optional<std::string> next;
};

// Two runs' environments, compared.
struct EnvDiff {
  // Whether each file has a fingerprint.
  bool base_has = false;
  bool next_has = false;
  // The fields that differ (both have a fingerprint), by name; the load
  // averages and the binary's identity (binary.*: another binary is what a
  // comparison of two builds is for) are never compared.
  std::vector<FieldDiff> fields;
  // binary.build_id of each side, where recorded, and what they say.
  std::optional<std::string> base_binary, next_binary;
  SameBinary binary = SameBinary::kUnknown;
  // loadavg.start / loadavg.end of each side, where recorded.
  std::optional<std::string> base_load_start, base_load_end;
  std::optional<std::string> next_load_start, next_load_end;

  bool Differs() const { return !fields.empty(); }
};
EnvDiff DiffEnvironments(const BenchmarkFile& base, const BenchmarkFile& next);

// The differing fields that can move `metric` (of a file whose requested
// list is `events`), less those in `allowed`.
std::vector<const FieldDiff*> MovingFields(
    const EnvDiff& diff, absl::string_view metric, absl::string_view events,
    const std::vector<std::string>& allowed);

// Checks --allow-env-diff names: each must be a field of the decision
// table or one that a run of `files` recorded (a field a later perfcounters
// added); InvalidArgument naming the unknown one and the known ones.
absl::Status CheckAllowedFields(const std::vector<std::string>& allowed,
                                const std::vector<const BenchmarkFile*>& files);

// Sets every gate whose metric the difference can move (less `allowed`) to
// GateStatus::kRefused, its message naming the fields and how to allow
// them. `events`: the new file's perfcounters.events.
void RefuseGates(const EnvDiff& diff, absl::string_view events,
                 const std::vector<std::string>& allowed,
                 std::vector<GateResult>* results);

// The block printed above compare's table and markdown: the differing
// fields (at most `max_fields`, then how many more), what each can move,
// the load averages; "no fingerprint" when one side has none. Empty when
// both sides have equal fingerprints, and when neither has one. `markdown`:
// GitHub markdown.
std::string EnvDiffText(const EnvDiff& diff, bool markdown,
                        size_t max_fields = 8);

// The same as JSON (base_fingerprint, new_fingerprint, differs, every
// differing field with base, new and the metric classes it can move, the
// load averages, the binaries).
nlohmann::ordered_json EnvDiffJson(const EnvDiff& diff);

// The file's perfcounters.events (its requested event list), or "".
std::string EventsOf(const BenchmarkFile& file);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_ENV_DIFF_H_
