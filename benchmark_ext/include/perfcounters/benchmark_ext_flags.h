// benchmark_ext_flags.h: the command-line flags and environment variable of
// perfcounters' Google Benchmark main.
//
//   --perf_counters=LIST            events to count (our grammar: a comma
//                                   list, `{}` groups, derived metrics)
//   --benchmark_perf_counters=LIST  the same (gbench's own flag name)
//   --perf_counters_strict[=BOOL]   exit non-zero if any requested counter
//                                   was not counted
//   --perf_counters_read=auto|syscall|user
//                                   how snapshots are read (default auto)
//   --perf_counters_calibrate[=BOOL]
//                                   subtract the measurement's own counts
//                                   (default true)
//   --perf_counters_verbose[=BOOL]  the console shows every perfcounters
//                                   context line and not-counted column
//   PERFCOUNTERS_EVENTS=LIST        used when no flag gives a list
//
// `ExtractFlags()` removes these flags from argv so that
// benchmark::Initialize() never sees them.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_FLAGS_H_
#define PERFCOUNTERS_BENCHMARK_EXT_FLAGS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "perfcounters/counters.h"

namespace perfcounters::benchmark_ext {

// The environment variable read when no flag names events.
inline constexpr char kEventsEnvVar[] = "PERFCOUNTERS_EVENTS";

// What the flags asked for.
struct Flags {
  // The event list; empty optional when none was given anywhere.
  std::optional<std::string> events;
  // Where `events` came from: "--perf_counters", "--benchmark_perf_counters"
  // or "PERFCOUNTERS_EVENTS" (for messages).
  std::string events_source;
  // PERFCOUNTERS_EVENTS's value when a flag overrode it (the main prints a
  // note), else nullopt.
  std::optional<std::string> overridden_env_events;
  bool strict = false;
  // --perf_counters_read.
  ReadMode read_mode = ReadMode::kAuto;
  // --perf_counters_calibrate.
  bool calibrate = true;
  // --perf_counters_verbose: the console shows every detail (docs).
  bool verbose = false;
};

// Removes our flags from argv (compacting it and updating *argc, keeping
// argv[*argc] == nullptr) and returns them. `env_events` is the value of
// PERFCOUNTERS_EVENTS (nullptr when unset); a flag wins over it (and
// `overridden_env_events` says so). A flag given twice: the last one wins;
// --perf_counters and --benchmark_perf_counters together are an error.
// Errors name the flag and the accepted forms (a missing `=LIST`, a bad
// boolean).
absl::StatusOr<Flags> ExtractFlags(int* argc, char** argv,
                                   const char* env_events);

// Our section of --help.
std::string FlagsHelp();

}  // namespace perfcounters::benchmark_ext

#endif  // PERFCOUNTERS_BENCHMARK_EXT_FLAGS_H_
