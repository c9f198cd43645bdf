// process_state.h: the process-wide state of benchmark_ext's runs, one
// struct per run that keeps some (gbench's extra run, the sampling run, the
// measured run's counting of that extra run, the simulator's sampling run),
// all owned by the one Registry (registry.h: Registry::Get().state()).
//
// No other mutable namespace-scope or function-static state lives in
// benchmark_ext/src (tests/benchmark_ext_state_owner_test checks), except
// these, which cannot move here:
//   - per-thread state, thread_local by nature (one per benchmark thread):
//     measure_loop.cc's t_active (the thread's running Measure loop),
//     thread_setup.cc's t_counters (the thread's groups), sampling_run.cc's
//     t_profiler and t_in_region (the thread's sampler), and
//     simulate_measure.cc's dumps (the thread's callgrind dump tag);
//   - state a signal handler reads, which must be a plain object the
//     handler reaches without a call that may lock or allocate:
//     out_file.cc's g_wake (the pipe a SIGINT/SIGTERM handler writes to)
//     and simulate_run.cc's g_child (the child a handler forwards to);
//   - extra_run_counting.cc's calibration_body, stored by the calibration
//     benchmark's body inside the bracket it calibrates: one store to a
//     fixed address, which a call to Registry::Get() would add to;
//   - registry.cc's pointer to the Registry itself;
//   - out_file.cc's kDevNull, constant text that is a char[] only because
//     gbench takes argv as char**.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_PROCESS_STATE_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_PROCESS_STATE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "absl/status/status.h"
#include "perfcounters/profile.h"
#include "simulate.h"

namespace perfcounters::benchmark_ext_internal {

class ExtraRunClient;
class ExtraRunCountingClient;
class ExtraRunFanOut;

// gbench's extra run (its ProfilerManager; extra_run.cc).
struct ExtraRunState {
  // True from the extra run's start to its stop.
  std::atomic<bool> in_run{false};
  // A Measure loop ran in the extra run and counted itself in its own run.
  std::atomic<bool> self_counted{false};
  // The one ProfilerManager registered with gbench, made on first use.
  std::once_flag fan_out_once;
  ExtraRunFanOut* fan_out = nullptr;
};

// The counting of plain loops in gbench's extra run (extra_run_counting.cc).
struct ExtraRunCountingState {
  // Set once, before the benchmarks run.
  ExtraRunCountingClient* counter = nullptr;
};

// The sampling run of --perf_profile (sampling_run.cc).
struct SamplingRunState {
  // The options every benchmark thread's Profiler opens with; set before
  // the sampling run, read by the hooks only while `profiling`.
  ProfileOptions options;
  std::atomic<bool> profiling{false};
  // The samples of the benchmark running now, merged over its threads.
  std::mutex mu;
  Profile profile;     // guarded by mu
  absl::Status error;  // guarded by mu
  // Whether `profile` holds samples of gbench's extra run (a plain loop,
  // sampled on one thread whatever its Threads(N)); guarded by mu.
  bool from_extra_run = false;
  // The sampler of plain loops in gbench's extra run, added to it once
  // (never destroyed: gbench keeps the pointer).
  std::once_flag extra_run_sampler_once;
  ExtraRunClient* extra_run_sampler = nullptr;
};

// (object, function context, address) -> the simulator's self costs.
using SimProfileKey = std::tuple<std::string, std::string, uint64_t>;
using SimProfileCosts = std::map<SimProfileKey, SimCosts>;

// The simulator's sampling run (simulate_profile.cc).
struct SimSamplingRunState {
  std::atomic<bool> profiling{false};
  std::mutex mu;
  SimProfileCosts costs;  // guarded by mu
  absl::Status error;     // guarded by mu
  bool added = false;     // guarded by mu
  // A dump came from gbench's extra run (one thread). Guarded by mu.
  bool from_extra_run = false;
};

struct ProcessState {
  ExtraRunState extra_run;
  ExtraRunCountingState extra_run_counting;
  SamplingRunState sampling;
  SimSamplingRunState sim_sampling;
};

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_PROCESS_STATE_H_
