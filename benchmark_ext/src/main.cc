// main.cc: perfcounters::BenchmarkMain, gbench's main with perf counters.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/benchmark_flags.h"
#include "perfcounters/benchmark_main.h"
#include "perfcounters/benchmark_plan.h"

namespace perfcounters {
namespace {

void PrintHelp() {
  std::fputs(bench::FlagsHelp().c_str(), stdout);
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
  benchmark::Initialize(&argc, argv, &PrintHelp);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  const std::string list = flags->events.value_or("");
  absl::StatusOr<bench::Plan> plan = SetBenchmarkEvents(list);
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
      benchmark::AddCustomContext(
          "perfcounters.unavailable",
          absl::StrJoin(plan->unavailable, "; ",
                        [](std::string* out, const bench::Unavailable& u) {
                          absl::StrAppend(out, u.key, ": ", u.reason);
                        }));
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
  benchmark::RunSpecifiedBenchmarks();
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
