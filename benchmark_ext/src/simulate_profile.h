// simulate_profile.h: the simulated profile (--perf_profile under
// --perf_counters_source=simulate, simulate_profile.cc): callgrind's costs
// of each benchmark's timed region, every instruction counted (no
// sampling), by instruction address and caller context, turned into the
// ProfileSummary the sampled profile makes (profile_format.h shows both).
//
// The child runs under callgrind with --separate-callers (each function's
// cost kept per chain of callers: the stacks) and --dump-instr (per
// address: the inlined frames, file and line, from our Symbolizer reading
// the module's debug info). The region dumps of the sampling run (Measure's
// batches, gbench's extra run) are added per benchmark; the bracket's own
// code and gbench's loop functions (the functions named in
// IsSimProfileBracket(), and everything they call) are left out and
// counted as `excluded`.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_PROFILE_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "perfcounters/simulated_events.h"
#include "perfcounters/symbols.h"

namespace perfcounters::benchmark_ext_internal {

// Callers kept per function (callgrind's --separate-callers): the depth of
// the simulated profile's stacks below the innermost function.
inline constexpr int kSimProfileCallers = 12;

// The options a profiling child gets besides the counting ones.
std::vector<std::string> SimProfileOptions();

// --perf_profile's event for the simulator ("auto": instructions): the
// callgrind events it sums. An event the simulator cannot count (or a
// sampling rate) is an error naming the events it can.
absl::StatusOr<std::vector<SimEvent>> SimProfileInputs(
    const std::string& event);

// Whether `function` (callgrind's name of an out-of-line function) is the
// bracket's or gbench's loop code: perfcounters' Measure and simulator
// brackets, the extra run's hooks, gbench's State methods and timers
// (functions the region calls; never one of the region's callers).
// A cost with such a function anywhere in its chain of callers is left
// out.
bool IsSimProfileBracket(absl::string_view function);

// The child's sampling run: dumps are kept between SimProfileStart() and
// SimProfileStop().
void SimProfileStart();
void SimProfileStop();
bool SimProfiling();

// Adds a region dump's costs to the running benchmark's (thread-safe);
// `from_extra_run`: the dump is of gbench's extra run (its one thread).
void SimProfileAdd(absl::string_view dump, bool from_extra_run);

// The running benchmark's profile on `inputs` (named `event`), and the
// kept costs cleared. `empty`: no dump was added (its loop did not run).
struct SimProfileResult {
  ProfileSummary summary;
  // The event's count in the bracket's and gbench's loop code, left out.
  uint64_t excluded = 0;
  bool empty = true;
  // Counted in gbench's extra run, which runs the loop on one thread.
  bool from_extra_run = false;
};
absl::StatusOr<SimProfileResult> TakeSimProfile(
    const std::string& event, const std::vector<SimEvent>& inputs);

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_PROFILE_H_
