// measure_internal.h: what the main (main.cc) needs from measure.cc beyond
// the public API: the warnings about batches too small for the
// measurement's own noise, printed by the main's reporter with the name of
// the benchmark they belong to.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_

#include <string>
#include <vector>

namespace perfcounters::bench_internal {

// The warnings of the last batch of the last run reported, each
// "<key> counted ...", and forgets them. (A program with its own main does
// not print them: only perfcounters' main knows the benchmark names.)
std::vector<std::string> TakeNoiseWarnings();

}  // namespace perfcounters::bench_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_MEASURE_INTERNAL_H_
