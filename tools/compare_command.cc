// compare_command.cc: `perfcounters compare BASE.json NEW.json`.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "commands.h"
#include "compare.h"
#include "gbench_json.h"
#include "output_file.h"

namespace perfcounters::tools {

const char kGateHelp[] =
    R"(Gates (--fail-on, repeatable): the condition that FAILS the run.
  [FILTER:]METRIC OP VALUE      OP: <  <=  >  >=
  VALUE with %   change of the new median relative to the base median
  VALUE without  absolute limit on the new median (times need ns/us/ms/s)
  METRIC         real_time, cpu_time, a derived metric of the core
                 library's table whose inputs are in the files (IPC, cpi,
                 branch-miss-rate, cache-miss-rate, ...; docs/tools.md lists
                 them; IPC:u from instructions:u/cycles:u), or any counter
                 in the files (cycles, instructions:u, page-faults...)
  FILTER         regular expression searched in benchmark names (RE2),
                 =NAME for exactly the benchmark NAME, or @geomean for
                 the geometric-mean summary
Examples:
  --fail-on 'IPC<-2%'                 IPC dropped by more than 2%
  --fail-on 'instructions>+0.5%'      instructions grew by more than 0.5%
  --fail-on 'IPC<1.2'                 IPC below 1.2
  --fail-on 'cpu_time>1.5ms'          cpu_time above 1.5 ms
  --fail-on 'BM_sort.*:IPC<-2%'       only benchmarks matching BM_sort.*
  --fail-on '@geomean:cpu_time>+1%'   overall cpu_time up by more than 1%
  --fail-on '=BM_f<std::vector<int>>/8:IPC<-2%'   exactly this benchmark
  --fail-on 'IPC:u<-2%'               IPC of instructions:u / cycles:u
  --fail-on 'branch-miss-rate>+5%'    branch-misses/branches up by > 5%
Noise: with repetitions a relative gate trips only when the change is also
significant: U test p < --alpha (0.05), or for exact counters (repetitions
agreeing within 0.01 %) ranges that do not overlap. With 3 repetitions a
side p cannot go below 0.1: use >= 4 (5 recommended). With one sample a
side the verdict rests on that sample (the output says so).
A gate that checks nothing, or whose FILTER matches no benchmark, is an
error (exit 2; --allow-unchecked-gates accepts the former).
Exit codes: 0 no gate violated, 1 a gate violated, 2 bad usage or input.
Statistics: medians over repetitions (or the median/mean aggregate when a
file has only aggregates); p is the two-sided Mann-Whitney U test, exact
without ties when a side has <= 8 values, else the normal approximation
with tie and continuity correction; shown when both sides have >= 2 values.)";

void PrintWarnings(const char* command, const BenchmarkFile& file) {
  for (const std::string& w : file.warnings) {
    std::fprintf(stderr, "perfcounters %s: warning: %s: %s\n", command,
                 EscapeControlBytes(file.source).c_str(), w.c_str());
  }
  if (file.warning_count > file.warnings.size()) {
    std::fprintf(stderr, "perfcounters %s: warning: %s: %zu more warnings\n",
                 command, EscapeControlBytes(file.source).c_str(),
                 file.warning_count - file.warnings.size());
  }
}

std::vector<std::string> WarningLines(const BenchmarkFile& file) {
  std::vector<std::string> lines;
  for (const std::string& w : file.warnings) {
    lines.push_back(absl::StrCat(file.source, ": ", w));
  }
  if (file.warning_count > file.warnings.size()) {
    lines.push_back(absl::StrCat(file.source, ": ",
                                 file.warning_count - file.warnings.size(),
                                 " more warnings"));
  }
  return lines;
}

std::optional<std::vector<GateResult>> RunGates(
    const char* command, const std::vector<std::string>& texts,
    const Comparison& comparison, const GateOptions& options) {
  const std::vector<std::string> metrics = MetricNames(comparison);
  std::vector<Gate> gates;
  for (const std::string& text : texts) {
    absl::StatusOr<Gate> gate = ParseGate(text, metrics);
    if (!gate.ok()) {
      std::fprintf(stderr, "perfcounters %s: %s\n", command,
                   EscapeControlBytes(gate.status().message()).c_str());
      return std::nullopt;
    }
    gates.push_back(*std::move(gate));
  }
  return EvaluateGates(comparison, gates, options);
}

bool WriteOutput(const char* command, const std::string& path,
                 const std::string& text,
                 const std::vector<std::string>& inputs) {
  const absl::Status written = WriteOutputFile(path, text, inputs);
  if (!written.ok()) {
    std::fprintf(stderr, "perfcounters %s: %s\n", command,
                 std::string(written.message()).c_str());
  }
  return written.ok();
}

void PrintGateErrors(const char* command,
                     const std::vector<GateResult>& results) {
  for (const GateResult& r : results) {
    if (r.status == GateStatus::kPassed || r.status == GateStatus::kFailed) {
      continue;
    }
    std::fprintf(stderr, "perfcounters %s: gate %s: %s\n", command,
                 EscapeControlBytes(r.gate).c_str(),
                 EscapeControlBytes(r.message).c_str());
  }
}

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
  RenderOptions render;
  render.alpha = args.alpha;
  render.only_changed = args.only_changed;
  render.max_rows = args.max_rows;
  if (args.format == "table") {
    render.format = Format::kTable;
  } else if (args.format == "markdown" || args.format == "md") {
    render.format = Format::kMarkdown;
  } else if (args.format == "json") {
    render.format = Format::kJson;
  } else {
    std::fprintf(stderr,
                 "perfcounters compare: --format '%s' is unknown; use table, "
                 "markdown or json\n",
                 ShortForMessage(args.format).c_str());
    return kExitUsage;
  }
  const bool to_stdout = args.output.empty() || args.output == "-";
  if (args.color == "always") {
    render.color = true;
  } else if (args.color == "auto") {
    render.color = to_stdout && isatty(STDOUT_FILENO) &&
                   std::getenv("NO_COLOR") == nullptr;
  } else if (args.color != "never") {
    std::fprintf(stderr,
                 "perfcounters compare: --color '%s' is unknown; use auto, "
                 "always or never\n",
                 ShortForMessage(args.color).c_str());
    return kExitUsage;
  }

  if (args.base == "-" && args.next == "-") {
    std::fprintf(stderr,
                 "perfcounters compare: BASE and NEW are both - (standard "
                 "input); at most one of them can be\n");
    return kExitUsage;
  }
  // The two files are parsed in parallel.
  const auto max_bytes = static_cast<uint64_t>(args.max_input_mb * 1048576.0);
  // No exception may leave a thread (nor pass a joinable one).
  auto load =
      [max_bytes](const std::string& path) -> absl::StatusOr<BenchmarkFile> {
    try {
      return LoadBenchmarkJson(path, max_bytes);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(
          absl::StrCat(path, ": out of memory while reading it"));
    }
  };
  absl::StatusOr<BenchmarkFile> base;
  std::thread base_loader([&] { base = load(args.base); });
  absl::StatusOr<BenchmarkFile> next = load(args.next);
  base_loader.join();
  for (const auto* f : {&base, &next}) {
    if (!f->ok()) {
      std::fprintf(stderr, "perfcounters compare: %s\n",
                   EscapeControlBytes(f->status().message()).c_str());
      return kExitUsage;
    }
  }
  for (const auto* f : {&base, &next}) {
    PrintWarnings("compare", **f);
    for (std::string& w : WarningLines(**f)) {
      render.warnings.push_back(std::move(w));
    }
  }

  const Comparison comparison = Compare(*base, *next, options);
  if (options.filter && comparison.benchmarks.empty()) {
    std::fprintf(stderr,
                 "perfcounters compare: --filter '%s' matches no benchmark in "
                 "either file\n",
                 ShortForMessage(args.filter).c_str());
    return kExitUsage;
  }
  const std::optional<std::vector<GateResult>> results =
      RunGates("compare", args.gates, comparison,
               {.alpha = args.alpha,
                .fail_on_missing = args.fail_on_missing,
                .allow_unchecked = args.allow_unchecked});
  if (!results) return kExitUsage;
  if (!WriteOutput("compare", to_stdout ? "-" : args.output,
                   Render(comparison, *results, render),
                   {args.base, args.next})) {
    return kExitUsage;
  }
  PrintGateErrors("compare", *results);
  return ExitCode(*results);
}

}  // namespace perfcounters::tools
