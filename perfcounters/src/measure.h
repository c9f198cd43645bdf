// measure.h (internal): the CountCall(f) sequence shared by Event and Group.
#ifndef PERFCOUNTERS_SRC_MEASURE_H_
#define PERFCOUNTERS_SRC_MEASURE_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::internal {

// Resets `self`, reads it, enables it, runs f, disables it and reads it
// again. Values restart at 0 on reset but the times do not, so the result's
// enabled/running are those of this interval only (after - before), and
// scaling uses this run's schedule. `Reading` is Count or GroupReading.
template <typename Self, typename Reading>
absl::StatusOr<Reading> MeasureInterval(const Self& self,
                                        absl::StatusOr<Reading> (Self::*read)()
                                            const,
                                        const std::function<void()>& f) {
  RETURN_IF_ERROR(self.Reset());
  ASSIGN_OR_RETURN(Reading before, (self.*read)());
  RETURN_IF_ERROR(self.Enable());
  f();
  RETURN_IF_ERROR(self.Disable());
  ASSIGN_OR_RETURN(Reading after, (self.*read)());
  after.enabled -= before.enabled;
  after.running -= before.running;
  return after;
}

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_MEASURE_H_
