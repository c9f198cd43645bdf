// pause_cost_bench.cc: what a perfcounters::PauseTiming/ResumeTiming pair
// per iteration costs gbench's own Time and CPU columns, and what it leaves
// in the counters (issue 38, item 3).
//
// Two bodies, each with one pause pair per iteration:
//
//   BM_Body240   ~240 ns of arithmetic; the pause pair pauses nothing
//   BM_Sort/256  std::sort of 256 ints; the pause pair refills them
//
// each run several ways:
//
//   /gbench      `for (auto _ : state)` with state.PauseTiming() and
//                state.ResumeTiming(): gbench's own pause, the yardstick
//                of Time and CPU
//   /measure     `for (auto _ : perfcounters::Measure(state))` with
//                perfcounters::PauseTiming(state)/ResumeTiming(state), in
//                the order the library chooses for the event list: the
//                counters inside gbench's timer where every group is read
//                from user space, outside it (gbench's pause and resume
//                counted, and calibrated away) where a group is read with
//                read(2)
//   /nopause     Measure without the pause (BM_Body240 only): the
//                counters' yardstick
//
// under three event lists, each its own round through gbench: none,
// task-clock, and three events in two groups
// ({task-clock,page-faults},context-switches).
//
// (--pause_cost_events=LIST[;LIST...] runs these lists instead, e.g.
// instructions:u in the emulated arm64 machine, where it is exact.)
//
// The summary gives per list the order chosen, each way's Time and CPU over
// /gbench's (issue 38's target: <= 1.10), and per counter the value with
// the pause [the least..the greatest repetition] against /nopause's
// (BM_Body240) or task-clock against gbench's CPU (BM_Sort/256). Medians of
// the repetitions (--benchmark_repetitions, default 5 here, interleaved at
// random unless --benchmark_enable_random_interleaving says otherwise).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"

namespace pause_cost {
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

// A counter's least and greatest value over the repetitions.
struct Spread {
  double least = 0, most = 0;
};

// One reported row: CPU and real time (ns per iteration) and counters
// (medians), and each counter's least and greatest repetition.
struct Row {
  double cpu = 0, real = 0;
  std::map<std::string, double> counters;
  std::map<std::string, Spread> range;
};

// Rows by name (median over the repetitions), printed as gbench does.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // gbench reports the repetitions and the aggregates in separate calls.
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      auto& range = ranges_[run.run_name.str()];
      for (const auto& [key, counter] : run.counters) {
        auto [it, added] =
            range.try_emplace(key, Spread{counter.value, counter.value});
        it->second.least = std::min(it->second.least, counter.value);
        it->second.most = std::max(it->second.most, counter.value);
      }
    }
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
      row.range = ranges_[run.run_name.str()];
      std::string name = run.benchmark_name();
      const size_t median = name.rfind("_median");
      if (median != std::string::npos) name.resize(median);
      rows[name] = row;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, Row> rows;

 private:
  // Each counter's least and greatest repetition, by run name.
  std::map<std::string, std::map<std::string, Spread>> ranges_;
};

void Register() {
  benchmark::RegisterBenchmark("BM_Body240/gbench", BM_Body240Gbench);
  benchmark::RegisterBenchmark("BM_Body240/measure", BM_Body240Measure);
  benchmark::RegisterBenchmark("BM_Body240/nopause", BM_Body240NoPause);
  benchmark::RegisterBenchmark("BM_Sort/gbench", BM_SortGbench)->Arg(256);
  benchmark::RegisterBenchmark("BM_Sort/measure", BM_SortMeasure)->Arg(256);
}

// The order Measure's pause takes for `plan` on this thread: inside
// gbench's timer when every open group is read from user space.
std::string Order(const perfcounters::Plan& plan) {
  if (plan.groups.empty()) return "no counters";
  perfcounters::CountersOptions options;
  options.calibrate = false;
  const perfcounters::Counters c = perfcounters::Counters::Open(plan, options);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    if (!c.user_space(g) && c.user_space_reason(g) != "not open") {
      return "counters outside gbench's timer: read(2)";
    }
  }
  return "counters inside gbench's timer: user-space reads";
}

std::string Ratio(double a, double b) {
  if (b <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", a / b);
  return text;
}

// One way's line: Time and CPU against gbench's pause; its counters against
// the unpaused loop's (or task-clock against gbench's CPU).
void PrintWay(const char* way, const Row& m, const Row& g, const Row* nopause) {
  std::printf("  %-10s CPU %8.1f ns (%sx), Time %8.1f ns (%sx)\n", way, m.cpu,
              Ratio(m.cpu, g.cpu).c_str(), m.real,
              Ratio(m.real, g.real).c_str());
  for (const auto& [key, value] : m.counters) {
    if (key.find('.') != std::string::npos) continue;
    if (nopause != nullptr) {
      auto it = nopause->counters.find(key);
      if (it == nopause->counters.end()) continue;
      const auto r = m.range.find(key);
      std::printf(
          "  %-10s   %-16s %10.3f [%.3f..%.3f], without the pause %10.3f "
          "(%+.3f)\n",
          "", key.c_str(), value, r == m.range.end() ? 0 : r->second.least,
          r == m.range.end() ? 0 : r->second.most, it->second,
          value - it->second);
    } else if (key == "task-clock") {
      std::printf("  %-10s   %-16s %10.3f (%sx gbench's CPU)\n", "",
                  key.c_str(), value, Ratio(value, g.cpu).c_str());
    }
  }
}

void PrintRound(const std::string& title, const std::string& order,
                const std::map<std::string, Row>& rows) {
  auto find = [&](const std::string& name) -> const Row* {
    auto it = rows.find(name);
    return it == rows.end() ? nullptr : &it->second;
  };
  std::printf("\n%s (%s):\n", title.c_str(), order.c_str());
  for (const std::string body : {"BM_Body240", "BM_Sort"}) {
    const std::string arg = body == "BM_Sort" ? "/256" : "";
    const Row* g = find(body + "/gbench" + arg);
    if (g == nullptr) continue;
    std::printf(" %s: gbench's pause CPU %8.1f ns, Time %8.1f ns\n",
                body.c_str(), g->cpu, g->real);
    const Row* n = find(body + "/nopause" + arg);
    if (const Row* m = find(body + "/measure" + arg)) {
      PrintWay("measure", *m, *g, n);
    }
  }
}

}  // namespace
}  // namespace pause_cost

int main(int argc, char** argv) {
  pause_cost::Register();
  std::vector<char*> args(argv, argv + argc);
  // 5 repetitions, interleaved at random (a change of load then falls on
  // every way alike), unless given.
  std::string reps = "--benchmark_repetitions=5";
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  for (std::string* flag : {&reps, &interleave}) {
    const std::string name = flag->substr(0, flag->find('='));
    bool given = false;
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]).rfind(name, 0) == 0) given = true;
    }
    if (!given) args.insert(args.begin() + 1, flag->data());
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  // --pause_cost_events=LIST[;LIST...]: these event lists instead (the
  // emulated arm64 machine's exact instructions, for example).
  std::vector<std::pair<std::string, std::string>> rounds = {
      {"no events", ""},
      {"task-clock", "task-clock"},
      {"three events in two groups",
       "{task-clock,page-faults},context-switches"},
  };
  int kept = 1;
  for (int i = 1; i < n; ++i) {
    const std::string arg = args[i];
    const std::string flag = "--pause_cost_events=";
    if (arg.rfind(flag, 0) != 0) {
      args[kept++] = args[i];
      continue;
    }
    rounds.clear();
    for (const absl::string_view list :
         absl::StrSplit(arg.substr(flag.size()), ';')) {
      rounds.emplace_back(std::string(list), std::string(list));
    }
  }
  n = kept;
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  struct Round {
    std::string title;
    std::string order;
    std::map<std::string, pause_cost::Row> rows;
  };
  std::vector<Round> results;
  for (const auto& [title, events] : rounds) {
    absl::StatusOr<perfcounters::Plan> plan =
        perfcounters::SetBenchmarkEvents(events);
    if (!plan.ok()) {
      std::fprintf(stderr, "pause_cost_bench: %s: %s\n", events.c_str(),
                   std::string(plan.status().message()).c_str());
      return 1;
    }
    std::printf("\n== %s ==\n", title.c_str());
    std::fflush(stdout);
    pause_cost::Collector collector;
    benchmark::RunSpecifiedBenchmarks(&collector);
    results.push_back({title, pause_cost::Order(*plan), collector.rows});
  }
  benchmark::Shutdown();
  std::printf(
      "\nSummary (medians; Time/CPU over gbench's own pause, issue 38's "
      "target <= 1.10):\n");
  for (const Round& r : results) {
    pause_cost::PrintRound(r.title, r.order, r.rows);
  }
  return 0;
}
