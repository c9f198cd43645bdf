// report_command.cc: `perfcounters report RUN.json... -o report.html`.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "gbench_json.h"
#include "output_file.h"
#include "report.h"

namespace perfcounters::tools {

int RunReport(const ReportArgs& args) {
  std::vector<BenchmarkFile> runs;
  for (const std::string& path : args.runs) {
    absl::StatusOr<BenchmarkFile> f = LoadBenchmarkJson(path);
    if (!f.ok()) {
      std::fprintf(stderr, "perfcounters report: %s\n",
                   std::string(f.status().message()).c_str());
      return kExitUsage;
    }
    runs.push_back(*std::move(f));
  }
  ReportOptions options;
  options.title = args.title;
  const std::string html = RenderReport(runs, options);
  if (absl::Status written = WriteOutputFile(args.output, html, args.runs);
      !written.ok()) {
    std::fprintf(stderr, "perfcounters report: %s\n",
                 std::string(written.message()).c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "perfcounters report: wrote %s (%zu runs)\n",
               args.output.c_str(), runs.size());
  return kExitOk;
}

}  // namespace perfcounters::tools
