// history_bench: `perfcounters history` at scale on SQLite: a store of
// 1,000 benchmarks x 20 metrics x 200 runs (4 million values), then adding
// one run (in this process), and, as the built command in a child process
// (its CPU time and peak RSS from wait4(2)), checking one run against the
// history (a gate on one metric of every benchmark: 1,000 series) and
// finding the change points of every series (20,000) by each method. The
// store is built once (minutes) at $PERFCOUNTERS_HISTORY_BENCH_DB, default
// /tmp/perfcounters_history_bench.db, and reused by later runs.
//
//   history_bench [--tool PATH] [gbench flags]
//
// --tool runs another build of the command (e.g. an older one, to compare).
// docs/history.md has the numbers.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

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
#include "run_child.h"

namespace {

using perfcounters::tools::AddResult;
using perfcounters::tools::AddRun;
using perfcounters::tools::BenchmarkFile;
using perfcounters::tools::HistoryStore;
using perfcounters::tools::OpenHistoryStore;
using perfcounters::tools::ParseBenchmarkJson;
using perfcounters::tools::ResolveIdentity;
using perfcounters::tools::RunIdentity;
using perfcounters::tools::SqlType;

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

std::string g_tool = PERFCOUNTERS_TOOL;

// Runs the command on the store; its CPU time and peak RSS as counters.
void MeasureCommand(benchmark::State& state,
                    const std::vector<std::string>& args) {
  Store();
  perfcounters::bench_support::Child c;
  for (auto _ : state) {
    c = perfcounters::bench_support::RunChild(g_tool, args);
    state.SetIterationTime(c.seconds);
  }
  if (c.status != 0 && c.status != 1) {
    state.SkipWithError(
        absl::StrCat("the command exited with ", c.status).c_str());
    return;
  }
  state.counters["cpu_s"] = c.cpu_seconds;
  state.counters["peak_rss_mb"] = static_cast<double>(c.peak_rss) / 1e6;
}

// `history check` of a new run (every benchmark) with a gate on counter0:
// the history of 1,000 series of 200 runs.
void BM_CheckOneRun(benchmark::State& state) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string run = absl::StrCat(
      tmp != nullptr ? tmp : "/tmp", "/history_bench_run.", getpid(), ".json");
  const std::string text = RunText(kRuns + 7);
  FILE* f = std::fopen(run.c_str(), "wb");
  if (f == nullptr ||
      std::fwrite(text.data(), 1, text.size(), f) != text.size() ||
      std::fclose(f) != 0) {
    state.SkipWithError(absl::StrCat("cannot write ", run).c_str());
    return;
  }
  MeasureCommand(state, {"history", "check", run, "--db", StorePath(),
                         "--machine", "bench / 2 CPUs", "--branch", "main",
                         "--fail-on", "counter0>+0.5%", "-o", "/dev/null"});
  std::remove(run.c_str());
}
BENCHMARK(BM_CheckOneRun)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// `history changes` over every series (20,000); arg 0: the robust method
// (the default), 1: Otava's.
void BM_ChangesEverySeries(benchmark::State& state) {
  MeasureCommand(state,
                 {"history", "changes", "--db", StorePath(), "--method",
                  state.range(0) == 0 ? "robust" : "otava", "-o", "/dev/null"});
}
BENCHMARK(BM_ChangesEverySeries)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Arg(0)
    ->Arg(1);

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tool") == 0 && i + 1 < argc) {
      g_tool = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
