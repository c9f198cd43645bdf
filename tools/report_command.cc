// report_command.cc: `perfcounters report RUN.json... -o report.html`.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "compare.h"
#include "gbench_json.h"
#include "output_file.h"
#include "report.h"

namespace perfcounters::tools {

int RunReport(const ReportArgs& args) {
  const auto max_bytes = static_cast<uint64_t>(args.max_input_mb * 1048576.0);
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
    const Comparison comparison = Compare(runs.front(), runs.back());
    absl::StatusOr<std::vector<Gate>> gates =
        ParseGates(args.gates, comparison);
    if (!gates.ok()) {
      std::fprintf(stderr, "perfcounters report: %s\n",
                   EscapeControlBytes(gates.status().message()).c_str());
      return kExitUsage;
    }
    GateOptions gate_options;
    gate_options.alpha = args.alpha;
    gate_options.fail_on_missing = args.fail_on_missing;
    gate_options.allow_unchecked = args.allow_unchecked;
    options.gates = EvaluateGates(comparison, *gates, gate_options);
  }
  const std::string html = RenderReport(runs, options);
  if (absl::Status written = WriteOutputFile(args.output, html, args.runs);
      !written.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 std::string(written.message()).c_str());
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
