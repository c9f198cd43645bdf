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

// Empty when `base` and `next` were counted by the same source; otherwise
// why they cannot be compared, naming both files and their sources.
std::string MixedSourcesError(const BenchmarkFile& base,
                              const BenchmarkFile& next);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COUNTING_SOURCE_H_
