// drift.h: common-mode drift — most benchmarks' times moving the same way
// at once while their instruction counts did not, which says the machine
// (clock, load, thermal state), not the code, changed between two runs.
// `compare` and `report` name it above the verdict, do not count those
// changes as improvements or regressions (MetricComparison::common_mode),
// and call a gate on a time metric unreliable. The rule is in
// docs/environment.md ("Common-mode drift").
#ifndef PERFCOUNTERS_TOOLS_DRIFT_H_
#define PERFCOUNTERS_TOOLS_DRIFT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "compare.h"
#include "compare_gates.h"
#include "env_diff.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {

// A benchmark whose time moved with the others but whose instruction count
// changed too: its change is (also) the code's.
struct DriftException {
  std::string benchmark;
  std::string instructions_metric;
  double instructions_change_pct = 0;
  double time_change_pct = 0;
  // Its time change against the drift's median change, in %:
  // (1 + time) / (1 + median) - 1.
  double against_drift_pct = 0;
};

// Drift of one time metric (real_time, cpu_time, task-clock, ...).
struct DriftMetric {
  std::string metric;
  // Benchmarks with a change of this metric.
  size_t compared = 0;
  // Those whose change is common mode (in `members`, file order).
  std::vector<std::string> members;
  // -1: all faster; +1: all slower.
  int direction = 0;
  // The members' changes in %: smallest, largest, median.
  double low_pct = 0, high_pct = 0, median_pct = 0;
  // Members without instruction counts to check (no PMU: all of them).
  size_t unchecked = 0;
  // Whether the same binary ran both times (the fingerprints'
  // binary.build_id): what tells the machine from the code where no
  // instruction counts do.
  SameBinary binary = SameBinary::kUnknown;
  std::vector<DriftException> exceptions;
};

// Smallest number of benchmarks a drift needs, and the share of the
// compared benchmarks (more than half).
inline constexpr size_t kMinDriftBenchmarks = 3;

// The drifts of `comparison`'s time metrics at significance level `alpha`
// (changes as Changed() sees them): a time metric drifts when more than
// half of the benchmarks with a change of it, and at least
// kMinDriftBenchmarks, changed significantly in one direction while their
// instruction counts (every instructions metric the benchmark has) did not.
// `binary` (SameBinaryOf the two files) is what the statement says of the
// members without instruction counts: the same binary (the machine
// changed), another one (whether the code changed cannot be told), unknown.
std::vector<DriftMetric> DetectDrift(const Comparison& comparison, double alpha,
                                     SameBinary binary = SameBinary::kUnknown);

// Sets MetricComparison::common_mode on the drifts' members' and
// exceptions' metrics: neither is headlined by its raw change (an
// exception's instruction change is, and DriftText gives its time change
// against the drift).
void MarkCommonMode(const std::vector<DriftMetric>& drifts,
                    Comparison* comparison);

// The statement above the verdict ("" without drift): per metric, how many
// benchmarks moved how far together and what that says, the exceptions.
std::string DriftText(const std::vector<DriftMetric>& drifts, bool markdown);

// The drifts as JSON (an array).
nlohmann::ordered_json DriftJson(const std::vector<DriftMetric>& drifts);

// Adds to each gate on a drifting time metric that its verdict is
// unreliable (its message); returns those gates' notes for stderr.
std::vector<std::string> NoteDriftOnGates(
    const std::vector<DriftMetric>& drifts, std::vector<GateResult>* results);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_DRIFT_H_
