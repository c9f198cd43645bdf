// simulate.h: the simulated counting source (--perf_counters_source=
// simulate|auto, PERFCOUNTERS_SOURCE): the flag, the events Valgrind's
// callgrind counts and their perf names, the parent that re-executes the
// benchmark under callgrind, and the child's brackets around each batch
// and pause (client requests instead of perf_event reads). See
// docs/simulate.md.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/plan.h"
#include "perfcounters/simulated_events.h"

namespace perfcounters::benchmark_ext_internal {

struct Config;

// Where the counts come from.
enum class Source { kPmu, kSimulate, kAuto };

// The environment variable read when no flag names the source.
inline constexpr char kSourceEnvVar[] = "PERFCOUNTERS_SOURCE";
// Set by the parent for the child it runs under callgrind: the private
// directory callgrind writes its dumps into.
inline constexpr char kChildEnvVar[] = "PERFCOUNTERS_SIMULATE_CHILD";
// Set by the parent for the child: what perfcounters.source says.
inline constexpr char kDescriptionEnvVar[] = "PERFCOUNTERS_SIMULATE_SOURCE";

struct SourceFlag {
  Source source = Source::kPmu;
  // "--perf_counters_source", "PERFCOUNTERS_SOURCE" or "" (the default).
  std::string origin;
};

// Removes --perf_counters_source=... from argv (as ExtractFlags does) and
// returns it, or PERFCOUNTERS_SOURCE's value (`env`, null when unset) when
// no flag gives one. A bad value is an error naming it and the valid ones.
absl::StatusOr<SourceFlag> ExtractSourceFlag(int* argc, char** argv,
                                             const char* env);

// Our section of --help.
std::string SourceFlagHelp();

// The callgrind events, their perf names, a dump's totals and the cost
// model (SimEvent, SimCosts, ParseCallgrindTotals, SimulatedInputs,
// EstimatedCycles) are the core library's, perfcounters/simulated_events.h,
// shared with `perfcounters stat --source simulate`.

// MakePlan()'s open test for the simulator: OK when it counts every event.
absl::Status SimulatedOpen(const std::vector<EventSpec>& events);

// Plans `list` for the simulator and makes it the configured events (as
// SetBenchmarkEvents() does for the PMU).
absl::StatusOr<Plan> SetSimulatedEvents(std::string_view list,
                                        const MeasureOptions& options);

// The keys of `list`'s events that the simulator counts (empty when the
// list does not parse).
std::vector<std::string> SimulatableKeys(std::string_view list);

// True in the child that the parent runs under callgrind.
bool IsSimulatorChild();

// The child's handshake with the parent: `stage` "started" when its main
// begins, "finished" when it ends normally (or printed --help). The parent
// refuses a run that exited 0 without both (a `valgrind` that ran nothing).
void MarkSimulatorChild(const char* stage);

// The child's check that it really runs under callgrind, and the JSON
// context (perfcounters.source). False after an error message.
bool DescribeSimulatorChild();

// The child's perfcounters.counting context (`pass`: unmodified benchmarks
// are counted in gbench's extra run).
void AddSimulatedCountingContext(bool pass);

// The main's choice for --perf_counters_source=simulate|auto outside the
// child: the exit status when it ran the simulator's child (or refused),
// nullopt when the PMU counts (auto, and the PMU counts every requested
// event the simulator would and samples the profile's event; or nothing
// to simulate). `profile_event`: --perf_profile's event ("" without it;
// with auto the simulator then takes the profile too where the PMU cannot
// count), `profile_rate`: a sampling period or frequency was given
// (refused: the simulated profile counts every event).
std::optional<int> MaybeSimulate(const SourceFlag& source,
                                 std::string_view list,
                                 const std::string& profile_event,
                                 bool profile_rate,
                                 const std::vector<std::string>& args);

// On the PMU: a note naming the events the PMU cannot count here that
// --perf_counters_source=simulate would.
void NoteSimulatable(std::string_view list, const Plan& plan);

// The parent: runs this program (`args`: the original argv) under
// callgrind, the child counting, and returns the exit status for main.
// `user_min_time`: the user gave --benchmark_min_time (flag or
// environment), which is then left as it is.
// `profiling`: the child also profiles (simulate_profile.h's options).
int RunUnderSimulator(const std::vector<std::string>& args, bool profiling);

// The child's per-thread simulator state (a Measure's brackets).
struct SimThread {
  // The bracket's own costs per batch and per pause (calibration), the
  // warm value of three runs; zero when calibration is off.
  SimCosts batch_cost{};
  SimCosts pause_cost{};
  // Pauses in the running batch.
  uint64_t pauses = 0;
  bool collecting = false;
};

// The brackets: a batch's start (the calling thread's costs zeroed, its
// collection on: callgrind runs with --separate-threads=yes, so each
// thread of a Threads(N) benchmark counts its own work, as on the PMU) and
// stop (collection off); a pause and a resume inside a batch.
void SimStart(SimThread* t);
void SimStop(SimThread* t);
void SimPause(SimThread* t);
void SimResume(SimThread* t);

// The calling thread's costs zeroed and its collection on (what SimStart()
// does); its collection off.
void SimCollectOn();
void SimCollectOff();

// a - times x b for the events that calibration subtracts (the counts: Ir,
// Dr, Dw, Bc, Bi; never below 0, the names of those that would be go into
// `below` when not null); the misses of `a` unchanged.
SimCosts SubtractCalibrated(const SimCosts& a, const SimCosts& b,
                            uint64_t times, std::vector<std::string>* below);

// `c`'s events that calibration subtracts, the others 0.
SimCosts CalibratedPart(const SimCosts& c);

// The estimates (est_cycles, est_ipc) are added when instructions or
// cycles are requested.
bool WantsSimulatedEstimates(const Config& config);

// Dumps the calling thread's costs collected since SimStart() and reads
// them back: their totals, or the dump's whole text.
absl::StatusOr<SimCosts> SimDump();
absl::StatusOr<std::string> SimDumpText();

// The benchmark's own costs in a dump of gbench's extra run
// (simulate_calls.cc): the inclusive cost of gbench's call of the
// benchmark less that of gbench's loop functions the benchmark calls
// (State::StartKeepRunning, FinishKeepRunning, PauseTiming,
// ResumeTiming). An error when the dump has no such call.
absl::StatusOr<SimCosts> BenchmarkCallCosts(absl::string_view dump);

// Reading callgrind's dumps (simulate_calls.cc): the value of a name line
// (`fn=`, `cfn=`, `ob=`, ...) with callgrind's name compression ("(12)
// name" defines id 12 in `ids`, one map per kind of name; "(12)" refers to
// it), and the SimEvent of each column of an `events:` line's value (-1
// for an event that is not one of ours).
absl::StatusOr<std::string> CallgrindName(
    absl::string_view value, absl::flat_hash_map<int64_t, std::string>& ids);
std::vector<int> CallgrindEventColumns(absl::string_view events);

// Measures the brackets (`batch`: an empty Measure loop; `pause`: a
// ResumeTiming()/PauseTiming() pair) and keeps them in `t`.
void SimCalibrate(SimThread* t, const std::function<void()>& batch,
                  const std::function<void()>& pause);

// Publishes the calling thread's simulated batch of `iterations` (the
// dump's costs less the calibration) into the run record.
void PublishSimulated(SimThread* t, const Config& config,
                      benchmark::IterationCount iterations);

// Thread 0, after Report(): the estimates (est_cycles, est_ipc) of the run.
void ReportSimulatedEstimates(const Config& config, benchmark::State& state);

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_SIMULATE_H_
