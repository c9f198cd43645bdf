// benchmark_ext_interrupt_test.cc: perfcounters' main writes
// --benchmark_out whole. Ctrl-C (SIGINT) or SIGTERM in the middle of a run
// leaves either the old file, untouched, or a complete JSON file of the
// benchmarks that finished — read by gbench's own reader (tools/gbench's
// util.py from the source snapshots, else Python's json) and by
// nlohmann::json — and the exit status says the run was interrupted.
// Each signal is sent on evidence read from the benchmark's output (its
// context or a finished benchmark's last row), never after a fixed sleep.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/subprocess.h"

extern char** environ;

namespace perfcounters {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A benchmark binary running with its stdout and stderr on pipes.
struct Running {
  pid_t pid = -1;
  int out = -1;
  int err = -1;
  std::string out_text;
  std::string err_text;
};

Running Start(std::vector<std::string> argv) {
  Running r;
  int out[2], err[2];
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  // The signals this test sends act as in a terminal, even where the test
  // runs with them ignored (a background job).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const int rc =
      posix_spawn(&r.pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  EXPECT_EQ(rc, 0) << argv[0];
  r.out = out[0];
  r.err = err[0];
  return r;
}

// Reads both pipes until `*text` (the run's out_text or err_text) contains
// `needle` or both pipes end. The 120 s bound only keeps a broken run from
// hanging the test.
bool WaitFor(Running& r, const std::string* text, const std::string& needle) {
  for (int rounds = 0; rounds < 1200; ++rounds) {
    if (text->find(needle) != std::string::npos) return true;
    pollfd fds[2] = {{r.out, POLLIN, 0}, {r.err, POLLIN, 0}};
    if (poll(fds, 2, 100) < 0 && errno != EINTR) return false;
    bool open = false;
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? r.out : r.err;
      if (fd < 0) continue;
      open = true;
      if ((fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buf[4096];
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.out_text : r.err_text).append(buf, static_cast<size_t>(n));
      } else if (n == 0) {
        close(fd);
        fd = -1;
      }
    }
    if (!open) break;
  }
  return text->find(needle) != std::string::npos;
}

// Reads the rest and waits: the exit status, 128 + the signal that ended it.
int Finish(Running& r) {
  WaitFor(r, &r.out_text, std::string(1, '\0'));  // to the end of both pipes
  int status = 0;
  while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string TempDir() {
  std::string dir = "/tmp/pc_interrupt_XXXXXX";
  EXPECT_NE(mkdtemp(dir.data()), nullptr);
  return dir;
}

void WriteText(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

std::string Python() {
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

// The number of benchmark entries gbench's tools read from `path`: its
// util.load_benchmark_results from the snapshot beside the checkout (what
// compare.py calls), else Python's json.load; -1 (with the reason in
// `why`) when Python is missing; -2 when the reader refused the file.
int ReadWithGbenchTools(const std::string& path, const std::string& dir,
                        std::string* why) {
  std::string snapshots = PERFCOUNTERS_GBENCH_SNAPSHOTS;
  if (const char* env = std::getenv("PERFCOUNTERS_GBENCH_SNAPSHOTS")) {
    snapshots = env;
  }
  std::string loader =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))\n";
  const std::string archive = snapshots + "/benchmark-v1.9.5.tar.gz";
  if (access(archive.c_str(), R_OK) == 0 &&
      testing::RunArgv({"tar", "xzf", archive, "-C", dir,
                        "--strip-components=1", "--wildcards",
                        "*/tools/gbench/*"})
              .code == 0) {
    loader =
        "import sys\n"
        "sys.path.insert(0, '" +
        dir +
        "/tools')\n"
        "from gbench import util\n"
        "assert util.classify_input_file(sys.argv[1])[0] == util.IT_JSON\n"
        "r = util.load_benchmark_results(sys.argv[1], None)\n";
  }
  loader += "print(len(r['benchmarks']))\n";
  const testing::RunResult probe = testing::RunArgv({Python(), "-c", "1"});
  if (probe.code != 0) {
    *why = "no python3: " + probe.err;
    return -1;
  }
  const testing::RunResult read =
      testing::RunArgv({Python(), "-c", loader, path});
  *why = read.out + read.err;
  if (read.code != 0) return -2;
  return std::atoi(read.out.c_str());
}

std::vector<std::string> BenchArgs(const std::string& json) {
  return {testing::FindBench(testing::kBench),
          "--perf_counters=task-clock",
          "--benchmark_filter=^BM_TouchPages/4/threads:[124]$",
          "--benchmark_min_time=0.2",
          "--benchmark_repetitions=3",
          "--benchmark_out=" + json,
          "--benchmark_out_format=json"};
}

// Ctrl-C after two of three benchmarks finished: the file is gbench's
// complete JSON of those (at least the first; the second's rows may still
// have been on their way to the file), marked interrupted, and the process
// dies of SIGINT.
TEST(BenchmarkExtInterrupt, SigintWritesTheFinishedBenchmarksAsCompleteJson) {
  const std::string dir = TempDir();
  const std::string json = dir + "/out.json";
  WriteText(json, "the old results\n");
  Running r = Start(BenchArgs(json));
  // The second benchmark's last row: the first is in the file's reporter.
  ASSERT_TRUE(WaitFor(r, &r.out_text, "BM_TouchPages/4/threads:2_cv"))
      << r.out_text << r.err_text;
  ASSERT_EQ(kill(r.pid, SIGINT), 0);
  const int code = Finish(r);
  EXPECT_EQ(code, 128 + SIGINT) << r.err_text;
  EXPECT_THAT(r.err_text, HasSubstr("perfcounters: interrupted (SIGINT)"));
  EXPECT_THAT(r.out_text, Not(HasSubstr("threads:4")));

  const std::string text = testing::ReadFile(json);
  const nlohmann::json parsed =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(parsed.is_discarded()) << "not JSON:\n" << text;
  ASSERT_TRUE(parsed["benchmarks"].is_array()) << text;
  std::vector<std::string> names;
  for (const nlohmann::json& b : parsed["benchmarks"]) {
    names.push_back(b["name"].get<std::string>());
    // Every row is whole: gbench's times and our counter.
    EXPECT_TRUE(b.contains("cpu_time")) << b.dump();
    if (b["run_type"] == "iteration") {
      EXPECT_GT(testing::PerIteration(b, "task-clock"), 0) << b.dump();
    }
  }
  // 3 repetitions and mean, median, stddev, cv per finished benchmark.
  ASSERT_TRUE(names.size() == 7 || names.size() == 14) << text;
  EXPECT_EQ(names[0], "BM_TouchPages/4/threads:1");
  EXPECT_EQ(names[6], "BM_TouchPages/4/threads:1_cv");
  EXPECT_THAT(text, Not(HasSubstr("threads:4")));
  EXPECT_THAT(parsed["context"]["perfcounters.interrupted"].get<std::string>(),
              HasSubstr("SIGINT after " + std::to_string(names.size() / 7) +
                        " benchmark(s) had finished"));
  std::string why;
  const int read = ReadWithGbenchTools(json, dir, &why);
  if (read == -1) {
    GTEST_SKIP() << "gbench's reader not run: " << why;
  }
  EXPECT_EQ(read, static_cast<int>(names.size())) << why;
  testing::RunArgv({"rm", "-rf", dir});
}

// SIGTERM once the run has started (gbench printed its context) but before
// any benchmark finished: the old file is left byte for byte (gbench
// truncated it when the run started), and the process dies of SIGTERM.
TEST(BenchmarkExtInterrupt, SigtermBeforeAnyBenchmarkFinishedKeepsTheOldFile) {
  const std::string dir = TempDir();
  const std::string json = dir + "/out.json";
  const std::string old = "{\"the old\": \"results\"}\n";
  WriteText(json, old);
  Running r = Start(BenchArgs(json));
  // gbench's context on stderr: the benchmarks are about to run.
  ASSERT_TRUE(WaitFor(r, &r.err_text, "perfcounters.events: task-clock"))
      << r.out_text << r.err_text;
  EXPECT_THAT(r.out_text, Not(HasSubstr("threads:1 ")));
  ASSERT_EQ(kill(r.pid, SIGTERM), 0);
  const int code = Finish(r);
  EXPECT_EQ(code, 128 + SIGTERM) << r.err_text;
  EXPECT_THAT(r.err_text,
              HasSubstr("perfcounters: interrupted (SIGTERM) before a "
                        "benchmark finished: " +
                        json + " is left as it was"));
  EXPECT_EQ(testing::ReadFile(json), old);
  testing::RunArgv({"rm", "-rf", dir});
}

// Without a signal the file is written at the end, whole, and an
// unwritable path stops the run before any benchmark, as gbench's check did.
TEST(BenchmarkExtInterrupt, UnwritableOutputStopsBeforeTheRun) {
  testing::Command c;
  c.argv = {testing::FindBench(testing::kBench), "--perf_counters=task-clock",
            "--benchmark_filter=^BM_TouchPages/4/threads:1$",
            "--benchmark_out=/nonexistent-dir/out.json"};
  const testing::RunResult r = testing::RunCommand(c);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--benchmark_out=/nonexistent-dir/out.json: "
                               "cannot write"));
  EXPECT_THAT(r.out, Not(HasSubstr("BM_TouchPages")));
}

}  // namespace
}  // namespace perfcounters
