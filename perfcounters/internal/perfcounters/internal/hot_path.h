// hot_path.h (internal): how the library's measurement hot path was
// compiled, for the tests that hold it to its instruction budgets.
#ifndef PERFCOUNTERS_INTERNAL_HOT_PATH_H_
#define PERFCOUNTERS_INTERNAL_HOT_PATH_H_

#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters::internal {

// Whether the snapshot code behind Counters::Start/Stop (counter_set.cc,
// user_read.cc) was compiled with optimization: in optimized builds, and
// with the CMake option PERFCOUNTERS_OPTIMIZE_HOT_PATH (on by default) in
// Debug builds too. Unoptimized (-O0), a user-space Start+Stop costs about
// 4x the instructions (calibration still subtracts them).
bool HotPathOptimized();

}  // namespace perfcounters::internal
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_HOT_PATH_H_
