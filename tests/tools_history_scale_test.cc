// tools_history_scale_test.cc: `history check` of one run reads what that
// run needs, not the store (issue 39 item 8): its CPU time and peak RSS do
// not grow when the store holds 4x more runs. A store of 150 benchmarks x 4
// metrics is filled (in process, AddRun) with 250 runs, then with 1,000;
// after each, the built command checks a new run with a gate on one metric
// (150 series, each judged on at most the latest 200 runs, the lookback)
// three times, and the least CPU time (user + system) and peak RSS of the
// three, from wait4(2) (bench/run_child.h), are compared: no bound is assumed,
// both come from this test's own measurements.
//
// Reading every stored point of a gated series would read 4x more rows
// from the larger store (150,000 instead of 37,500): measured at about
// +95 % CPU time for the check (0.091 s against 250 runs, 0.177 s against
// 1,000) before the points query started at the oldest run read (0.092 s
// and 0.098 s since); the bound allows +25 % and 20 ms of noise.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gbench_json.h"
#include "gtest/gtest.h"
#include "history.h"
#include "history_store.h"
#include "run_child.h"
#include "support/sanitizers.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

constexpr int kBenchmarks = 150;
constexpr int kCounters = 2;  // + real_time and cpu_time

// Run `run`'s JSON: every benchmark at a level with 0.1 % noise.
std::string RunText(int run) {
  std::string out = absl::StrCat(
      "{\"context\":{\"date\":\"2026-11-30T00:00:00Z\",\"host_name\":"
      "\"scale\",\"num_cpus\":2,\"mhz_per_cpu\":3000},\"benchmarks\":[");
  uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(run + 1);
  auto noise = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (static_cast<double>(state >> 11) * 0x1p-53 - 0.5) * 0.002;
  };
  for (int b = 0; b < kBenchmarks; ++b) {
    absl::StrAppend(&out, b ? "," : "", "{\"name\":\"BM_scale/", b,
                    "\",\"run_name\":\"BM_scale/", b,
                    "\",\"run_type\":\"iteration\",\"iterations\":1000,"
                    "\"real_time\":",
                    (1000 + b) * (1 + noise()),
                    ",\"cpu_time\":", (990 + b) * (1 + noise()),
                    ",\"time_unit\":\"ns\"");
    for (int c = 0; c < kCounters; ++c) {
      absl::StrAppend(&out, ",\"counter", c,
                      "\":", (1e4 + 100 * c + b) * (1 + noise()));
    }
    out += "}";
  }
  return out + "]}";
}

class HistoryScale : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath("scale");
    ASSERT_TRUE(testing::MakeDirectories(dir_, /*fresh=*/true));
    db_ = dir_ + "/history.db";
    run_ = dir_ + "/run.json";
    std::ofstream(run_) << RunText(1 << 20);
    absl::StatusOr<std::unique_ptr<HistoryStore>> store = OpenHistoryStore(db_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    // The store is filled for the test only: no fsync per run.
    ASSERT_TRUE(store_->Exec("PRAGMA synchronous = OFF").ok());
  }

  // Adds runs up to `runs` in all.
  void FillTo(int runs) {
    for (; added_ < runs; ++added_) {
      const std::string text = RunText(added_);
      absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(text, "scale");
      ASSERT_TRUE(file.ok()) << file.status();
      RunIdentity id;
      id.branch = "main";
      id.commit = absl::StrCat("c", added_);
      id.time = absl::StrFormat("2026-%02d-%02dT%02d:00:00Z", 1 + added_ / 672,
                                1 + added_ / 24 % 28, added_ % 24);
      absl::StatusOr<RunIdentity> resolved = ResolveIdentity(*file, id);
      ASSERT_TRUE(resolved.ok()) << resolved.status();
      absl::StatusOr<AddResult> r = AddRun(*store_, text, *file, *resolved);
      ASSERT_TRUE(r.ok()) << r.status();
    }
  }

  // The least CPU time and peak RSS of three checks of run_.
  bench::Child Check() {
    bench::Child best;
    best.cpu_seconds = 1e9;
    best.peak_rss = UINT64_MAX;
    for (int i = 0; i < 3; ++i) {
      const bench::Child c = bench::RunChild(
          testing::ToolPath(),
          {"history", "check", run_, "--db", db_, "--branch", "main",
           "--fail-on", "counter0>+50%", "-o", "/dev/null"});
      EXPECT_EQ(c.status, 0) << "history check exited with " << c.status;
      best.cpu_seconds = std::min(best.cpu_seconds, c.cpu_seconds);
      best.peak_rss = std::min(best.peak_rss, c.peak_rss);
    }
    return best;
  }

  std::string dir_, db_, run_;
  std::unique_ptr<HistoryStore> store_;
  int added_ = 0;
};

TEST_F(HistoryScale, CheckOfOneRunDoesNotGrowWithTheStore) {
  if (::perfcounters::testing::kSanitizer != nullptr) {
    GTEST_SKIP() << "the command is built with "
                 << ::perfcounters::testing::kSanitizer
                 << ": its CPU time and memory are the sanitizer's";
  }
  FillTo(250);
  if (HasFatalFailure()) return;
  const bench::Child small = Check();
  FillTo(1000);
  if (HasFatalFailure()) return;
  const bench::Child large = Check();
  std::printf(
      "check against 250 runs: %.3f s CPU, %.1f MB; against 1,000 runs: "
      "%.3f s CPU, %.1f MB\n",
      small.cpu_seconds, static_cast<double>(small.peak_rss) / 1e6,
      large.cpu_seconds, static_cast<double>(large.peak_rss) / 1e6);
  EXPECT_LE(large.cpu_seconds, small.cpu_seconds * 1.25 + 0.02);
  EXPECT_LE(static_cast<double>(large.peak_rss),
            static_cast<double>(small.peak_rss) * 1.10 + 1e6);
}

}  // namespace
}  // namespace perfcounters::tools
