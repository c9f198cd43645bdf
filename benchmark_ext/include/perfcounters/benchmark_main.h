// benchmark_main.h: deprecated name kept for existing code; include
// perfcounters/benchmark_ext_main.h instead (the same declarations).
#ifndef PERFCOUNTERS_BENCHMARK_MAIN_H_
#define PERFCOUNTERS_BENCHMARK_MAIN_H_

#include "perfcounters/benchmark_ext_main.h"  // IWYU pragma: export

#endif  // PERFCOUNTERS_BENCHMARK_MAIN_H_
