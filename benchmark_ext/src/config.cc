// config.cc: the configured events — SetBenchmarkEvents(), or
// PERFCOUNTERS_EVENTS read at the first Measure — published in the
// registry for every benchmark thread.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "measure_internal.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/group.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/plan.h"
#include "registry.h"
#include "simulate.h"

namespace perfcounters {
namespace benchmark_ext_internal {
namespace {

std::shared_ptr<const Config> MakeConfig(Plan plan,
                                         const MeasureOptions& options,
                                         bool simulated) {
  auto config = std::make_shared<Config>();
  config->plan = std::move(plan);
  config->options = options;
  config->simulated = simulated;
  for (const PlannedGroup& g : config->plan.groups) {
    config->first_event.push_back(config->keys.size());
    for (const PlannedEvent& e : g.events) {
      config->keys.push_back(e.key);
    }
  }
  return config;
}

// A program with its own main() reads only PERFCOUNTERS_EVENTS: a source
// asked for (PERFCOUNTERS_SOURCE, or --perf_counters_source in its
// arguments) other than the PMU is not honoured there; one line says so
// and what to do, rather than counting on the PMU without a word.
void WarnSourceIgnoredByOwnMain() {
  std::string asked;
  if (const char* env = std::getenv(kSourceEnvVar);
      env != nullptr && *env != '\0' && std::string_view(env) != "pmu") {
    asked = absl::StrCat(kSourceEnvVar, "=", env);
  }
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) {
    absl::string_view a = arg;
    if (!absl::ConsumePrefix(&a, "--")) absl::ConsumePrefix(&a, "-");
    if (absl::ConsumePrefix(&a, "perf_counters_source=") && a != "pmu") {
      asked = arg;  // the flag wins over the environment, as in our main
    }
  }
  if (asked.empty()) return;
  std::fprintf(stderr,
               "perfcounters: warning: %s is ignored: this program has its "
               "own main(), which counts on the PMU; only perfcounters' main "
               "re-runs the benchmarks under the simulator (link "
               "perfcounters::benchmark_ext_main or use "
               "PERFCOUNTERS_BENCHMARK_MAIN(); docs/simulate.md)\n",
               asked.c_str());
}

}  // namespace

// Once per process, even when the threads of a benchmark get here
// together: they must share one configuration.
absl::StatusOr<std::shared_ptr<const Config>> CurrentConfig() {
  Registry& registry = Registry::Get();
  std::call_once(registry.env_once, [&registry] {
    if (registry.configured()) return;
    WarnSourceIgnoredByOwnMain();
    const char* env = std::getenv("PERFCOUNTERS_EVENTS");
    absl::StatusOr<Plan> plan = SetBenchmarkEvents(env == nullptr ? "" : env);
    if (!plan.ok()) {
      registry.SetEnvError(absl::Status(
          plan.status().code(), absl::StrCat("PERFCOUNTERS_EVENTS=", env, ": ",
                                             plan.status().message())));
      registry.SetConfig(nullptr);
      return;
    }
    const std::string warnings = DescribeUnavailable(*plan);
    if (!warnings.empty()) std::fputs(warnings.c_str(), stderr);
  });
  std::shared_ptr<const Config> config = registry.config();
  if (config == nullptr && !registry.env_error().ok()) {
    return registry.env_error();
  }
  return config;
}

Plan CurrentBenchmarkPlan() {
  std::shared_ptr<const Config> config = Registry::Get().config();
  return config == nullptr ? Plan() : config->plan;
}

bool AnyCounterNotCounted() { return Registry::Get().any_not_counted(); }

absl::StatusOr<Plan> ConfigureEvents(std::string_view list,
                                     const MeasureOptions& options,
                                     const TryOpenFn& try_open,
                                     bool simulated) {
  ParseOptions parse_options;
  parse_options.default_user_only = true;
  ASSIGN_OR_RETURN(Request request, ParseRequest(list, parse_options));
  Plan plan = MakePlan(request, try_open);
  Registry& registry = Registry::Get();
  if (!plan.unavailable.empty()) registry.MarkNotCounted();
  registry.SetConfig(plan.requested_keys.empty()
                         ? nullptr
                         : MakeConfig(plan, options, simulated));
  return plan;
}

}  // namespace benchmark_ext_internal

absl::StatusOr<Plan> SetBenchmarkEvents(std::string_view list,
                                        const MeasureOptions& options) {
  return benchmark_ext_internal::ConfigureEvents(list, options, OpenAndVerify,
                                                 /*simulated=*/false);
}

}  // namespace perfcounters
