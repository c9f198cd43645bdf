// report_command.cc: `perfcounters report RUN.json... -o report.html`.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "compare.h"
#include "gbench_json.h"
#include "history_commands.h"
#include "report.h"

namespace perfcounters::tools {

int RunReport(const ReportArgs& args) {
  if (!args.db.empty() || !args.benchmark.empty()) {
    if (args.db.empty() || !args.runs.empty() || !args.gates.empty()) {
      std::fprintf(stderr,
                   "perfcounters report: give RUN files, or --db DB "
                   "[--benchmark REGEX] (trend charts of a history store), "
                   "not both; --fail-on is for RUN files\n");
      return kExitUsage;
    }
    return RunReportTrends(args.db, args.benchmark, args.output, args.title);
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
  ReportOptions options;
  options.title = args.title;
  options.alpha = args.alpha;
  if (!args.gates.empty()) {
    if (runs.size() < 2) {
      std::fprintf(stderr,
                   "perfcounters report: --fail-on needs two runs or more "
                   "(gates compare the last run with the first)\n");
      return kExitUsage;
    }
    std::optional<std::vector<GateResult>> results =
        RunGates("report", args.gates, Compare(runs.front(), runs.back()),
                 {.alpha = args.alpha,
                  .fail_on_missing = args.fail_on_missing,
                  .allow_unchecked = args.allow_unchecked});
    if (!results) return kExitUsage;
    options.gates = *std::move(results);
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

}  // namespace perfcounters::tools
