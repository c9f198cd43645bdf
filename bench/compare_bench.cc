// compare_bench.cc: how fast `perfcounters compare` is on two Google
// Benchmark JSON files of 10,000 benchmarks x 3 repetitions (with their
// mean/median/stddev/cv aggregates and three counters each), the size on
// which Google Benchmark's tools/compare.py takes about 69 s.
//
//   compare_bench                      run the benchmarks (files in /tmp)
//   compare_bench --generate DIR       only write DIR/base.json, DIR/new.json
//                                      (then: time perfcounters compare ...)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "compare.h"
#include "compare_output.h"
#include "gbench_json.h"
#include "generated_json.h"

namespace {

using perfcounters::tools::BenchmarkFile;
using perfcounters::tools::LoadBenchmarkJson;

constexpr int kBenchmarks = 10000;

void Generate(const std::string& path, unsigned seed, double shift) {
  perfcounters::bench_support::GenerateGbenchJson(path, seed, shift,
                                                  kBenchmarks);
}

std::string g_base, g_new;

// What the command does: load both files in parallel, compare, render.
void BM_CompareTenThousandTimesThree(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<BenchmarkFile> base;
    std::thread loader([&] { base = LoadBenchmarkJson(g_base); });
    absl::StatusOr<BenchmarkFile> next = LoadBenchmarkJson(g_new);
    loader.join();
    if (!base.ok() || !next.ok()) {
      state.SkipWithError("cannot load the generated files");
      return;
    }
    const auto comparison = perfcounters::tools::Compare(*base, *next);
    const std::string table = perfcounters::tools::Render(
        comparison, {}, perfcounters::tools::Format::kTable, false);
    bytes = table.size();
    benchmark::DoNotOptimize(table.data());
  }
  state.counters["table_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_CompareTenThousandTimesThree)->Unit(benchmark::kMillisecond);

// Parsing alone, one file.
void BM_ParseOneFile(benchmark::State& state) {
  for (auto _ : state) {
    auto file = LoadBenchmarkJson(g_base);
    if (!file.ok()) {
      state.SkipWithError("cannot load the generated file");
      return;
    }
    benchmark::DoNotOptimize(file->entries.data());
  }
}
BENCHMARK(BM_ParseOneFile)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--generate") {
    Generate(absl::StrCat(argv[2], "/base.json"), 1, 1.0);
    Generate(absl::StrCat(argv[2], "/new.json"), 2, 1.01);
    return 0;
  }
  const std::string dir = absl::StrCat("/tmp/compare_bench.", getpid());
  std::system(absl::StrCat("mkdir -p ", dir).c_str());
  g_base = dir + "/base.json";
  g_new = dir + "/new.json";
  Generate(g_base, 1, 1.0);
  Generate(g_new, 2, 1.01);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::remove(g_base.c_str());
  std::remove(g_new.c_str());
  rmdir(dir.c_str());
  return 0;
}
