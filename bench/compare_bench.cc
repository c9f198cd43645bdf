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
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "compare.h"
#include "gbench_json.h"

namespace {

using perfcounters::tools::BenchmarkFile;
using perfcounters::tools::LoadBenchmarkJson;

constexpr int kBenchmarks = 10000;
constexpr int kRepetitions = 3;

// Writes a file as Google Benchmark 1.7.1 does (same keys, same layout).
// `shift` scales the times of the new file.
void Generate(const std::string& path, unsigned seed, double shift) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, 0.01);
  std::string out = R"({
  "context": {
    "date": "2026-11-29T20:00:00+00:00",
    "host_name": "bench",
    "executable": "./generated",
    "num_cpus": 2,
    "mhz_per_cpu": 2400,
    "cpu_scaling_enabled": false,
    "library_build_type": "release"
  },
  "benchmarks": [
)";
  bool first = true;
  for (int b = 0; b < kBenchmarks; ++b) {
    const std::string name = absl::StrCat("BM_Generated", b % 100, "/", b);
    const double base_time = 100.0 + b % 977;
    double sum[4] = {};
    auto entry = [&](const std::string& full, const char* run_type,
                     const std::string& extra, double t, double cycles,
                     double instructions, double faults) {
      absl::StrAppend(&out, first ? "" : ",\n", "    {\n");
      first = false;
      absl::StrAppendFormat(
          &out,
          "      \"name\": \"%s\",\n      \"family_index\": %d,\n"
          "      \"per_family_instance_index\": %d,\n"
          "      \"run_name\": \"%s\",\n      \"run_type\": \"%s\",\n"
          "      \"repetitions\": %d,\n%s      \"threads\": 1,\n"
          "      \"iterations\": %d,\n      \"real_time\": %.17g,\n"
          "      \"cpu_time\": %.17g,\n      \"time_unit\": \"ns\",\n"
          "      \"cycles\": %.17g,\n      \"instructions\": %.17g,\n"
          "      \"page-faults\": %.17g\n    }",
          full, b % 100, b / 100, name, run_type, kRepetitions, extra, 1000000,
          t, t * 0.999, cycles, instructions, faults);
    };
    for (int r = 0; r < kRepetitions; ++r) {
      const double t = base_time * shift * noise(rng);
      const double cycles = t * 3.0 * noise(rng);
      const double instructions = base_time * 6.0;
      const double faults = (b % 7) * noise(rng);
      sum[0] += t;
      sum[1] += cycles;
      sum[2] += instructions;
      sum[3] += faults;
      entry(name, "iteration",
            absl::StrCat("      \"repetition_index\": ", r, ",\n"), t, cycles,
            instructions, faults);
    }
    for (const char* agg : {"mean", "median", "stddev", "cv"}) {
      const bool central = agg[0] == 'm';
      const double k = central ? 1.0 / kRepetitions : 0.001;
      entry(absl::StrCat(name, "_", agg), "aggregate",
            absl::StrCat("      \"aggregate_name\": \"", agg,
                         "\",\n      \"aggregate_unit\": \"time\",\n"),
            sum[0] * k, sum[1] * k, sum[2] * k, sum[3] * k);
    }
  }
  out += "\n  ]\n}\n";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(out.data(), 1, out.size(), f) != out.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(2);
  }
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
