// benchmark_flags.h: deprecated name kept for existing code; include
// perfcounters/benchmark_ext_flags.h instead. The flags' namespace,
// perfcounters::benchmark_ext, was perfcounters::bench: an alias here keeps
// that name working too.
#ifndef PERFCOUNTERS_BENCHMARK_FLAGS_H_
#define PERFCOUNTERS_BENCHMARK_FLAGS_H_

#include "perfcounters/benchmark_ext_flags.h"  // IWYU pragma: export

namespace perfcounters {
namespace bench = benchmark_ext;  // deprecated: the earlier name
}  // namespace perfcounters

#endif  // PERFCOUNTERS_BENCHMARK_FLAGS_H_
