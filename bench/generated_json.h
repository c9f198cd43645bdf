// generated_json.h: Google Benchmark JSON files for the tools' benchmarks,
// with three counters per entry and 3 repetitions per benchmark, in one of
// two shapes (Shape): as Google Benchmark 1.7.1 writes them (same keys, same
// layout, the mean/median/stddev/cv aggregates), or many small entries
// (whose repetitions and counters per entry a SmallEntries can change:
// 1 repetition without counters, gbench's default; 40 counters).
#ifndef PERFCOUNTERS_BENCH_GENERATED_JSON_H_
#define PERFCOUNTERS_BENCH_GENERATED_JSON_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perfcounters::bench_support {

inline constexpr int kRepetitions = 3;

enum class Shape {
  // Google Benchmark 1.7.1's layout: indented, every key, 3 repetitions and
  // 4 aggregates per benchmark (about 3.6 KB a benchmark).
  kGbench,
  // Small entries: one line each, the keys compare needs (name, run_name,
  // run_type, repetitions, repetition_index, iterations, times, time_unit,
  // 3 counters), 3 repetitions and no aggregates (about 0.8 KB a
  // benchmark): the most entries per byte.
  kSmallEntries,
};

// Shape::kSmallEntries' repetitions per benchmark and counters per entry
// (3 of each: cycles, instructions, page-faults; other counts: ctr00,
// ctr01, ...).
struct SmallEntries {
  int repetitions = kRepetitions;
  int counters = 3;
};

// Writes `path`: `benchmarks` benchmarks, or as many as make at least
// `min_bytes` when that is larger. `shift` scales the times (the "new" file
// of a pair). Returns the bytes written; exits on a write error.
inline uint64_t GenerateGbenchJson(const std::string& path, unsigned seed,
                                   double shift, int benchmarks,
                                   uint64_t min_bytes = 0,
                                   Shape shape = Shape::kGbench,
                                   SmallEntries small = {}) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, 0.01);
  uint64_t written = 0;
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
  for (int b = 0; b < benchmarks || written + out.size() < min_bytes; ++b) {
    const std::string name = absl::StrCat("BM_Generated", b % 100, "/", b);
    const double base_time = 100.0 + b % 977;
    double sum[4] = {};
    auto entry = [&](const std::string& full, const char* run_type,
                     const std::string& extra, double t, double cycles,
                     double instructions, double faults) {
      absl::StrAppend(&out, first ? "" : ",\n", "    {");
      first = false;
      if (shape == Shape::kSmallEntries) {
        absl::StrAppendFormat(
            &out,
            "\"name\":\"%s\",\"run_name\":\"%s\",\"run_type\":\"%s\","
            "\"repetitions\":%d,%s\"iterations\":%d,\"real_time\":%.9g,"
            "\"cpu_time\":%.9g,\"time_unit\":\"ns\"",
            full, name, run_type, small.repetitions, extra, 1000000, t,
            t * 0.999);
        if (small.counters == 3) {
          absl::StrAppendFormat(&out,
                                ",\"cycles\":%.9g,\"instructions\":%.9g,"
                                "\"page-faults\":%.9g",
                                cycles, instructions, faults);
        } else {
          for (int c = 0; c < small.counters; ++c) {
            absl::StrAppendFormat(&out, ",\"ctr%02d\":%.9g", c,
                                  cycles * (1 + c % 7));
          }
        }
        out += "}";
        return;
      }
      out += "\n";
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
    const int repetitions =
        shape == Shape::kSmallEntries ? small.repetitions : kRepetitions;
    for (int r = 0; r < repetitions; ++r) {
      const double t = base_time * shift * noise(rng);
      const double cycles = t * 3.0 * noise(rng);
      const double instructions = base_time * 6.0;
      const double faults = (b % 7) * noise(rng);
      sum[0] += t;
      sum[1] += cycles;
      sum[2] += instructions;
      sum[3] += faults;
      entry(name, "iteration",
            shape == Shape::kSmallEntries
                ? absl::StrCat("\"repetition_index\":", r, ",")
                : absl::StrCat("      \"repetition_index\": ", r, ",\n"),
            t, cycles, instructions, faults);
    }
    for (const char* agg : {"mean", "median", "stddev", "cv"}) {
      if (shape == Shape::kSmallEntries) break;
      const bool central = agg[0] == 'm';
      const double k = central ? 1.0 / repetitions : 0.001;
      entry(absl::StrCat(name, "_", agg), "aggregate",
            absl::StrCat("      \"aggregate_name\": \"", agg,
                         "\",\n      \"aggregate_unit\": \"time\",\n"),
            sum[0] * k, sum[1] * k, sum[2] * k, sum[3] * k);
    }
    if (out.size() > (1 << 20)) {
      if (std::fwrite(out.data(), 1, out.size(), f) != out.size()) break;
      written += out.size();
      out.clear();
    }
  }
  out += "\n  ]\n}\n";
  const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  written += out.size();
  if (std::fclose(f) != 0 || !ok) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(2);
  }
  return written;
}

}  // namespace perfcounters::bench_support

#endif  // PERFCOUNTERS_BENCH_GENERATED_JSON_H_
