// tools_history_scale_test.cc: `history check` of one run reads what that
// run needs, not the store (issue 39 item 8): its CPU time and peak RSS do
// not grow when the store holds 4x more runs. A store of 150 benchmarks x 4
// metrics is filled with 250 runs, then with 1,000; after each, the built
// command checks a new run with a gate on one metric (150 series, each
// judged on at most the latest 200 runs, the lookback) five times, and the
// least CPU time (user + system) and peak RSS of the five, from wait4(2)
// (bench/run_child.h), are compared: no bound is assumed, both come from
// this test's own measurements, and the CPU bound is a ratio, so a faster
// machine does not hide a growth.
//
// Reading every stored point of a gated series reads 4x more rows from the
// larger store (150,000 instead of 37,500): that took 1.95x the CPU time
// (0.091 s against 250 runs, 0.177 s against 1,000, on the development
// VM); the bound is 1.5x.
//
// The store is filled in a child process: fork(2) carries a process's
// peak RSS through execve(2) into the command's ru_maxrss, so this process
// must stay below the command (checked) for the command's peak to be its
// own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Adds runs `from` to `to` (exclusive) to the store at `db`; 0, or 1 after
// printing what failed. Runs in the child process of FillTo().
int AddRuns(const std::string& db, int from, int to) {
  absl::StatusOr<std::unique_ptr<HistoryStore>> store = OpenHistoryStore(db);
  if (!store.ok()) {
    std::fprintf(stderr, "open %s: %s\n", db.c_str(),
                 std::string(store.status().message()).c_str());
    return 1;
  }
  // The store is filled for the test only: no fsync per run.
  if (!(*store)->Exec("PRAGMA synchronous = OFF").ok()) return 1;
  for (int run = from; run < to; ++run) {
    const std::string text = RunText(run);
    absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(text, "scale");
    RunIdentity id;
    id.branch = "main";
    id.commit = absl::StrCat("c", run);
    id.time = absl::StrFormat("2026-%02d-%02dT%02d:00:00Z", 1 + run / 672,
                              1 + run / 24 % 28, run % 24);
    absl::StatusOr<RunIdentity> resolved =
        file.ok() ? ResolveIdentity(*file, id)
                  : absl::StatusOr<RunIdentity>(file.status());
    absl::Status st = resolved.status();
    if (resolved.ok()) st = AddRun(**store, text, *file, *resolved).status();
    if (!st.ok()) {
      std::fprintf(stderr, "run %d: %s\n", run,
                   std::string(st.message()).c_str());
      return 1;
    }
  }
  return 0;
}

class HistoryScale : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath("scale");
    ASSERT_TRUE(testing::MakeDirectories(dir_, /*fresh=*/true));
    db_ = dir_ + "/history.db";
    run_ = dir_ + "/run.json";
    std::ofstream(run_) << RunText(1 << 20);
  }

  // Adds runs up to `runs` in all, in a child process (see the top).
  void FillTo(int runs) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) _exit(AddRuns(db_, added_, runs));
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "filling the store failed (its error is above)";
    added_ = runs;
  }

  // The least CPU time and peak RSS of five checks of run_.
  bench_support::Child Check() {
    bench_support::Child best;
    best.cpu_seconds = 1e9;
    best.peak_rss = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {
      const bench_support::Child c = bench_support::RunChild(
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
  const bench_support::Child small = Check();
  FillTo(1000);
  if (HasFatalFailure()) return;
  const bench_support::Child large = Check();
  std::printf(
      "check against 250 runs: %.3f s CPU, %.1f MB; against 1,000 runs: "
      "%.3f s CPU, %.1f MB\n",
      small.cpu_seconds, static_cast<double>(small.peak_rss) / 1e6,
      large.cpu_seconds, static_cast<double>(large.peak_rss) / 1e6);
  // The command's peak is measured at least as high as this process's
  // (see the top): it must be above it to be the command's own.
  struct rusage self {};
  ASSERT_EQ(getrusage(RUSAGE_SELF, &self), 0);
  const double own = static_cast<double>(self.ru_maxrss) * 1024;
  EXPECT_LT(own * 1.1, static_cast<double>(small.peak_rss))
      << "this test's own peak RSS (" << own / 1e6
      << " MB) is not below the command's: the peaks compared below may be "
         "this process's";
  EXPECT_LE(large.cpu_seconds, small.cpu_seconds * 1.5);
  EXPECT_LE(static_cast<double>(large.peak_rss),
            static_cast<double>(small.peak_rss) * 1.10 + 1e6);
}

}  // namespace
}  // namespace perfcounters::tools
