// main.cc: perfcounters::BenchmarkMain, gbench's main with perf counters.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/benchmark_flags.h"
#include "perfcounters/benchmark_main.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/counters.h"
#include "perfcounters/plan.h"
#include "profile_pass.h"

namespace perfcounters {
namespace {

// Prints the read path and records it and the calibration in the JSON
// context. False (after an error message) when --perf_counters_read=user
// cannot be honoured.
bool DescribeSetup(const bench::Flags& flags) {
  const MeasurementSetup setup = PrepareCallingThread();
  if (flags.strict && !setup.not_open.empty()) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_strict: requested "
                 "counters cannot be counted on the benchmark's main "
                 "thread: %s; no benchmark was run\n",
                 absl::StrJoin(setup.not_open, "; ").c_str());
    return false;
  }
  if (setup.read_path.empty()) return true;
  if (flags.read_mode == ReadMode::kUser && !setup.syscall_reasons.empty()) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_read=user: these "
                 "groups cannot be read from user space: %s; use "
                 "--perf_counters_read=auto (read(2) for them)\n",
                 absl::StrJoin(setup.syscall_reasons, "; ").c_str());
    return false;
  }
  benchmark::AddCustomContext("perfcounters.read_path", setup.read_path);
  benchmark::AddCustomContext("perfcounters.read_path.groups",
                              absl::StrJoin(setup.group_paths, "; "));
  std::string note =
      absl::StrCat("perfcounters: read path: ", setup.read_path, " (",
                   absl::StrJoin(setup.group_paths, "; "), ")");
  if (!setup.syscall_reasons.empty() && flags.read_mode != ReadMode::kSyscall) {
    absl::StrAppend(&note, "; read(2) because ",
                    absl::StrJoin(setup.syscall_reasons, "; "));
  }
  absl::StrAppend(&note, flags.calibrate
                             ? "; calibrated (the measurement's own counts "
                               "are subtracted)"
                             : "; not calibrated");
  // On the console only when asked: the JSON/CSV context has it all.
  if (flags.verbose) std::fprintf(stderr, "%s\n", note.c_str());
  benchmark::AddCustomContext("perfcounters.calibrate",
                              flags.calibrate ? "true" : "false");
  for (const auto& [key, cost] : setup.calibration) {
    // Counts per batch (and below, per pause).
    benchmark::AddCustomContext(absl::StrCat("perfcounters.calibration.", key),
                                absl::StrCat(cost.floor));
    benchmark::AddCustomContext(
        absl::StrCat("perfcounters.calibration.", key, ".spread"),
        absl::StrCat(cost.spread));
  }
  for (const auto& [key, cost] : setup.pause_calibration) {
    benchmark::AddCustomContext(
        absl::StrCat("perfcounters.calibration.", key, ".pause"),
        absl::StrCat(cost.floor));
  }
  if (!setup.uncalibrated.empty()) {
    benchmark::AddCustomContext("perfcounters.uncalibrated",
                                absl::StrJoin(setup.uncalibrated, ","));
  }
  // A multiplexed counter's batch should span this many rotations; fewer
  // are warned about per benchmark (see docs/benchmark_ext.md).
  benchmark::AddCustomContext(
      "perfcounters.multiplexing.min_intervals",
      absl::StrCat(kFewMuxIntervals, " intervals of ",
                   ProbeCapabilities().mux_interval_ms.value_or(4), " ms"));
  return true;
}

void PrintHelp() {
  std::fputs(bench::FlagsHelp().c_str(), stdout);
  std::fputs(bench_internal::ProfileFlagsHelp().c_str(), stdout);
  benchmark::PrintDefaultHelp();
}

}  // namespace

int BenchmarkMain(int argc, char** argv) {
  absl::StatusOr<bench::Flags> flags =
      bench::ExtractFlags(&argc, argv, std::getenv(bench::kEventsEnvVar));
  if (!flags.ok()) {
    std::fprintf(stderr, "perfcounters: error: %s\n",
                 std::string(flags.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<bench_internal::ProfileFlags> profile_flags =
      bench_internal::ExtractProfileFlags(&argc, argv);
  if (!profile_flags.ok()) {
    std::fprintf(stderr, "perfcounters: error: %s\n",
                 std::string(profile_flags.status().message()).c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv, &PrintHelp);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (flags->overridden_env_events.has_value()) {
    std::fprintf(stderr, "perfcounters: note: %s=%s overrides %s=%s\n",
                 flags->events_source.c_str(), flags->events->c_str(),
                 bench::kEventsEnvVar, flags->overridden_env_events->c_str());
  }

  const std::string list = flags->events.value_or("");
  MeasureOptions options;
  options.read_mode = flags->read_mode;
  options.calibrate = flags->calibrate;
  absl::StatusOr<Plan> plan = SetBenchmarkEvents(list, options);
  if (!plan.ok()) {
    std::fprintf(stderr, "perfcounters: error: %s=%s: %s\n",
                 flags->events_source.c_str(), list.c_str(),
                 std::string(plan.status().message()).c_str());
    return 1;
  }
  const std::string warnings = DescribeUnavailable(*plan);
  std::fputs(warnings.c_str(), stderr);
  if (!list.empty()) {
    benchmark::AddCustomContext("perfcounters.events", list);
    if (!plan->unavailable.empty()) {
      benchmark::AddCustomContext("perfcounters.unavailable",
                                  bench_internal::UnavailableContext(*plan));
    }
  }
  if (flags->strict && !plan->unavailable.empty()) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_strict: %zu requested "
                 "counter(s) cannot be counted on this machine (see the "
                 "warnings above); no benchmark was run\n",
                 plan->unavailable.size());
    return 1;
  }
  if (!DescribeSetup(*flags)) return 1;
  std::unique_ptr<benchmark::BenchmarkReporter> display(
      benchmark::CreateDefaultDisplayReporter());
  const bool console =
      dynamic_cast<benchmark::ConsoleReporter*>(display.get()) != nullptr;
  bench_internal::DisplayReporter reporter(std::move(display), flags->verbose);
  // With --perf_profile, a profile pass first (profile_pass.h).
  bench_internal::RunWithProfiles(*profile_flags, &reporter, console);
  benchmark::Shutdown();
  if (flags->strict && AnyCounterNotCounted()) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_strict: some requested "
                 "counters were not counted in some runs (see the warnings "
                 "above)\n");
    return 1;
  }
  return 0;
}

}  // namespace perfcounters
