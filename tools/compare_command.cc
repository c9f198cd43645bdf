// compare_command.cc: `perfcounters compare BASE.json NEW.json`.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "commands.h"
#include "compare.h"
#include "gbench_json.h"

namespace perfcounters::tools {

const char kGateHelp[] =
    R"(Gates (--fail-on, repeatable): the condition that FAILS the run.
  [FILTER:]METRIC OP VALUE      OP: <  <=  >  >=
  VALUE with %   change of the new median relative to the base median
  VALUE without  absolute limit on the new median (times need ns/us/ms/s)
  METRIC         real_time, cpu_time, IPC (instructions/cycles), or any
                 counter in the files (cycles, instructions:u, page-faults...)
  FILTER         regular expression searched in benchmark names, or
                 @geomean for the geometric-mean summary
Examples:
  --fail-on 'IPC<-2%'                 IPC dropped by more than 2%
  --fail-on 'instructions>+0.5%'      instructions grew by more than 0.5%
  --fail-on 'IPC<1.2'                 IPC below 1.2
  --fail-on 'cpu_time>1.5ms'          cpu_time above 1.5 ms
  --fail-on 'BM_sort.*:IPC<-2%'       only benchmarks matching BM_sort.*
  --fail-on '@geomean:cpu_time>+1%'   overall cpu_time up by more than 1%
Exit codes: 0 no gate violated, 1 a gate violated, 2 bad usage or input.
Statistics: medians over repetitions (or the median/mean aggregate when a
file has only aggregates); p is the two-sided Mann-Whitney U test, exact
without ties when a side has <= 8 values, else the normal approximation
with tie and continuity correction; shown when both sides have >= 2 values.)";

int RunCompare(const CompareArgs& args) {
  CompareOptions options;
  if (!args.filter.empty()) {
    absl::StatusOr<NameFilter> filter = NameFilter::Create(args.filter);
    if (!filter.ok()) {
      std::fprintf(stderr, "perfcounters compare: --filter %s\n",
                   std::string(filter.status().message()).c_str());
      return kExitUsage;
    }
    options.filter = *std::move(filter);
  }
  Format format;
  if (args.format == "table") {
    format = Format::kTable;
  } else if (args.format == "markdown" || args.format == "md") {
    format = Format::kMarkdown;
  } else if (args.format == "json") {
    format = Format::kJson;
  } else {
    std::fprintf(stderr,
                 "perfcounters compare: --format '%s' is unknown; use table, "
                 "markdown or json\n",
                 args.format.c_str());
    return kExitUsage;
  }
  bool color = false;
  if (args.color == "always") {
    color = true;
  } else if (args.color == "auto") {
    color = isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  } else if (args.color != "never") {
    std::fprintf(stderr,
                 "perfcounters compare: --color '%s' is unknown; use auto, "
                 "always or never\n",
                 args.color.c_str());
    return kExitUsage;
  }

  // The two files are parsed in parallel.
  absl::StatusOr<BenchmarkFile> base;
  std::thread base_loader([&] { base = LoadBenchmarkJson(args.base); });
  absl::StatusOr<BenchmarkFile> next = LoadBenchmarkJson(args.next);
  base_loader.join();
  for (const auto* f : {&base, &next}) {
    if (!f->ok()) {
      std::fprintf(stderr, "perfcounters compare: %s\n",
                   std::string(f->status().message()).c_str());
      return kExitUsage;
    }
  }

  const Comparison comparison = Compare(*base, *next, options);
  const std::vector<std::string> metrics = MetricNames(comparison);
  std::vector<Gate> gates;
  for (const std::string& text : args.gates) {
    absl::StatusOr<Gate> gate = ParseGate(text, metrics);
    if (!gate.ok()) {
      std::fprintf(stderr, "perfcounters compare: %s\n",
                   std::string(gate.status().message()).c_str());
      return kExitUsage;
    }
    gates.push_back(*std::move(gate));
  }
  const std::vector<GateResult> results = EvaluateGates(comparison, gates);
  const std::string out = Render(comparison, results, format, color);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);

  bool violated = false;
  for (const GateResult& r : results) {
    if (!r.violations.empty()) violated = true;
    if (args.fail_on_missing && !r.not_evaluated.empty()) {
      std::fprintf(stderr,
                   "perfcounters compare: gate %s could not be evaluated on "
                   "%zu benchmark(s) (--fail-on-missing)\n",
                   r.gate.c_str(), r.not_evaluated.size());
      violated = true;
    }
  }
  return violated ? kExitGateViolated : kExitOk;
}

}  // namespace perfcounters::tools
