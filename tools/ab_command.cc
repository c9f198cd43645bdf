// ab_command.cc: `perfcounters ab BASE NEW [-- gbench flags]` (ab.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "ab.h"
#include "absl/strings/match.h"
#include "commands.h"
#include "input_text.h"
#include "output_file.h"
#include "paired_stats.h"

namespace perfcounters::tools {
namespace {

struct AbArgs {
  AbOptions options;
  double precision_pct = 1.0;
  double confidence_pct = 95.0;
  std::string format = "table";
  std::string output;
  bool quiet = false;
};

// The gbench flags ab sets itself.
constexpr const char* kOwnFlags[] = {
    "--benchmark_out", "--benchmark_out_format", "--benchmark_repetitions",
    "--benchmark_list_tests"};

int RunAbCommand(AbArgs args) {
  AbOptions& options = args.options;
  if (args.format != "table" && args.format != "json") {
    std::fprintf(stderr,
                 "perfcounters ab: --format '%s' is unknown; use table or "
                 "json\n",
                 ShortForMessage(args.format).c_str());
    return kExitUsage;
  }
  if (options.max_rounds < options.min_rounds) {
    std::fprintf(
        stderr, "perfcounters ab: --max-rounds %zu is below --min-rounds %zu\n",
        options.max_rounds, options.min_rounds);
    return kExitUsage;
  }
  for (const std::string& flag : options.gbench_flags) {
    for (const char* own : kOwnFlags) {
      if (flag == own || absl::StartsWith(flag, std::string(own) + "=")) {
        std::fprintf(stderr,
                     "perfcounters ab: %s is ab's to set (one repetition per "
                     "round, JSON to a file of its own); use --base-out and "
                     "--new-out for the rounds, --max-rounds for their "
                     "number\n",
                     ShortForMessage(flag).c_str());
        return kExitUsage;
      }
    }
  }
  if (!options.base_out.empty() && options.base_out == options.next_out) {
    std::fprintf(stderr,
                 "perfcounters ab: --base-out and --new-out are the same "
                 "file; give two\n");
    return kExitUsage;
  }
  options.precision = args.precision_pct / 100.0;
  options.confidence = args.confidence_pct / 100.0;
  options.progress = !args.quiet;
  // Said even with -q: it is about the arguments, not the progress.
  if (const size_t fewest = SignTestMinimumPairs(options.confidence);
      options.max_rounds < fewest) {
    std::fprintf(stderr,
                 "perfcounters ab: note: --max-rounds %zu is below %zu, the "
                 "fewest rounds that give a sign-test interval at %g %% "
                 "confidence: no interval will exclude 1.0; use "
                 "--max-rounds %zu or more\n",
                 options.max_rounds, fewest, args.confidence_pct, fewest);
  }
  absl::StatusOr<AbResult> result;
  {
    // A passed-on signal ends ab after RunAb has removed its rounds'
    // directory, and before anything is written.
    const AbPassSignalsOn pass_on;
    result = RunAb(options);
  }
  AbEndAsInterrupted();
  if (!result.ok()) {
    std::fprintf(stderr, "perfcounters ab: %s\n",
                 EscapeControlBytes(result.status().message()).c_str());
    return kExitUsage;
  }
  const std::string text =
      args.format == "json" ? AbJson(*result) : AbTable(*result);
  const bool to_stdout = args.output.empty() || args.output == "-";
  if (!WriteOutput("ab", to_stdout ? "-" : args.output, text, {})) {
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

Command AddAbCommand(CLI::App& app) {
  auto args = std::make_shared<AbArgs>();
  CLI::App* ab = app.add_subcommand(
      "ab",
      "Run two Google Benchmark binaries alternately (ABBA) and report "
      "new/base per benchmark and metric with a paired interval");
  ab->add_option("BASE", args->options.base, "baseline benchmark binary")
      ->required();
  ab->add_option("NEW", args->options.next, "new benchmark binary")->required();
  ab->add_option("GBENCH_FLAGS", args->options.gbench_flags,
                 "after --: flags for both binaries (--benchmark_filter, "
                 "--benchmark_min_time, --perf_counters, ...)");
  ab->add_option("--min-rounds", args->options.min_rounds,
                 "rounds before a benchmark may stop")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  ab->add_option("--max-rounds", args->options.max_rounds,
                 "rounds at most (each runs both binaries once)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  ab->add_option("--precision", args->precision_pct,
                 "stop a benchmark when its interval is narrower than this "
                 "many % (of the ratio)")
      ->capture_default_str()
      ->check(CLI::Range(0.0001, 1000.0));
  ab->add_option("--confidence", args->confidence_pct,
                 "the intervals' confidence in %")
      ->capture_default_str()
      ->check(CLI::Range(50.0, 99.99));
  ab->add_option("--metric", args->options.metric,
                 "the metric whose interval stops a benchmark")
      ->capture_default_str();
  ab->add_option("--base-out", args->options.base_out,
                 "write BASE's rounds to this gbench JSON file (for compare, "
                 "report and their gates: paired)");
  ab->add_option("--new-out", args->options.next_out,
                 "write NEW's rounds to this gbench JSON file");
  ab->add_option("--format", args->format, "table or json")
      ->capture_default_str();
  ab->add_option("-o,--output", args->output,
                 "write the result to this file (replaced whole; - is "
                 "stdout)");
  ab->add_flag("-q,--quiet", args->quiet, "no progress line per round");
  ab->add_option("--timeout", args->options.timeout_s,
                 "seconds one run of a binary (one side of a round) may "
                 "take; past it ab kills it and fails (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e7));
  ab->footer(
      "Each round runs every benchmark still running once in each binary "
      "(--benchmark_repetitions=1), BASE first in odd rounds and NEW first "
      "in even ones. The interval is the sign test's on the median of "
      "log(new/base) over the rounds (docs/ab.md). Exit code: 0, or 2 for "
      "bad arguments, a binary that is missing, not Google Benchmark, fails "
      "or crashes in a round, runs past --timeout, or runs other benchmarks "
      "than the other.");
  return WhenGiven(ab, [args] { return RunAbCommand(*args); });
}

}  // namespace perfcounters::tools
