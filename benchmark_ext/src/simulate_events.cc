// simulate_events.cc: --perf_counters_source, the perf names of callgrind's
// events, the callgrind dump's totals, and the simulator's plan.
#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "measure_internal.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/grammar.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/plan.h"
#include "registry.h"
#include "simulate.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

absl::StatusOr<Source> ParseSource(absl::string_view origin,
                                   absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "pmu") return Source::kPmu;
  if (lower == "simulate") return Source::kSimulate;
  if (lower == "auto") return Source::kAuto;
  return absl::InvalidArgumentError(absl::StrCat(
      origin, "=", text,
      ": unknown counting source; write pmu (the hardware PMU through "
      "perf_event_open, the default), simulate (Valgrind's callgrind: exact "
      "simulated counts) or auto (the PMU where it counts the requested "
      "events, else simulate)"));
}

}  // namespace

absl::StatusOr<SourceFlag> ExtractSourceFlag(int* argc, char** argv,
                                             const char* env) {
  SourceFlag flag;
  if (env != nullptr) {
    ASSIGN_OR_RETURN(flag.source, ParseSource(kSourceEnvVar, env));
    flag.origin = kSourceEnvVar;
  }
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    absl::string_view arg = argv[i];
    absl::string_view rest = arg;
    if (!absl::ConsumePrefix(&rest, "--")) absl::ConsumePrefix(&rest, "-");
    if (rest.size() < arg.size() &&
        absl::ConsumePrefix(&rest, "perf_counters_source") &&
        (rest.empty() || rest.front() == '=')) {
      if (rest.size() <= 1) {
        return absl::InvalidArgumentError(
            "--perf_counters_source needs a value: write "
            "--perf_counters_source=pmu, simulate or auto");
      }
      ASSIGN_OR_RETURN(flag.source,
                       ParseSource("--perf_counters_source", rest.substr(1)));
      flag.origin = "--perf_counters_source";
      continue;
    }
    argv[out++] = argv[i];
  }
  if (*argc > 0) {
    argv[out] = nullptr;
    *argc = out;
  }
  return flag;
}

std::string SourceFlagHelp() {
  return R"(  --perf_counters_source=pmu|simulate|auto
        Where the counts come from. pmu (default): the hardware PMU
        (perf_event_open). simulate: the benchmark runs again under
        Valgrind's callgrind (package valgrind), which counts instructions,
        simulated cache accesses and misses (fixed geometry) and branches
        exactly, the same every run; est_cycles and est_ipc are a cost
        model's estimates (docs/simulate.md). auto: the PMU where it counts
        the requested events, else simulate.
  PERFCOUNTERS_SOURCE=pmu|simulate|auto (environment)
        Used when the flag is not given.

)";
}

absl::Status SimulatedOpen(const std::vector<EventSpec>& events) {
  for (const EventSpec& e : events) {
    absl::StatusOr<std::vector<SimEvent>> inputs = SimulatedInputs(e);
    if (!inputs.ok()) {
      return absl::UnimplementedError(absl::StrCat(
          "not counted by the simulator (--perf_counters_source=simulate): ",
          inputs.status().message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Plan> SetSimulatedEvents(std::string_view list,
                                        const MeasureOptions& options) {
  return ConfigureEvents(list, options, SimulatedOpen, /*simulated=*/true);
}

std::vector<std::string> SimulatableKeys(std::string_view list) {
  ParseOptions parse_options;
  parse_options.default_user_only = true;
  absl::StatusOr<Request> request = ParseRequest(list, parse_options);
  if (!request.ok()) return {};
  std::vector<std::string> keys;
  for (const PlannedGroup& g : MakePlan(*request, SimulatedOpen).groups) {
    for (const PlannedEvent& e : g.events) keys.push_back(e.key);
  }
  return keys;
}

}  // namespace perfcounters::benchmark_ext_internal
