// metrics.h: the one table of derived metrics — ratios of two counted
// events such as ipc = instructions / cycles — and how a metric is found
// among counted events.
//
// Every user of derived metrics (Counters and the layers above it) reads
// this table; docs/counters.md lists it. A metric is computed from the
// *sums* of its inputs over what was measured (a ratio of sums, never a
// mean of per-interval ratios).
//
// Modifiers: a metric's inputs match with the same modifiers. Given the
// counted labels `instructions:u` and `cycles:u` the table's `ipc` is
// reported as `ipc:u`; `instructions` and `cycles:u` make no ipc. A metric
// asked for by name with modifiers (`ipc:u`) brings in its inputs with
// those modifiers.
//
// Metric groups: the metrics of a group are asked for together by the
// group's name. `topdown` is the level-1 top-down breakdown (retiring,
// bad-speculation, frontend-bound, backend-bound, each a fraction of the
// pipeline's issue slots), from the `topdown-*` events that Intel core PMUs
// since Ice Lake publish in sysfs (cpu/events/topdown-retiring, ...); it is
// offered only where sysfs has them.
#ifndef PERFCOUNTERS_METRICS_H_
#define PERFCOUNTERS_METRICS_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// One derived metric: numerator / denominator.
struct Metric {
  // The reported name, e.g. "ipc".
  std::string_view name;
  // The inputs, as event names in our grammar. For the topdown group they
  // are sysfs alias names written without their PMU (`topdown-retiring`):
  // the PMU is the one whose sysfs has them (cpu, or cpu_core on a hybrid).
  std::string_view numerator;
  std::string_view denominator;
  // What the value is, e.g. "instructions per cycle".
  std::string_view unit;
  // Empty, or the metric group it belongs to ("topdown").
  std::string_view group;
  // True when the inputs are sysfs aliases of a core PMU (see numerator).
  bool sysfs_inputs = false;
  // How `perf stat` comments the numerator's line ("insn per cycle", "of
  // all branches"), empty when it shows none; the `perfcounters stat`
  // command prints the same. With `percent` the value is shown x 100 as
  // "12.34% of all branches".
  std::string_view perf_stat = {};
  bool percent = false;
  // True when a larger value is better (ipc, retiring); for the others a
  // larger value is worse. `perfcounters compare` colours changes by it.
  bool higher_is_better = false;
};

// The table, in the order docs/counters.md lists it.
std::span<const Metric> Metrics();

// The metric called `name` (case-insensitive), or null.
const Metric* FindMetric(std::string_view name);

// "numerator / denominator", e.g. "instructions / cycles".
std::string MetricFormula(const Metric& metric);

// True when `name` (case-insensitive) is a metric group's name.
bool IsMetricGroup(std::string_view name);

// A counted event's label split into its event and its modifiers:
// "instructions:u" -> {"instructions", "u"}; "cpu/slots/:u" ->
// {"cpu/slots/", "u"}; "sched:sched_switch" -> {"sched:sched_switch", ""}.
struct LabelParts {
  std::string event;
  std::string modifiers;
};
LabelParts SplitLabel(std::string_view label);

// The label an input of `metric` has with `modifiers`, on `pmu` for sysfs
// inputs: ("cycles", "u") -> "cycles:u"; ("topdown-retiring", "", "cpu")
// -> "cpu/topdown-retiring/".
std::string InputLabel(std::string_view input, std::string_view modifiers,
                       std::string_view pmu);

// The name a metric is reported under for inputs with `modifiers`:
// "ipc" or "ipc:u".
std::string MetricLabel(const Metric& metric, std::string_view modifiers);

// The core PMU whose sysfs events include the topdown-* aliases
// ("cpu", or "cpu_core" on a hybrid Intel CPU). NotFound, saying what was
// looked for, where there is none (AMD, arm64, older Intel, a VM).
absl::StatusOr<std::string> TopdownPmu(const SystemPaths& paths = {});

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_METRICS_H_
