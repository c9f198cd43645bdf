// history_bench: `perfcounters history` at scale on SQLite: a store of
// 1,000 benchmarks x 20 metrics x 200 runs (4 million values), then adding
// one run, checking one run against the history (a gate on every series),
// and finding the change points of every series. The store is built once
// (about a minute) at $PERFCOUNTERS_HISTORY_BENCH_DB, default
// /tmp/perfcounters_history_bench.db, and reused by later runs.
// docs/history.md has the numbers.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "compare.h"
#include "compare_gates.h"
#include "gbench_json.h"
#include "history.h"
#include "history_check.h"
#include "history_export.h"
#include "history_store.h"

namespace {

using namespace perfcounters::tools;

constexpr int kBenchmarks = 1000;
constexpr int kCounters = 18;  // + real_time and cpu_time: 20 metrics
constexpr int kRuns = 200;

std::string StorePath() {
  const char* p = std::getenv("PERFCOUNTERS_HISTORY_BENCH_DB");
  return p != nullptr ? p : "/tmp/perfcounters_history_bench.db";
}

// Run `run`'s JSON: every benchmark's counters at a level with 0.1 % noise
// (deterministic), a +3 % step at run 120 for one benchmark in ten.
std::string RunText(int run) {
  std::string out = absl::StrCat(
      "{\"context\":{\"date\":\"2026-11-30T00:00:00Z\",\"host_name\":"
      "\"bench\",\"num_cpus\":2,\"mhz_per_cpu\":3000,\"run\":",
      run, "},\"benchmarks\":[");
  uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(run + 1);
  auto noise = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (static_cast<double>(state >> 11) * 0x1p-53 - 0.5) * 0.002;
  };
  for (int b = 0; b < kBenchmarks; ++b) {
    const double step = (b % 10 == 0 && run >= 120) ? 1.03 : 1.0;
    absl::StrAppend(&out, b ? "," : "", "{\"name\":\"BM_bench/", b,
                    "\",\"run_name\":\"BM_bench/", b,
                    "\",\"run_type\":\"iteration\",\"iterations\":1000,"
                    "\"real_time\":",
                    (1000 + b) * step * (1 + noise()),
                    ",\"cpu_time\":", (990 + b) * step * (1 + noise()),
                    ",\"time_unit\":\"ns\"");
    for (int c = 0; c < kCounters; ++c) {
      absl::StrAppend(&out, ",\"counter", c,
                      "\":", (1e4 + 100 * c + b) * step * (1 + noise()));
    }
    out += "}";
  }
  return out + "]}";
}

void Add(HistoryStore& store, int run) {
  const std::string text = RunText(run);
  absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(text, "bench");
  RunIdentity id;
  id.branch = "main";
  id.commit = absl::StrCat("c", run);
  id.time = absl::StrCat("2026-11-", 1 + run / 24 % 28, "T",
                         absl::StrFormat("%02d", run % 24), ":00:00Z");
  absl::StatusOr<RunIdentity> resolved = ResolveIdentity(*file, id);
  absl::StatusOr<AddResult> r = AddRun(store, text, *file, *resolved);
  if (!r.ok()) {
    std::fprintf(stderr, "history_bench: %s\n",
                 std::string(r.status().message()).c_str());
    std::exit(1);
  }
}

HistoryStore& Store() {
  static std::unique_ptr<HistoryStore> store = [] {
    absl::StatusOr<std::unique_ptr<HistoryStore>> s =
        OpenHistoryStore(StorePath());
    if (!s.ok()) {
      std::fprintf(stderr, "history_bench: %s\n",
                   std::string(s.status().message()).c_str());
      std::exit(1);
    }
    int64_t runs = 0;
    (void)(*s)->Query("SELECT count(*) FROM runs", {}, {SqlType::kInt},
                      [&](const auto& r) { runs = std::get<int64_t>(r[0]); });
    for (int run = static_cast<int>(runs); run < kRuns; ++run) {
      Add(**s, run);
    }
    return *std::move(s);
  }();
  return *store;
}

void BM_AddOneRun(benchmark::State& state) {
  HistoryStore& store = Store();
  // A run number not stored yet (a reused store keeps earlier ones).
  int64_t runs = 0;
  (void)store.Query("SELECT count(*) FROM runs", {}, {SqlType::kInt},
                    [&](const auto& r) { runs = std::get<int64_t>(r[0]); });
  int next = 100000 + static_cast<int>(runs);
  for (auto _ : state) Add(store, next++);
}
BENCHMARK(BM_AddOneRun)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_CheckOneRun(benchmark::State& state) {
  HistoryStore& store = Store();
  const std::string text = RunText(kRuns + 7);
  absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(text, "new");
  CheckOptions options;
  options.machine = "bench / 2 CPUs";
  options.branch = "main";
  size_t checked = 0;
  for (auto _ : state) {
    absl::StatusOr<Comparison> c =
        CompareWithHistory(store, *file, RunDigest(text), options);
    absl::StatusOr<Gate> gate = ParseGate("counter0>+0.5%", MetricNames(*c));
    checked = EvaluateGates(*c, {*gate})[0].checked;
  }
  state.counters["series_checked"] = static_cast<double>(checked);
}
BENCHMARK(BM_CheckOneRun)->Unit(benchmark::kMillisecond)->Iterations(1);

// Arg 0: the robust method (the default), 1: Otava's.
void BM_ChangesEverySeries(benchmark::State& state) {
  HistoryStore& store = Store();
  ChangePointOptions options;
  options.method =
      state.range(0) == 0 ? ChangeMethod::kRobust : ChangeMethod::kOtava;
  size_t series_count = 0, changes = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<Series>> series = ReadSeries(store, {});
    series_count = series->size();
    changes = FindSeriesChanges(*series, options).size();
  }
  state.counters["series"] = static_cast<double>(series_count);
  state.counters["change_points"] = static_cast<double>(changes);
}
BENCHMARK(BM_ChangesEverySeries)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Arg(0)
    ->Arg(1);

}  // namespace

BENCHMARK_MAIN();
