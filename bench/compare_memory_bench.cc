// compare_memory_bench.cc: the peak memory (RSS) of `perfcounters compare`
// in each output format and of `perfcounters report`, against the target:
// peak RSS at most 3x the two inputs' size, whatever their shape. Five
// pairs of generated Google Benchmark JSON files (generated_json.h):
//   2x15MB     gbench's layout, about 4,000 benchmarks x 3 repetitions with
//              aggregates each (few, large entries);
//   2x<N>MB    the same layout, --mb N MB each (default 200);
//   2x<K>k     many small entries: --benchmarks K thousand benchmarks
//              (default 60) x 3 repetitions, one compact line each and no
//              aggregates (about 47 MB each at 60,000): the most entries,
//              names and rows per byte of input;
//   2x200k_1rep compact entries of 200,000 benchmarks x 1 repetition
//              without counters (gbench's default run; about 37 MB each):
//              the most benchmarks per byte;
//   2x6k_40ctr compact entries of 6,000 benchmarks x 3 repetitions x 40
//              counters (about 15 MB each): the most metrics per byte.
// Each case runs the built command as a child and reads its peak RSS from
// wait4(2) (rss_per_input is the ratio to the target); the time is the
// child's wall time, cpu_s its CPU time. The inputs are written under
// $TMPDIR and removed afterwards.
//
//   compare_memory_bench [--mb N] [--benchmarks K] [--tool PATH]
//                        [gbench flags]
//   compare_memory_bench --generate DIR [--mb N] [--benchmarks K]
//       only write the pairs to DIR (then: /usr/bin/time -v perfcounters
//       compare DIR/many_base.json DIR/many_new.json --format json ...)
//
// --tool runs another build of the command (e.g. an older one, to compare).
// Measured (--mb 15, RelWithDebInfo, shared 2-core VM), table and json
// alike: 2x15MB 43.6 MB, 1.45x; 2x60k_small 209 MB, 2.10x; 2x200k_1rep
// 223 MB, 2.60x; 2x6k_40ctr 97.8 MB, 2.81x (json before the comparison's
// index and samples were made small: 1.67x, 2.86x, 3.75x, 3.69x). The
// cost is per benchmark and per metric, not per input byte;
// tests/tools_compare_memory_test.cc bounds it. docs/tools.md has the
// table.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "generated_json.h"
#include "run_child.h"

namespace {

struct Inputs {
  std::string base, next;
  uint64_t bytes = 0;  // both together
};
Inputs g_small, g_big, g_many, g_tiny, g_wide;
std::string g_dir;
std::string g_tool = PERFCOUNTERS_TOOL;

using perfcounters::bench_support::Child;

Child RunTool(const std::vector<std::string>& args) {
  return perfcounters::bench_support::RunChild(g_tool, args);
}

void Measure(benchmark::State& state, const Inputs& in,
             const std::vector<std::string>& args) {
  Child c;
  for (auto _ : state) {
    c = RunTool(args);
    state.SetIterationTime(c.seconds);
  }
  if (c.status != 0 && c.status != 1) {
    state.SkipWithError(
        absl::StrCat("the command exited with ", c.status).c_str());
    return;
  }
  state.counters["input_mb"] = static_cast<double>(in.bytes) / 1e6;
  // CPU time says more than wall time on a loaded machine.
  state.counters["cpu_s"] = c.cpu_seconds;
  state.counters["peak_rss_mb"] = static_cast<double>(c.peak_rss) / 1e6;
  // The target: <= 3.
  state.counters["rss_per_input"] =
      static_cast<double>(c.peak_rss) / static_cast<double>(in.bytes);
}

void BM_Compare(benchmark::State& state, const Inputs* in, const char* format) {
  Measure(state, *in,
          {"compare", in->base, in->next, "--format", format, "-o",
           absl::StrCat(g_dir, "/out.", format)});
}
void BM_Report(benchmark::State& state, const Inputs* in) {
  Measure(state, *in, {"report", in->base, in->next, "-o", g_dir + "/r.html"});
}

Inputs Make(const std::string& tag, uint64_t min_bytes, int benchmarks,
            perfcounters::bench_support::Shape shape,
            perfcounters::bench_support::SmallEntries small = {}) {
  Inputs in;
  in.base = absl::StrCat(g_dir, "/", tag, "_base.json");
  in.next = absl::StrCat(g_dir, "/", tag, "_new.json");
  in.bytes = perfcounters::bench_support::GenerateGbenchJson(
                 in.base, 1, 1.0, benchmarks, min_bytes, shape, small) +
             perfcounters::bench_support::GenerateGbenchJson(
                 in.next, 2, 1.01, benchmarks, min_bytes, shape, small);
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t mb = 200;
  int thousands = 60;
  std::string generate;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mb") == 0 && i + 1 < argc) {
      mb = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--benchmarks") == 0 && i + 1 < argc) {
      thousands = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--generate") == 0 && i + 1 < argc) {
      generate = argv[++i];
    } else if (std::strcmp(argv[i], "--tool") == 0 && i + 1 < argc) {
      g_tool = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  const char* tmp = std::getenv("TMPDIR");
  g_dir = !generate.empty() ? generate
                            : absl::StrCat(tmp != nullptr ? tmp : "/tmp",
                                           "/compare_memory.", getpid());
  if (std::system(absl::StrCat("mkdir -p '", g_dir, "'").c_str()) != 0)
    return 2;
  using perfcounters::bench_support::Shape;
  g_small = Make("small", 15000000, 0, Shape::kGbench);
  g_big = Make("big", mb * 1000000, 0, Shape::kGbench);
  g_many = Make("many", 0, thousands * 1000, Shape::kSmallEntries);
  g_tiny = Make("tiny", 0, 200000, Shape::kSmallEntries,
                {.repetitions = 1, .counters = 0});
  g_wide = Make("wide", 0, 6000, Shape::kSmallEntries,
                {.repetitions = 3, .counters = 40});
  const std::vector<std::pair<const Inputs*, std::string>> cases = {
      {&g_small, "2x15MB"},
      {&g_big, absl::StrCat("2x", mb, "MB")},
      {&g_many, absl::StrCat("2x", thousands, "k_small")},
      {&g_tiny, "2x200k_1rep"},
      {&g_wide, "2x6k_40ctr"}};
  if (!generate.empty()) {
    for (const auto& [in, tag] : cases) {
      std::printf("%s: %s %s, %.1f MB together\n", tag.c_str(),
                  in->base.c_str(), in->next.c_str(),
                  static_cast<double>(in->bytes) / 1e6);
    }
    return 0;
  }
  for (const auto& [in, tag] : cases) {
    for (const char* format : {"table", "markdown", "json"}) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Compare/", tag, "/", format).c_str(), BM_Compare, in,
          format)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(absl::StrCat("BM_Report/", tag).c_str(),
                                 BM_Report, in)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::system(absl::StrCat("rm -rf '", g_dir, "'").c_str());
  return 0;
}
