// benchmark_main.cc: perfcounters::BenchmarkMain, gbench's main with perf
// counters.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "environment_context.h"
#include "extra_run_counting.h"
#include "measure_internal.h"
#include "out_file.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_flags.h"
#include "perfcounters/benchmark_ext_main.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/counters.h"
#include "perfcounters/plan.h"
#include "rows.h"
#include "sampling_run.h"
#include "simulate.h"

namespace perfcounters {
namespace {

// The CPU's model name (/proc/cpuinfo's first "model name"; empty where
// there is none, as on most arm64 kernels): with the host name, a
// machine's identity that does not move with its clock
// (`perfcounters history`'s default machine).
std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, "model name")) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return "";
}

// Prints the read path and records it and the calibration in the JSON
// context. False (after an error message) when --perf_counters_read=user
// cannot be honoured.
bool DescribeSetup(const benchmark_ext::Flags& flags) {
  const benchmark_ext_internal::MeasurementSetup setup =
      benchmark_ext_internal::PrepareCallingThread();
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
  // The check at open of the groups read from user space: they agree with
  // read(2), or which did not (and are read with read(2)).
  if (flags.read_mode != ReadMode::kSyscall &&
      (setup.read_path != "syscall" || !setup.read_path_check.empty())) {
    benchmark::AddCustomContext(
        "perfcounters.read_path.check",
        setup.read_path_check.empty()
            ? std::string("user-space reads agree with read(2)")
            : absl::StrJoin(setup.read_path_check, "; "));
  }
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
  // Where the counters pause: inside gbench's timer or outside it.
  benchmark::AddCustomContext(
      "perfcounters.pause_order",
      setup.outside_timer
          ? (flags.calibrate
                 ? "counters outside gbench's timer (a group is read with "
                   "read(2)); gbench's pause and resume are measured at "
                   "each batch's first pause and subtracted per pause"
                 : "counters outside gbench's timer (a group is read with "
                   "read(2)); gbench's pause and resume are counted")
          : "counters inside gbench's timer (read from user space)");
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

// gbench's --benchmark_out and --benchmark_out_format (or their
// environment variables), read before benchmark::Initialize() takes them:
// the main makes the file reporter itself, so that its rows get the same
// counters as the display's.
struct OutFileFlags {
  std::string path;
  std::string format = "json";
};

OutFileFlags FindOutFile(int argc, char** argv) {
  OutFileFlags out;
  if (const char* env = std::getenv("BENCHMARK_OUT")) out.path = env;
  if (const char* env = std::getenv("BENCHMARK_OUT_FORMAT")) out.format = env;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    for (absl::string_view dashes : {"--", "-"}) {
      if (absl::StartsWith(arg, absl::StrCat(dashes, "benchmark_out="))) {
        out.path = std::string(arg.substr(dashes.size() + 14));
      } else if (absl::StartsWith(
                     arg, absl::StrCat(dashes, "benchmark_out_format="))) {
        out.format = std::string(arg.substr(dashes.size() + 21));
      }
    }
  }
  return out;
}

std::unique_ptr<benchmark::BenchmarkReporter> MakeFileReporter(
    const OutFileFlags& out) {
  if (out.path.empty()) return nullptr;
  if (out.format == "csv") {
    // gbench marks its CSV reporter deprecated but still makes it for
    // --benchmark_out_format=csv: so does this main.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  }
  if (out.format == "console") {
    return std::make_unique<benchmark::ConsoleReporter>(
        benchmark::ConsoleReporter::OO_None);
  }
  return std::make_unique<benchmark::JSONReporter>();
}

// How benchmarks are counted (the JSON context), and the pass started.
void StartCounting(const benchmark_ext::Flags& flags) {
  absl::StatusOr<std::shared_ptr<const benchmark_ext_internal::Config>> config =
      benchmark_ext_internal::CurrentConfig();
  if (!config.ok() || *config == nullptr) return;
  if (!benchmark_ext_internal::StartExtraRunCounting(*config)) {
    benchmark::AddCustomContext(
        "perfcounters.counting",
        "benchmarks that use perfcounters::Measure; this Google Benchmark "
        "(older than 1.9) has no ProfilerManager, so the others are not "
        "counted (every event <name>.not_counted=1)");
    return;
  }
  benchmark::AddCustomContext(
      "perfcounters.counting",
      "benchmarks that use perfcounters::Measure, in their own run (every "
      "thread); the others (rows with perfcounters.pass_threads=1) in "
      "Google Benchmark's extra run of each repetition (its "
      "ProfilerManager), with the repetition's iteration count, on one "
      "thread (a Threads(N) benchmark is counted as one thread), "
      "state.PauseTiming() regions included, the extra run's own cost "
      "(calibrated: perfcounters.pass_calibration.<name>) subtracted");
  if (flags.calibrate) {
    for (const auto& [key, cost] :
         benchmark_ext_internal::ExtraRunCalibration()) {
      benchmark::AddCustomContext(
          absl::StrCat("perfcounters.pass_calibration.", key),
          absl::StrCat(cost.floor));
    }
  }
}

// An event given more than once is counted once per copy (label#2, ...:
// the way to fill more counters than a group holds, as the multiplexing
// tests do), which a long pasted list may not mean: one note per such
// event.
void NoteRepeatedEvents(const Plan& plan) {
  std::vector<std::string> labels;  // in request order
  absl::flat_hash_map<std::string, int> copies;
  for (const std::string& key : plan.requested_keys) {
    const size_t hash = key.rfind('#');
    if (hash == std::string::npos) continue;
    const std::string label = key.substr(0, hash);
    if (++copies[label] == 1) labels.push_back(label);
  }
  for (const std::string& label : labels) {
    const int n = copies[label] + 1;
    const std::string copy_keys =
        n == 2 ? absl::StrCat(label, "#2")
               : absl::StrCat(label, "#2 to ", label, "#", n);
    std::fprintf(stderr,
                 "perfcounters: note: %s is requested %d times: each copy is "
                 "counted as a counter of its own (%s); give it once unless "
                 "you want the copies\n",
                 label.c_str(), n, copy_keys.c_str());
  }
}

void PrintHelp() {
  // gbench exits 0 after the help: the simulator's parent must not take
  // that for a child that never ran.
  benchmark_ext_internal::MarkSimulatorChild("finished");
  std::fputs(benchmark_ext::FlagsHelp().c_str(), stdout);
  std::fputs(benchmark_ext_internal::SourceFlagHelp().c_str(), stdout);
  std::fputs(benchmark_ext_internal::ProfileFlagsHelp().c_str(), stdout);
  benchmark::PrintDefaultHelp();
}

// The main's own flags, taken out of argv.
struct MainFlags {
  benchmark_ext_internal::SourceFlag source;
  benchmark_ext::Flags counters;
  benchmark_ext_internal::ProfileFlags profile;
};

// Takes --perf_counters_source, the --perf_counters* and the --perf_profile*
// flags out of argv; nullopt after printing what was wrong.
std::optional<MainFlags> ExtractMainFlags(int* argc, char** argv) {
  absl::StatusOr<benchmark_ext_internal::SourceFlag> source =
      benchmark_ext_internal::ExtractSourceFlag(
          argc, argv, std::getenv(benchmark_ext_internal::kSourceEnvVar));
  if (!source.ok()) {
    std::fprintf(stderr, "perfcounters: error: %s\n",
                 std::string(source.status().message()).c_str());
    return std::nullopt;
  }
  absl::StatusOr<benchmark_ext::Flags> flags = benchmark_ext::ExtractFlags(
      argc, argv, std::getenv(benchmark_ext::kEventsEnvVar));
  if (!flags.ok()) {
    std::fprintf(stderr, "perfcounters: error: %s\n",
                 std::string(flags.status().message()).c_str());
    return std::nullopt;
  }
  absl::StatusOr<benchmark_ext_internal::ProfileFlags> profile_flags =
      benchmark_ext_internal::ExtractProfileFlags(argc, argv);
  if (!profile_flags.ok()) {
    std::fprintf(stderr, "perfcounters: error: %s\n",
                 std::string(profile_flags.status().message()).c_str());
    return std::nullopt;
  }
  return MainFlags{*std::move(source), *std::move(flags),
                   *std::move(profile_flags)};
}

// Plans the requested events (the simulator's in its child), says what
// cannot be counted, and writes how they are counted into the JSON
// context; false after printing an error.
bool SetUpEvents(const benchmark_ext::Flags& flags,
                 const benchmark_ext_internal::SourceFlag& source, bool child) {
  const std::string list = flags.events.value_or("");
  MeasureOptions options;
  options.read_mode = flags.read_mode;
  options.calibrate = flags.calibrate;
  absl::StatusOr<Plan> plan =
      child ? benchmark_ext_internal::SetSimulatedEvents(list, options)
            : SetBenchmarkEvents(list, options);
  if (!plan.ok()) {
    // The message quotes the list (shortened when long) where it matters.
    std::fprintf(stderr, "perfcounters: error: %s: %s\n",
                 flags.events_source.c_str(),
                 std::string(plan.status().message()).c_str());
    return false;
  }
  NoteRepeatedEvents(*plan);
  const std::string warnings = DescribeUnavailable(*plan);
  std::fputs(warnings.c_str(), stderr);
  if (const std::string model = CpuModel(); !model.empty()) {
    benchmark::AddCustomContext("perfcounters.cpu_model", model);
  }
  if (!child) benchmark_ext_internal::NoteSimulatable(list, *plan);
  if (!list.empty()) {
    benchmark::AddCustomContext("perfcounters.events", list);
    if (!plan->unavailable.empty()) {
      benchmark::AddCustomContext(
          "perfcounters.unavailable",
          benchmark_ext_internal::UnavailableContext(*plan));
    }
  }
  if (flags.strict && !plan->unavailable.empty()) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_strict: %zu requested "
                 "counter(s) cannot be counted on this machine (see the "
                 "warnings above); no benchmark was run\n",
                 plan->unavailable.size());
    return false;
  }
  if (child) {
    if (!benchmark_ext_internal::DescribeSimulatorChild()) return false;
    benchmark_ext_internal::PrepareCallingThread();
    // Unmodified benchmarks in gbench's extra run (1.9 and newer).
    absl::StatusOr<std::shared_ptr<const benchmark_ext_internal::Config>>
        config = benchmark_ext_internal::CurrentConfig();
    benchmark_ext_internal::AddSimulatedCountingContext(
        config.ok() && *config != nullptr &&
        benchmark_ext_internal::StartExtraRunCounting(*config));
    benchmark_ext_internal::AddEnvironmentContext();
    return true;
  }
  if (!DescribeSetup(flags)) return false;
  benchmark_ext_internal::AddEnvironmentContext();
  StartCounting(flags);
  // Said when asked for (--perf_counters_source or the environment).
  if (!list.empty() && !source.origin.empty()) {
    benchmark::AddCustomContext("perfcounters.source", "pmu");
  }
  return true;
}

// Runs the benchmarks into the display and --benchmark_out reporters
// (after --perf_profile's sampling run); the main's exit status.
int RunBenchmarks(const benchmark_ext::Flags& flags,
                  const benchmark_ext_internal::ProfileFlags& profile_flags,
                  const OutFileFlags& out, bool child) {
  benchmark_ext_internal::RowFiller rows;
  std::unique_ptr<benchmark::BenchmarkReporter> display(
      benchmark::CreateDefaultDisplayReporter());
  const bool console =
      dynamic_cast<benchmark::ConsoleReporter*>(display.get()) != nullptr;
  const bool display_json =
      dynamic_cast<benchmark::JSONReporter*>(display.get()) != nullptr;
  display = benchmark_ext_internal::WithEnvironmentEnd(std::move(display));
  benchmark_ext_internal::DisplayReporter reporter(
      std::move(display), flags.verbose, &rows, /*warn=*/true);
  std::unique_ptr<benchmark::BenchmarkReporter> file =
      benchmark_ext_internal::WithEnvironmentEnd(MakeFileReporter(out));
  std::unique_ptr<benchmark_ext_internal::OutFile> out_file;
  if (file != nullptr) {
    out_file = std::make_unique<benchmark_ext_internal::OutFile>(
        std::make_unique<benchmark_ext_internal::DisplayReporter>(
            std::move(file), true, &rows, /*warn=*/false),
        out.path, out.format);
    out_file->HandleInterrupts();
  }
  // With --perf_profile, a sampling run first (sampling_run.h).
  benchmark_ext_internal::RunWithProfiles(profile_flags, &reporter, console,
                                          display_json, out_file.get(),
                                          out.format == "json");
  benchmark::Shutdown();
  if (out_file != nullptr && !out_file->Write()) return 1;
  if (flags.strict && benchmark_ext_internal::AnyCounterNotCounted()) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_strict: some requested "
                 "counters were not counted in some runs (see the warnings "
                 "above)\n");
    return 1;
  }
  if (child) benchmark_ext_internal::MarkSimulatorChild("finished");
  return 0;
}

}  // namespace

int BenchmarkMain(int argc, char** argv) {
  // The arguments as given, for the simulator's child (simulate.h).
  const std::vector<std::string> args(argv, argv + argc);
  std::optional<MainFlags> main_flags = ExtractMainFlags(&argc, argv);
  if (!main_flags.has_value()) return 1;
  const benchmark_ext_internal::SourceFlag& source = main_flags->source;
  const benchmark_ext::Flags& flags = main_flags->counters;
  const benchmark_ext_internal::ProfileFlags& profile_flags =
      main_flags->profile;
  const bool child = benchmark_ext_internal::IsSimulatorChild();
  if (child) benchmark_ext_internal::MarkSimulatorChild("started");
  if (!child && source.source != benchmark_ext_internal::Source::kPmu) {
    std::optional<int> rc = benchmark_ext_internal::MaybeSimulate(
        source, flags.events.value_or(""), profile_flags.event,
        profile_flags.period || profile_flags.frequency, args);
    if (rc.has_value()) return *rc;
  }
  const OutFileFlags out = FindOutFile(argc, argv);
  // gbench writes --benchmark_out to /dev/null; out_file.h writes the file.
  std::vector<char*> gbench_args =
      benchmark_ext_internal::GbenchArgs(argc, argv, !out.path.empty());
  int gbench_argc = static_cast<int>(gbench_args.size()) - 1;
  benchmark::Initialize(&gbench_argc, gbench_args.data(), &PrintHelp);
  if (benchmark::ReportUnrecognizedArguments(gbench_argc, gbench_args.data())) {
    return 1;
  }
  if (!out.path.empty()) {
    if (absl::Status s = benchmark_ext_internal::OutFile::Check(out.path);
        !s.ok()) {
      std::fprintf(stderr, "perfcounters: error: %s\n",
                   std::string(s.message()).c_str());
      return 1;
    }
  }
  if (flags.overridden_env_events.has_value()) {
    std::fprintf(
        stderr, "perfcounters: note: %s=%s overrides %s=%s\n",
        flags.events_source.c_str(),
        benchmark_ext_internal::ShortForMessage(*flags.events).c_str(),
        benchmark_ext::kEventsEnvVar,
        benchmark_ext_internal::ShortForMessage(*flags.overridden_env_events)
            .c_str());
  }
  if (!SetUpEvents(flags, source, child)) return 1;
  return RunBenchmarks(flags, profile_flags, out, child);
}

}  // namespace perfcounters
