// deprecated_headers.cc: the Google Benchmark integration's deprecated
// header names (kept for existing code) still compile and declare its API.
// tests/consumer/run links this with bench.cc through the deprecated target
// and pkg-config names (perfcounters::benchmark_main,
// perfcounters_benchmark_main), which must still give the program its main().
#include <type_traits>

#include "perfcounters/benchmark.h"
#include "perfcounters/benchmark_flags.h"
#include "perfcounters/benchmark_main.h"

static_assert(std::is_class_v<perfcounters::Measure>);  // benchmark.h
static_assert(std::is_function_v<decltype(perfcounters::BenchmarkMain)>);
static_assert(std::is_class_v<perfcounters::benchmark_ext::Flags>);
// benchmark_flags.h keeps the flags' earlier namespace name.
static_assert(std::is_function_v<decltype(perfcounters::bench::ExtractFlags)>);
