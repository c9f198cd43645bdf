// compare_gates.h: CI gates on a comparison (`IPC<-2%`,
// `instructions>+0.5%`, `cpu_time>1.5ms`): parsing, evaluation with
// significance, and the exit code they mean.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_GATES_H_
#define PERFCOUNTERS_TOOLS_COMPARE_GATES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compare.h"

namespace perfcounters::tools {

// A CI gate: the condition that FAILS the run.
//   [FILTER:]METRIC OP VALUE
// OP is <, <=, > or >=. VALUE ending in % is a change relative to base
// (IPC<-2%: IPC dropped more than 2%); otherwise it is an absolute limit on
// the new median (cpu_time>1.5ms, IPC<1.2), with a unit (ns, us, ms, s)
// required for the metrics the output shows as times (real_time,
// cpu_time, task-clock, cpu-clock: task-clock>50us), never assumed. FILTER is a
// regular expression searched in benchmark names (like --benchmark_filter),
// `=NAME` for exactly the benchmark NAME (no regular expression: templates,
// brackets, + and * as written), or `@geomean` for the geometric-mean summary
// (relative gates only). The comparison is the last < or > of the text, so
// FILTER may contain < and > (BM_f<std::vector<int>>/8:IPC<-2%).
struct Gate {
  std::string text;
  std::string filter_text;
  std::optional<NameFilter> filter;
  // For FILTER `=NAME`: NAME.
  std::optional<std::string> exact_name;
  bool geomean = false;
  std::string metric;
  enum class Op { kLess, kLessEqual, kGreater, kGreaterEqual } op = Op::kLess;
  bool relative = false;
  // Percent for relative gates; for absolute gates in the metric's unit
  // (nanoseconds for times).
  double threshold = 0;

  // True when `value` satisfies the failure condition.
  bool Violated(double value) const;
  // Whether the gate applies to benchmark `name`.
  bool Applies(absl::string_view name) const;
};

// Parses a gate. `known_metrics` are the metric names of the comparison:
// the metric must be one of them; since counter names may contain ':'
// (cycles:u), FILTER ends at the first ':' after which a known metric name
// follows. An unknown metric is an error listing the known ones (and
// naming IPC:u when IPC was asked for and only IPC:u exists).
absl::StatusOr<Gate> ParseGate(absl::string_view text,
                               const std::vector<std::string>& known_metrics);

// A benchmark (or the geomean) whose change or value met a gate's
// condition.
struct GateViolation {
  std::string benchmark;  // "@geomean" for the summary
  std::string metric;
  // The value compared with the threshold (a change in % or a median).
  double value = 0;
  // What the change rests on (kNone for absolute and @geomean gates).
  Evidence evidence = Evidence::kNone;
  std::optional<double> p;
  // Smallest p these sample sizes allow (kUTest only).
  double min_p = 0;
  // A compared side's value is Flagged(): an estimate.
  bool estimated = false;
};

// A benchmark a gate applies to but could not be checked on, and why.
struct GateSkip {
  std::string benchmark;
  std::string reason;
};

// How a gate ended; the exit status follows from these (ExitCode()).
enum class GateStatus {
  kPassed,     // checked >= 1 pair, nothing violated
  kFailed,     // violated (exit 1)
  kMissing,    // not evaluated somewhere and --fail-on-missing (exit 1)
  kUnchecked,  // checked nothing (exit 2, unless allowed)
  kNoMatch,    // its FILTER matches no benchmark (exit 2)
  kRefused,    // the runs' environments differ in a way that can move its
               // metric (env_diff.h; exit 2)
};

// What one gate found.
struct GateResult {
  std::string gate;
  std::string metric;
  bool relative = false;
  // Benchmarks the gate's filter matched (in either file).
  size_t matched = 0;
  // (benchmark, metric) pairs with a value to compare.
  size_t checked = 0;
  std::vector<GateViolation> violations;
  // Changes beyond the threshold that were not significant (p >= alpha, or
  // overlapping exact ranges): they do not fail the run.
  std::vector<GateViolation> not_significant;
  std::vector<GateSkip> not_evaluated;
  // Checked pairs whose verdict rests on one sample a side.
  size_t one_sample = 0;
  // Checked pairs whose compared value (either side for a relative gate,
  // the new one for an absolute gate) is Flagged(): an estimate.
  size_t estimated = 0;
  GateStatus status = GateStatus::kPassed;
  // For kUnchecked/kNoMatch: why, with the metrics the data has; for an
  // allowed unchecked gate, that it was allowed.
  std::string message;
};

// How gates are evaluated.
struct GateOptions {
  // A relative gate with repetitions trips only when the change is
  // Significant() at this level.
  double alpha = 0.05;
  // A gate not evaluated on some benchmark fails the run.
  bool fail_on_missing = false;
  // A gate that checked nothing passes (with a note) instead of exit 2.
  bool allow_unchecked = false;
};

// Evaluates every gate on every benchmark it applies to and sets each
// result's status.
std::vector<GateResult> EvaluateGates(const Comparison& comparison,
                                      const std::vector<Gate>& gates,
                                      const GateOptions& options = {});

// The exit status the gate results mean: 2 when a gate checked nothing (not
// allowed) or matched no benchmark, else 1 when one failed, else 0.
int ExitCode(const std::vector<GateResult>& results);

// The short name of a status: passed, FAILED, ...
const char* StatusName(GateStatus status);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_GATES_H_
