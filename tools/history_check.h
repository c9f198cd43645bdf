// history_check.h: `history check`: a new run against the history of each
// of its benchmarks' metrics (same machine; the branch's runs since the
// series' last change point or fingerprint change, at most `window`), evaluated
// with compare's gates (ParseGate / EvaluateGates on a Comparison whose base
// side is the history). The significance test: Student's t prediction test of
// the new run's value against the history's mean and spread (see
// docs/history.md).
#ifndef PERFCOUNTERS_TOOLS_HISTORY_CHECK_H_
#define PERFCOUNTERS_TOOLS_HISTORY_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "history.h"
#include "history_changes.h"
#include "history_fingerprints.h"

namespace perfcounters::tools {

struct CheckOptions {
  std::string machine;
  // Empty: runs of every branch.
  std::string branch;
  size_t window = 30;
  // How many of the latest runs are searched for the last change point.
  size_t lookback = 200;
  ChangePointOptions change_points;
  // The metrics whose history is read (those of the gates): the others
  // are compared with no history. Empty: every metric.
  std::vector<std::string> metrics;
  // The runs' fingerprints (nullptr: none read): the level starts no
  // earlier than the last change of a field that can move the metric.
  const RunFingerprints* fingerprints = nullptr;
};

// MetricNames() of the comparison CompareWithHistory() makes of `run`
// (what its gates may name), without reading the history.
std::vector<std::string> CheckMetricNames(const BenchmarkFile& run);

// The comparison of `run` (base: the history; next: the run). A run that
// is already in the store is left out of its own history.
absl::StatusOr<Comparison> CompareWithHistory(HistoryStore& store,
                                              const BenchmarkFile& run,
                                              const std::string& digest,
                                              const CheckOptions& options);

// Empty when the history has runs of `options.machine` (on
// `options.branch`); else a note naming the machines it has runs of,
// nearest names first, and --machine.
absl::StatusOr<std::string> MachineHint(HistoryStore& store,
                                        const CheckOptions& options);

// p of the prediction test: how likely a run drawn from the history (its
// mean and sample standard deviation, n values) is at least as far from
// the mean as `value` (Student's t, n - 1 degrees of freedom).
double PredictionP(absl::Span<const double> history, double value);

// Renders a check: the gates and, per checked benchmark and metric of the
// gates, the history's median (runs), the new value, the change and p.
std::string RenderCheck(const Comparison& comparison,
                        const std::vector<GateResult>& gates, Format format,
                        const CheckOptions& options);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_CHECK_H_
