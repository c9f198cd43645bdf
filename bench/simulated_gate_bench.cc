// simulated_gate_bench.cc: the project's own hot paths as Measure
// benchmarks with fixed iteration counts, for the simulated instruction
// gate of CI (scripts/ci-simulated-gate, docs/ci.md): run under
// --perf_counters_source=simulate, their instructions per iteration are the
// same every run of the same binary, and compare gates them against
// bench/baseline/simulated.json.
//
//   BM_GateStartStop        perfcounters::Counters::Start() + Stop() of one
//                           software event (the measurement hot path,
//                           read(2) snapshots)
//   BM_GateLoadJson         the tools' gbench JSON parser on a generated
//                           file of 20 benchmarks x 3 repetitions (what
//                           compare, report and history read)
//   BM_GateParseEvent/...   the event grammar through an EventCatalog of
//                           the tests' fake sysfs tree: a generic event with
//                           a modifier, a sysfs PMU with format terms, a
//                           misspelt name (the "did you mean" path)
//
// Each benchmark checks that its work did what it should (the parse
// succeeded or failed as intended), or its count would gate nothing.
//
// PERFCOUNTERS_GATE_EXTRA_WORK=N adds N rounds of a small arithmetic loop to
// every iteration (about 4 instructions each): the deliberately slowed-down
// build with which `scripts/ci-simulated-gate --self-check` proves the gate
// fails. Never set it otherwise.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "gbench_json.h"
#include "generated_json.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/benchmark_ext_main.h"
#include "perfcounters/counters.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/grammar.h"
#include "support/fake_sysfs.h"

namespace {

// Fixed counts: gbench 1.7 has no --benchmark_min_time=<N>x, and a count
// chosen from time would change the per-iteration share of the batch's own
// few instructions (docs/simulate.md).
constexpr int kStartStopIterations = 200;
constexpr int kJsonIterations = 5;
constexpr int kGrammarIterations = 50;

// The injected slowdown (file comment); 0 unless the self-check sets it.
uint64_t ExtraWork() {
  static const uint64_t rounds = [] {
    const char* value = std::getenv("PERFCOUNTERS_GATE_EXTRA_WORK");
    return value == nullptr ? uint64_t{0} : std::strtoull(value, nullptr, 10);
  }();
  return rounds;
}

void Slowdown() {
  uint64_t x = 1;
  for (uint64_t i = ExtraWork(); i > 0; --i) {
    x = x * 3 + i;
    benchmark::DoNotOptimize(x);
  }
}

void BM_GateStartStop(benchmark::State& state) {
  perfcounters::CountersOptions options;
  options.calibrate = false;
  absl::StatusOr<perfcounters::Counters> counters =
      perfcounters::Counters::Open("page-faults", options);
  if (!counters.ok()) {
    state.SkipWithError(std::string(counters.status().message()).c_str());
    return;
  }
  perfcounters::Counters* c = &*counters;
  for (auto _ : perfcounters::Measure(state)) {
    c->Start();
    c->Stop();
    Slowdown();
  }
}
BENCHMARK(BM_GateStartStop)->Iterations(kStartStopIterations);

void BM_GateLoadJson(benchmark::State& state) {
  char dir[] = "/tmp/perfcounters-gate-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    state.SkipWithError("cannot make a temporary directory");
    return;
  }
  const std::string path = std::string(dir) + "/base.json";
  perfcounters::bench_support::GenerateGbenchJson(path, 1, 1.0, 20);
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
      text.append(buffer, n);
    }
    std::fclose(f);
  }
  unlink(path.c_str());
  rmdir(dir);
  size_t entries = 0;
  for (auto _ : perfcounters::Measure(state)) {
    absl::StatusOr<perfcounters::tools::BenchmarkFile> file =
        perfcounters::tools::ParseBenchmarkJson(text, "base.json");
    entries = file.ok() ? file->entries.size() : 0;
    benchmark::DoNotOptimize(entries);
    Slowdown();
  }
  // 20 benchmarks x (3 repetitions + 4 aggregates).
  if (entries != 20 * 7)
    state.SkipWithError("the generated file did not parse");
}
BENCHMARK(BM_GateLoadJson)->Iterations(kJsonIterations);

void GateParseEvent(benchmark::State& state, const char* text, bool parses) {
  perfcounters::testing::FakeTree tree;
  tree.AddX86Cpu();
  tree.AddTracefs();
  perfcounters::ParseOptions options;
  options.paths = tree.Paths();
  options.catalog = perfcounters::EventCatalog::Create(options.paths);
  bool ok = !parses;
  for (auto _ : perfcounters::Measure(state)) {
    absl::StatusOr<perfcounters::EventSpec> parsed =
        perfcounters::ParseEvent(text, options);
    ok = parsed.ok();
    benchmark::DoNotOptimize(parsed);
    Slowdown();
  }
  if (ok != parses) state.SkipWithError("the spec did not parse as intended");
}
BENCHMARK_CAPTURE(GateParseEvent, generic, "cycles:u", true)
    ->Name("BM_GateParseEvent/generic")
    ->Iterations(kGrammarIterations);
BENCHMARK_CAPTURE(GateParseEvent, pmu_terms, "cpu/event=0x3c,umask=0/", true)
    ->Name("BM_GateParseEvent/pmu_terms")
    ->Iterations(kGrammarIterations);
BENCHMARK_CAPTURE(GateParseEvent, misspelt, "cyclse:u", false)
    ->Name("BM_GateParseEvent/misspelt")
    ->Iterations(kGrammarIterations);

}  // namespace

PERFCOUNTERS_BENCHMARK_MAIN();
