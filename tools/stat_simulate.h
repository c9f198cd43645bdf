// stat_simulate.h: `perfcounters stat --source simulate`: the command and
// its children run under Valgrind's callgrind, which counts instructions,
// cache and branch events in user space exactly (the simulated source of
// docs/simulate.md), instead of perf_event counters.
#ifndef PERFCOUNTERS_TOOLS_STAT_SIMULATE_H_
#define PERFCOUNTERS_TOOLS_STAT_SIMULATE_H_

#include <csignal>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stat.h"

namespace perfcounters::tools {

// Prepares `result` (its series parsed user-space only) for the
// simulator: `source` says valgrind's version and the cache geometry;
// every event the simulator cannot count is not supported, with the
// reason; est_cycles and est_ipc, the cost model's estimates, are added
// when instructions or cycles were asked for. An error when valgrind
// cannot be run (naming the package).
absl::Status PrepareSimulatedStat(StatResult& result);

// How one run of the command ended (stat_command.cc's runs too).
struct StatRunOutcome {
  int exit_status = 0;
  int term_signal = 0;
  // Wall-clock and CPU time (children included, from wait4(2)); under
  // the simulator valgrind's, not the command's own.
  double seconds = 0;
  double user_seconds = 0;
  double sys_seconds = 0;
};

// Runs `command` once under callgrind (children traced) and appends the
// run's values to `result`'s series. `child` holds the running valgrind's
// pid while it runs (for stat's signal forwarding). An error when the
// command cannot be executed or callgrind wrote no costs.
absl::StatusOr<StatRunOutcome> RunSimulatedStat(
    const std::vector<std::string>& command, StatResult& result,
    volatile sig_atomic_t* child);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_STAT_SIMULATE_H_
