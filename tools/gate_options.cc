// gate_options.cc: the gate options of `compare` and `report`, and running
// the gates they give.
#include "gate_options.h"

#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "compare_gates.h"
#include "input_text.h"

namespace perfcounters::tools {

void AddGateOptions(CLI::App& command, GateArgs& args, const char* fail_on_help,
                    const char* alpha_help) {
  command.add_option("--fail-on", args.gates, fail_on_help);
  command.add_option("--alpha", args.options.alpha, alpha_help)
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  command.add_flag("--fail-on-missing", args.options.fail_on_missing,
                   "also fail when a gate cannot be evaluated on a benchmark "
                   "(metric absent or not counted, benchmark on one side "
                   "only)");
  command.add_flag("--allow-unchecked-gates", args.options.allow_unchecked,
                   "accept a gate that checked nothing (otherwise exit 2)");
  command
      .add_option("--allow-env-diff", args.allow_env_diff,
                  "gate even though the runs' environments differ in "
                  "these fingerprint fields (cpufreq.governor, "
                  "build.compiler, ...; docs/environment.md); otherwise "
                  "a gate on a metric the difference can move exits 2")
      ->expected(1, -1);
}

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

void PrintGateErrors(const char* command,
                     const std::vector<GateResult>& results) {
  for (const GateResult& r : results) {
    if (r.status == GateStatus::kPassed || r.status == GateStatus::kFailed) {
      continue;
    }
    std::fprintf(stderr, "perfcounters %s: gate %s: %s\n", command,
                 ShortForMessage(r.gate).c_str(),
                 EscapeControlBytes(r.message).c_str());
  }
}

}  // namespace perfcounters::tools
