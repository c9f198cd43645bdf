// pause_cost_bench.cc: what a perfcounters::PauseTiming/ResumeTiming pair
// per iteration costs gbench's own Time and CPU columns, and what it leaves
// in the counters.
//
// Two bodies, each with one pause pair per iteration:
//
//   BM_Body240   ~240 ns of arithmetic; the pause pair pauses nothing
//   BM_Sort/256  std::sort of 256 ints; the pause pair refills them
//
// each run three ways:
//
//   /gbench      `for (auto _ : state)` with state.PauseTiming() and
//                state.ResumeTiming(): gbench's own pause, the yardstick
//                of Time and CPU
//   /measure     `for (auto _ : perfcounters::Measure(state))` with
//                perfcounters::PauseTiming(state)/ResumeTiming(state)
//   /nopause     Measure without the pause (BM_Body240 only): the
//                counters' yardstick
//
// under four event lists, each its own round through gbench: none,
// task-clock, and three events in two groups
// ({task-clock,page-faults},context-switches).
//
// The summary gives per list: /measure's Time and CPU over /gbench's
// (target <= 1.10), and per counter /measure's value over /nopause's
// (BM_Body240) and task-clock over /gbench's CPU (BM_Sort/256). Medians of
// the repetitions (--benchmark_repetitions, default 5 here). Each list is
// calibrated as perfcounters' main calibrates it (the pause through
// gbench's real timer, CalibrateGbenchTimer); its calibration per pause is
// printed before its rows.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "measure_internal.h"
#include "perfcounters/benchmark.h"

namespace {

// ~240 ns of dependent multiply-adds on a current x86-64 core.
constexpr int kBodySteps = 180;

inline void Body240() {
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (int i = 0; i < kBodySteps; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    benchmark::DoNotOptimize(x);
  }
}

void BM_Body240Gbench(benchmark::State& state) {
  for (auto _ : state) {
    Body240();
    state.PauseTiming();
    state.ResumeTiming();
  }
}

void BM_Body240Measure(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) {
    Body240();
    perfcounters::PauseTiming(state);
    perfcounters::ResumeTiming(state);
  }
}

void BM_Body240NoPause(benchmark::State& state) {
  for (auto _ : perfcounters::Measure(state)) Body240();
}

std::vector<int> Shuffled(size_t n) {
  std::vector<int> v(n);
  std::mt19937 rng(42);
  for (int& x : v) x = static_cast<int>(rng());
  return v;
}

void BM_SortGbench(benchmark::State& state) {
  const std::vector<int> data = Shuffled(static_cast<size_t>(state.range(0)));
  std::vector<int> v = data;
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(data.begin(), data.end(), v.begin());
    state.ResumeTiming();
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
}

void BM_SortMeasure(benchmark::State& state) {
  const std::vector<int> data = Shuffled(static_cast<size_t>(state.range(0)));
  std::vector<int> v = data;
  for (auto _ : perfcounters::Measure(state)) {
    perfcounters::PauseTiming(state);
    std::copy(data.begin(), data.end(), v.begin());
    perfcounters::ResumeTiming(state);
    std::sort(v.begin(), v.end());
    benchmark::DoNotOptimize(v.data());
  }
}

// One reported row: CPU and real time (ns per iteration) and counters.
struct Row {
  double cpu = 0, real = 0;
  std::map<std::string, double> counters;
};

// Rows by name, per round; the median over repetitions is kept.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") {
        continue;
      }
      Row row;
      row.cpu = run.GetAdjustedCPUTime();
      row.real = run.GetAdjustedRealTime();
      for (const auto& [key, counter] : run.counters) {
        row.counters[key] = counter.value;
      }
      std::string name = run.benchmark_name();
      const size_t median = name.rfind("_median");
      if (median != std::string::npos) name.resize(median);
      rows[name] = row;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, Row> rows;
};

struct Round {
  std::string title;
  std::string events;
  perfcounters::ReadMode read_mode;
};

void Register() {
  benchmark::RegisterBenchmark("BM_Body240/gbench", BM_Body240Gbench);
  benchmark::RegisterBenchmark("BM_Body240/measure", BM_Body240Measure);
  benchmark::RegisterBenchmark("BM_Body240/nopause", BM_Body240NoPause);
  benchmark::RegisterBenchmark("BM_Sort/gbench", BM_SortGbench)->Arg(256);
  benchmark::RegisterBenchmark("BM_Sort/measure", BM_SortMeasure)->Arg(256);
}

std::string Ratio(double a, double b) {
  if (b <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", a / b);
  return text;
}

void PrintRound(const Round& round, const std::map<std::string, Row>& rows) {
  auto find = [&](const std::string& name) -> const Row* {
    auto it = rows.find(name);
    return it == rows.end() ? nullptr : &it->second;
  };
  std::printf("\n%s:\n", round.title.c_str());
  for (const char* body : {"BM_Body240", "BM_Sort"}) {
    const std::string suffix = std::string(body) == "BM_Sort" ? "/256" : "";
    const Row* g = find(std::string(body) + "/gbench" + suffix);
    const Row* m = find(std::string(body) + "/measure" + suffix);
    const Row* n = find(std::string(body) + "/nopause" + suffix);
    if (g == nullptr || m == nullptr) {
      std::printf("  %s: not run\n", body);
      continue;
    }
    std::printf(
        "  %-11s gbench's pause CPU %7.1f ns, Time %7.1f ns; Measure's CPU "
        "%7.1f ns (%sx), Time %7.1f ns (%sx)\n",
        body, g->cpu, g->real, m->cpu, Ratio(m->cpu, g->cpu).c_str(), m->real,
        Ratio(m->real, g->real).c_str());
    for (const auto& [key, value] : m->counters) {
      if (key.find('.') != std::string::npos) continue;
      if (n != nullptr) {
        auto it = n->counters.find(key);
        if (it == n->counters.end()) continue;
        std::printf(
            "  %-11s %-16s %10.3f with the pause, %10.3f without "
            "(%sx, %+.3f)\n",
            "", key.c_str(), value, it->second,
            Ratio(value, it->second).c_str(), value - it->second);
      } else {
        std::printf(
            "  %-11s %-16s %10.3f with the pause%s%s\n", "", key.c_str(), value,
            key == "task-clock" ? ", vs gbench's CPU: " : "",
            key == "task-clock" ? (Ratio(value, g->cpu) + "x").c_str() : "");
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  std::vector<char*> args(argv, argv + argc);
  std::string reps = "--benchmark_repetitions=5";
  bool has_reps = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--benchmark_repetitions", 0) == 0) {
      has_reps = true;
    }
  }
  if (!has_reps) args.insert(args.begin() + 1, reps.data());
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  const std::vector<Round> rounds = {
      {"no events", "", perfcounters::ReadMode::kAuto},
      {"task-clock", "task-clock", perfcounters::ReadMode::kAuto},
      {"three events in two groups",
       "{task-clock,page-faults},context-switches",
       perfcounters::ReadMode::kAuto},
  };
  std::vector<std::pair<Round, std::map<std::string, Row>>> results;
  for (const Round& round : rounds) {
    perfcounters::MeasureOptions options;
    options.read_mode = round.read_mode;
    absl::StatusOr<perfcounters::Plan> plan =
        perfcounters::SetBenchmarkEvents(round.events, options);
    if (!plan.ok()) {
      std::fprintf(stderr, "pause_cost_bench: %s: %s\n", round.events.c_str(),
                   std::string(plan.status().message()).c_str());
      return 1;
    }
    std::printf("\n== %s ==\n", round.title.c_str());
    // As perfcounters' main does: this thread's groups, then the pause's
    // calibration through gbench's real timer.
    perfcounters::bench_internal::PrepareCallingThread();
    perfcounters::bench_internal::CalibrateGbenchTimer();
    const perfcounters::bench_internal::MeasurementSetup setup =
        perfcounters::bench_internal::PrepareCallingThread();
    for (const auto& [key, cost] : setup.pause_calibration) {
      std::printf("calibration per pause: %s %llu (spread %llu)\n", key.c_str(),
                  static_cast<unsigned long long>(cost.floor),
                  static_cast<unsigned long long>(cost.spread));
    }
    std::fflush(stdout);
    Collector collector;
    benchmark::RunSpecifiedBenchmarks(&collector, "^BM_");
    results.emplace_back(round, collector.rows);
  }
  benchmark::Shutdown();
  std::printf(
      "\nSummary (medians; Measure's Time/CPU over gbench's own pause, "
      "target <= 1.10):\n");
  for (const auto& [round, rows] : results) PrintRound(round, rows);
  return 0;
}
