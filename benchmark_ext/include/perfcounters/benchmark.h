// benchmark.h: deprecated name kept for existing code; include
// perfcounters/benchmark_ext.h instead (the same declarations).
#ifndef PERFCOUNTERS_BENCHMARK_H_
#define PERFCOUNTERS_BENCHMARK_H_

#include "perfcounters/benchmark_ext.h"  // IWYU pragma: export

#endif  // PERFCOUNTERS_BENCHMARK_H_
