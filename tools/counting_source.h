// counting_source.h: which source counted a Google Benchmark JSON file —
// the hardware PMU or benchmark_ext's simulator (its context's
// perfcounters.source, docs/simulate.md) — so that the tools never compare
// a simulated value with a measured one.
#ifndef PERFCOUNTERS_TOOLS_COUNTING_SOURCE_H_
#define PERFCOUNTERS_TOOLS_COUNTING_SOURCE_H_

#include <string>

#include "gbench_json.h"

namespace perfcounters::tools {

// "simulate" when the file's context says the simulator counted
// (perfcounters.source begins with "simulate"), else "pmu" (the context
// says pmu, or the file predates the simulator or has no counters: native
// runs, whose times are not valgrind's either).
std::string CountingSource(const BenchmarkFile& file);

// What the file's context says counted it: perfcounters.source's value
// ("simulate: valgrind-3.19.0 callgrind, ..."), or "pmu (no
// perfcounters.source)".
std::string SourceDescription(const BenchmarkFile& file);

// True for the simulated source's cost-model estimates (est_cycles,
// est_ipc: docs/simulate.md), which are never measured values.
bool IsEstimateMetric(const std::string& metric);

// The simulated source's exact counts (instructions, L1-dcache-loads,
// L1-dcache-stores, branches: callgrind's Ir, Dr, Dw, Bc + Bi): the same
// in every run of one binary with the same arguments, so one sample a side
// decides a change (compare's Evidence::kExact). Misses (the models' state
// moves between repetitions), estimates and valgrind's times are not.
bool ExactSimulatedCount(const std::string& metric);

// The suffix `history add` gives the machine of a simulated run's series
// (" [simulate]"): simulated values are a series of their own.
inline constexpr char kSimulatedMachineSuffix[] = " [simulate]";

// Whether `machine` names a series of simulated values.
bool SimulatedMachine(const std::string& machine);

// What kind of value `metric` is, for labelling it wherever it is shown
// (report, compare, history): kEstimate for est_* (a cost model, never
// measured, whatever the source); for a simulated source kValgrindTime
// (real_time, cpu_time, *_per_second: valgrind's, not the benchmark's) or
// kSimulated (every other value); for the PMU kMeasured.
enum class ValueKind { kMeasured, kSimulated, kEstimate, kValgrindTime };
ValueKind KindOfValue(const std::string& metric, bool simulated);

// The kind as JSON writes it: "measured", "simulated", "estimate",
// "valgrind_time".
const char* ValueKindName(ValueKind kind);

// The label tables put after the metric's name: "" (measured),
// "[simulated]", "[estimate]", "[valgrind's time]".
std::string ValueKindTag(ValueKind kind);

// `metric` followed by its tag when it has one ("est_cycles [estimate]",
// "instructions [simulated]"); `metric` itself when measured.
std::string TaggedMetric(const std::string& metric, bool simulated);

// The longer label of a heading (report): "simulated", "estimate: a cost
// model, not measured", "valgrind's time, not the benchmark's"; "" for
// kMeasured.
std::string ValueKindText(ValueKind kind);

// Empty when `base` and `next` were counted by the same source; otherwise
// why they cannot be compared, naming both files and their sources.
std::string MixedSourcesError(const BenchmarkFile& base,
                              const BenchmarkFile& next);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COUNTING_SOURCE_H_
