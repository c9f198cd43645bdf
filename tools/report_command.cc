// report_command.cc: `perfcounters report RUN.json... -o report.html`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "changepoint_options.h"
#include "commands.h"
#include "compare.h"
#include "compare_gates.h"
#include "counting_source.h"
#include "gate_options.h"
#include "gbench_json.h"
#include "output_file.h"
#include "report.h"
#include "report_trends.h"
#include "verdict_notes.h"

namespace perfcounters::tools {
namespace {

// Arguments of `perfcounters report`.
struct ReportArgs {
  std::vector<std::string> runs;
  // Instead of runs: the trend charts of this history store.
  std::string db;
  std::string benchmark;
  std::string metric;
  size_t max_series = TrendsArgs{}.max_series;
  bool max_series_given = false;
  ChangePointOptions cp;
  std::string output;
  std::string title = "perfcounters report";
  // Gates on the first vs the last run, shown at the top of the page.
  GateArgs gate;
  double max_input_mb = 512;
};

int RunReport(const ReportArgs& args) {
  if (!args.db.empty() || !args.benchmark.empty() || !args.metric.empty()) {
    if (args.db.empty() || !args.runs.empty() || !args.gate.gates.empty()) {
      std::fprintf(stderr,
                   "perfcounters report: give RUN files, or --db DB "
                   "[--benchmark REGEX] [--metric NAME] (trend charts of a "
                   "history store), not both; --fail-on is for RUN files\n");
      return kExitUsage;
    }
    return RunReportTrends({args.db, args.benchmark, args.metric, args.output,
                            args.title, args.max_series, args.cp});
  }
  if (args.max_series_given) {
    std::fprintf(stderr,
                 "perfcounters report: --max-series is for --db (trend "
                 "charts); a report of RUN files shows every benchmark\n");
    return kExitUsage;
  }
  if (args.runs.empty()) {
    std::fprintf(stderr, "perfcounters report: RUN is required (or --db DB)\n");
    return kExitUsage;
  }
  const auto max_bytes = static_cast<uint64_t>(args.max_input_mb * 1048576.0);
  if (std::count(args.runs.begin(), args.runs.end(), "-") > 1) {
    std::fprintf(stderr,
                 "perfcounters report: - (standard input) is given more "
                 "than once; at most one run can come from it\n");
    return kExitUsage;
  }
  std::vector<BenchmarkFile> runs;
  for (const std::string& path : args.runs) {
    absl::StatusOr<BenchmarkFile> f = LoadBenchmarkJson(path, max_bytes);
    if (!f.ok()) {
      std::fprintf(stderr, "perfcounters report: %s\n",
                   EscapeControlBytes(f.status().message()).c_str());
      return kExitUsage;
    }
    PrintWarnings("report", *f);
    runs.push_back(*std::move(f));
  }
  // One page compares every run with the first: never a simulated value
  // with a measured one.
  for (size_t r = 1; r < runs.size(); ++r) {
    if (const std::string mixed = MixedSourcesError(runs.front(), runs[r]);
        !mixed.empty()) {
      std::fprintf(stderr, "perfcounters report: %s\n",
                   EscapeControlBytes(mixed).c_str());
      return kExitUsage;
    }
  }
  std::vector<const BenchmarkFile*> run_files;
  for (const BenchmarkFile& run : runs) run_files.push_back(&run);
  if (absl::Status st = CheckAllowedFields(args.gate.allow_env_diff, run_files);
      !st.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 std::string(st.message()).c_str());
    return kExitUsage;
  }
  // The last run against the first: what the gates check.
  Comparison last;
  if (runs.size() >= 2) last = Compare(runs.front(), runs.back());
  const VerdictNotes notes =
      CheckVerdict(runs.front(), runs.back(),
                   runs.size() >= 2 ? &last : nullptr, args.gate.options.alpha);
  ReportOptions options;
  options.title = args.title;
  options.alpha = args.gate.options.alpha;
  if (!args.gate.gates.empty()) {
    if (runs.size() < 2) {
      std::fprintf(stderr,
                   "perfcounters report: --fail-on needs two runs or more "
                   "(gates compare the last run with the first)\n");
      return kExitUsage;
    }
    std::optional<std::vector<GateResult>> results =
        RunGates("report", args.gate.gates, last, args.gate.options);
    if (!results) return kExitUsage;
    ApplyToGates("report", notes, args.gate.allow_env_diff, &*results);
    options.gates = *std::move(results);
  }
  if (runs.size() >= 2) {
    options.notes_html = NotesHtml(notes);
    PrintNoFingerprint("report", notes);
  }
  if (!WriteOutput("report", args.output, RenderReport(runs, options),
                   args.runs)) {
    return kExitUsage;
  }
  if (args.output != "-") {
    std::fprintf(stderr, "perfcounters report: wrote %s (%zu runs)\n",
                 args.output.c_str(), runs.size());
  }
  PrintGateErrors("report", options.gates);
  return ExitCode(options.gates);
}

}  // namespace

Command AddReportCommand(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* rep = app.add_subcommand(
      "report",
      "Write one self-contained HTML page with SVG charts of time and every "
      "counter per benchmark across runs");
  rep->add_option("RUN", args->runs, "Google Benchmark JSON files, in order");
  CLI::Option* db =
      rep->add_option("--db", args->db,
                      "instead of RUNs: trend charts of this history store "
                      "(file or postgresql:// URL)");
  rep->add_option("--benchmark", args->benchmark,
                  "with --db: only benchmarks matching this regex");
  rep->add_option("--metric", args->metric, "with --db: only this metric");
  CLI::Option* max_series =
      rep->add_option(
             "--max-series", args->max_series,
             "with --db: charts on the page at most, series with change "
             "points first (the page says how many were left out); 0: "
             "every series")
          ->capture_default_str()
          ->check(CLI::Validator(
              [](const std::string& v) -> std::string {
                // CLI11 would read "-3" into a size_t as a huge count.
                if (!v.empty() &&
                    v.find_first_not_of("0123456789") == std::string::npos) {
                  return "";
                }
                return "'" + v +
                       "' is no count of charts: a whole number, 1 or more "
                       "(0: every series)";
              },
              "N"));
  AddChangePointOptions(*rep, args->cp);
  for (const char* name : {"--method", "--cp-min-sigmas", "--cp-window",
                           "--cp-p-value", "--cp-min-change"}) {
    rep->get_option(name)->needs(db);
  }
  rep->add_option("-o,--output", args->output,
                  "the HTML file to write (replaced whole, never an input; - "
                  "is stdout)")
      ->required();
  rep->add_option("--title", args->title, "page title")->capture_default_str();
  AddGateOptions(*rep, args->gate,
                 "gate on the first vs the last run, as compare's; the "
                 "results head the page and set the exit code (repeatable)",
                 "significance level (U test) for gates and changes");
  rep->add_option("--max-input-mb", args->max_input_mb,
                  "refuse input files larger than this")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1e6));
  return WhenGiven(rep, [args, max_series] {
    args->max_series_given = max_series->count() > 0;
    return RunReport(*args);
  });
}

}  // namespace perfcounters::tools
