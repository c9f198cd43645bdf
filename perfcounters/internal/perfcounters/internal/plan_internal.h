// plan_internal.h (internal): the pieces of the planner (plan.cc) that
// its tests drive on their own.
#ifndef PERFCOUNTERS_INTERNAL_PLAN_INTERNAL_H_
#define PERFCOUNTERS_INTERNAL_PLAN_INTERNAL_H_

#include <string>
#include <string_view>
#include <vector>

#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Splits a list at its top-level commas (not inside `{}` or a `pmu/.../`
// term list).
std::vector<std::string> SplitTopLevel(std::string_view list);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_PLAN_INTERNAL_H_
