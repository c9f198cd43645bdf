// tools_stat_test.cc: `perfcounters stat` against perf 6.1 (the linux-perf
// package) and under faults, with the built command on this machine's
// kernel: the context switches stat itself causes, perf's -x CSV read by
// one parser for both tools, where the options end, -o and --json,
// termination by a signal, an unprivileged user at perf_event_paranoid 2
// and 3, and Ctrl-C / SIGTERM (partial counts, no child left behind).
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/capabilities.h"
#include "support/as_nobody.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"
#include "support/tool_runner.h"

namespace {

// The helper `stat` counts, when this binary runs with these variables:
// PERFCOUNTERS_TOUCH_PAGES=N touches N fresh pages; then, with
// PERFCOUNTERS_RUNS_FILE=F, appends a byte to F and, from run number
// PERFCOUNTERS_WAIT_FROM_RUN (default 1) on, waits for a signal.
const bool kHelper = [] {
  const char* n = std::getenv("PERFCOUNTERS_TOUCH_PAGES");
  if (n == nullptr) return false;
  if (!perfcounters::tools::testing::TouchFreshPages(std::atol(n))) _exit(3);
  if (const char* runs = std::getenv("PERFCOUNTERS_RUNS_FILE")) {
    const int fd = open(runs, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0 || write(fd, "r", 1) != 1) _exit(4);
    close(fd);
    struct stat st;
    stat(runs, &st);
    const char* from = std::getenv("PERFCOUNTERS_WAIT_FROM_RUN");
    if (st.st_size >= (from ? std::atol(from) : 1)) {
      while (true) pause();
    }
  }
  _exit(0);
}();

using perfcounters::tools::testing::Exists;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::SelfExe;
using perfcounters::tools::testing::Slurp;
using perfcounters::tools::testing::ToolPath;
using ::testing::HasSubstr;
using ::testing::Not;

RunResult RunTool(const std::string& args, const std::string& env = "") {
  return perfcounters::tools::testing::RunTool(args, "", env);
}

RunResult Shell(const std::string& cmd) {
  return perfcounters::tools::testing::RunShell(cmd);
}

// One line of perf's -x output: value, unit, event, [variance,] run time,
// running %, metric value, metric unit.
struct CsvLine {
  std::string value, unit, event, variance, runtime, running, metric,
      metric_unit;
  size_t fields = 0;
};

// The one parser for both tools' -x, output: lines with 7 or 8 fields.
std::vector<CsvLine> ParseCsv(const std::string& text, bool with_variance) {
  std::vector<CsvLine> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const std::vector<std::string> f = absl::StrSplit(line, ',');
    if (f.size() != 7 && f.size() != 8) continue;
    CsvLine l;
    l.fields = f.size();
    size_t i = 0;
    l.value = f[i++];
    l.unit = f[i++];
    l.event = f[i++];
    if (with_variance) l.variance = f[i++];
    if (i + 4 > f.size()) continue;
    l.runtime = f[i++];
    l.running = f[i++];
    l.metric = f[i++];
    l.metric_unit = f[i++];
    out.push_back(l);
  }
  return out;
}

double Number(const std::string& s) {
  double v = -1;
  EXPECT_TRUE(absl::SimpleAtod(s, &v)) << "'" << s << "' is not a number";
  return v;
}

// The number of decimals in a value field ("1.23" -> 2).
size_t Decimals(const std::string& s) {
  const size_t dot = s.find('.');
  return dot == std::string::npos ? 0 : s.size() - dot - 1;
}

// Compares perf's and our -x, output of the same command, line by line.
void ExpectSameCsv(const std::string& perf, const std::string& ours,
                   bool with_variance) {
  const std::vector<CsvLine> p = ParseCsv(perf, with_variance);
  const std::vector<CsvLine> o = ParseCsv(ours, with_variance);
  ASSERT_EQ(p.size(), o.size()) << "perf:\n" << perf << "ours:\n" << ours;
  ASSERT_FALSE(p.empty()) << perf;
  for (size_t i = 0; i < p.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("perf: ", p[i].event, " ", p[i].value,
                              "\nours: ", o[i].event, " ", o[i].value));
    EXPECT_EQ(o[i].fields, p[i].fields);
    EXPECT_EQ(o[i].event, p[i].event);
    EXPECT_EQ(o[i].unit, p[i].unit);
    EXPECT_EQ(o[i].metric_unit.empty(), p[i].metric_unit.empty());
    if (absl::EndsWith(p[i].metric_unit, "/sec")) {
      EXPECT_TRUE(absl::EndsWith(o[i].metric_unit, "/sec"));
    } else {
      EXPECT_EQ(o[i].metric_unit, p[i].metric_unit);
    }
    if (absl::StartsWith(p[i].value, "<")) {
      EXPECT_EQ(o[i].value, p[i].value);
      EXPECT_EQ(o[i].runtime, p[i].runtime);
      EXPECT_EQ(o[i].running, p[i].running);
      continue;
    }
    EXPECT_EQ(Decimals(o[i].value), Decimals(p[i].value));
    EXPECT_EQ(Decimals(o[i].running), 2u);
    EXPECT_EQ(Decimals(o[i].runtime), 0u);
    EXPECT_GT(Number(o[i].runtime), 0);
    if (with_variance) {
      EXPECT_TRUE(absl::EndsWith(o[i].variance, "%"));
    }
    if (!p[i].metric.empty()) {
      EXPECT_EQ(Decimals(o[i].metric), Decimals(p[i].metric));
    }
    // Page faults of the same command agree (both count from the exec).
    if (absl::StrContains(p[i].event, "faults") &&
        !absl::StrContains(p[i].event, "major") &&
        !absl::StrContains(p[i].event, "alignment") &&
        !absl::StrContains(p[i].event, "emulation")) {
      EXPECT_NEAR(Number(o[i].value), Number(p[i].value),
                  Number(p[i].value) * 0.03 + 10);
    }
  }
}

TEST(StatVsPerf, CsvHasPerfsFieldsForEveryEventKindThatCountsHere) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  PERFCOUNTERS_REQUIRE_PERF(perf);
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  std::string events =
      "task-clock,cpu-clock,page-faults,minor-faults,major-faults,"
      "context-switches,cpu-migrations,alignment-faults,emulation-faults,"
      "duration_time,cycles,{task-clock,page-faults}";
  if (geteuid() == 0) {
    events += ",sched:sched_process_exec";  // tracepoints need privilege
    if (Exists("/sys/bus/event_source/devices/msr")) events += ",msr/tsc/";
  }
  for (const char* repeat : {"", "-r 3 "}) {
    SCOPED_TRACE(repeat);
    const std::string args =
        absl::StrCat("stat -x, ", repeat, "-e '", events, "' -- ", SelfExe());
    const std::string env = "PERFCOUNTERS_TOUCH_PAGES=1000";
    const RunResult theirs = Shell(absl::StrCat(env, " ", perf, " ", args));
    ASSERT_EQ(theirs.code, 0) << theirs.err;
    const RunResult ours = RunTool(args, env);
    ASSERT_EQ(ours.code, 0) << ours.err;
    std::printf("perf:\n%sours:\n%s", theirs.err.c_str(), ours.err.c_str());
    ExpectSameCsv(theirs.err, ours.err, *repeat != '\0');
  }
}

// The last CPU this process may run on.
int SomeCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  int cpu = 0;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) cpu = i;
  }
  return cpu;
}

// The `-x, -e context-switches` value of one run of `true` on `cpu`.
double ContextSwitchesOfTrue(const std::string& tool, int cpu) {
  const RunResult r = Shell(absl::StrCat(
      "taskset -c ", cpu, " ", tool, " stat -x, -e context-switches -- true"));
  EXPECT_EQ(r.code, 0) << r.err;
  const std::vector<CsvLine> lines = ParseCsv(r.err, false);
  EXPECT_EQ(lines.size(), 1u) << r.err;
  return lines.size() == 1 ? Number(lines[0].value) : 0;
}

// stat starts the child as perf does (ready/go pipes, enable_on_exec) and
// sleeps in waitpid from before the exec: it does not preempt what it
// counts (before, it woke at the exec: 1 switch in 18 of 20 runs). Both
// tools count `true` pinned to one CPU, run by run alternately, 30 runs
// each. Both count about 1 per run (the exiting task's last switch) plus
// noise from other processes; on a busy 2-core machine a round of 30
// missed an allowance of 2 in about 1 of 3 rounds, so the allowance is 5,
// up to 5 rounds are made and one within it passes (a tool that adds a
// switch per run is ~30 over in every round).
TEST(StatVsPerf, CausesNoMoreContextSwitchesThanPerf) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(
      "the instrumented command runs longer on the child's CPU after "
      "starting it (seen: 4 to 18 switches over perf's per 30 runs)");
  PERFCOUNTERS_REQUIRE_PERF(perf);
  const int cpu = SomeCpu();
  bool within = false;
  for (int round = 0; round < 5 && !within; ++round) {
    double ours = 0, theirs = 0;
    for (int i = 0; i < 30; ++i) {
      ours += ContextSwitchesOfTrue(Quote(ToolPath()), cpu);
      theirs += ContextSwitchesOfTrue(perf, cpu);
    }
    std::printf(
        "context-switches of `true` on CPU %d over 30 runs: ours "
        "%.0f, perf %.0f\n",
        cpu, ours, theirs);
    within = ours <= theirs + 5;
  }
  EXPECT_TRUE(within) << "more context switches than perf in 5 rounds";
}

TEST(Stat, OptionsEndAtTheCommand) {
  RunResult r = RunTool("stat -x, -e task-clock echo -n hi -e x");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "hi -e x");
  r = RunTool("stat -e task-clock echo -l /");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "-l /\n");
  EXPECT_THAT(r.err, HasSubstr("Performance counter stats for 'echo -l /'"));
  // Attached values and "--".
  r = RunTool("stat -etask-clock -x, -r2 -- echo -r");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "-r\n-r\n");
  const std::vector<CsvLine> lines = ParseCsv(r.err, true);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].fields, 8u) << "the variance field with -r";
  EXPECT_EQ(lines[0].unit, "msec");
  EXPECT_EQ(lines[0].metric_unit, "CPUs utilized");
  r = RunTool("stat --no-such-option true");
  EXPECT_EQ(r.code, 2);
}

// perf's footer: one run gives "seconds user" and "seconds sys" (the
// command's CPU time, here a busy loop's, mostly user); several give the
// elapsed mean +- its error; "( +- x% )" only where there is a spread.
TEST(Stat, FooterAndNoiseAsPerf) {
  const RunResult one = RunTool(
      "stat -e task-clock -- sh -c 'i=0; while [ $i -lt 20000 ]; do "
      "i=$((i+1)); done'");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(one.err, HasSubstr(" seconds time elapsed\n\n"));
  double user = -1, sys = -1;
  for (absl::string_view line : absl::StrSplit(one.err, '\n')) {
    double v = 0;
    const std::string text(absl::StripAsciiWhitespace(line));
    if (absl::EndsWith(text, " seconds user") &&
        absl::SimpleAtod(text.substr(0, text.find(' ')), &v)) {
      user = v;
    }
    if (absl::EndsWith(text, " seconds sys") &&
        absl::SimpleAtod(text.substr(0, text.find(' ')), &v)) {
      sys = v;
    }
  }
  EXPECT_GT(user, 0) << one.err;
  EXPECT_GE(sys, 0) << one.err;
  const RunResult many = RunTool(
      "stat -r 3 -e task-clock,context-switches,cpu-migrations -- true");
  ASSERT_EQ(many.code, 0) << many.err;
  EXPECT_THAT(many.err, HasSubstr(" seconds time elapsed"));
  EXPECT_THAT(many.err, Not(HasSubstr("seconds user")));
  EXPECT_THAT(many.err, Not(HasSubstr("+-  0.00%"))) << many.err;
}

TEST(Stat, TerminationBySignalIsReportedAsSuch) {
  const RunResult r = RunTool("stat -e task-clock -- sh -c 'kill -9 $$'");
  EXPECT_EQ(r.code, 137);
  EXPECT_THAT(r.err, HasSubstr("Command terminated by signal 9 (Killed)"));
  EXPECT_THAT(r.err, Not(HasSubstr("exited with status")));
}

TEST(Stat, JsonGoesToStdoutAndOutputFileTakesTheCounts) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  RunResult r = RunTool("stat --json -e page-faults -- echo child-output");
  EXPECT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(absl::StartsWith(r.out, "child-output\n{")) << r.out;
  const nlohmann::json j =
      nlohmann::json::parse(r.out.substr(r.out.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["events"][0]["event"], "page-faults");
  EXPECT_EQ(j["events"][0]["status"], "counted");
  EXPECT_EQ(r.err, "");

  const std::string file = ScratchPath("stat.csv");
  r = RunTool(absl::StrCat("stat -x, -o ", Quote(file),
                           " -e page-faults,duration_time -- true"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<CsvLine> lines = ParseCsv(Slurp(file), false);
  ASSERT_EQ(lines.size(), 2u) << Slurp(file);
  EXPECT_EQ(lines[0].event, "page-faults");
  EXPECT_EQ(lines[1].event, "duration_time");
  EXPECT_EQ(lines[1].unit, "ns");
  EXPECT_GT(Number(lines[1].value), 0);

  r = RunTool("stat -o /nonexistent/dir/x -e page-faults -- true");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/dir/x"));
}

// --- unprivileged: nobody at perf_event_paranoid 2 and 3 ---

using ::perfcounters::testing::kParanoid;
using ::perfcounters::testing::ReadParanoid;
using ::perfcounters::testing::ScopedParanoid;

// The shell prefix that runs a program as nobody (no capabilities).
const std::string kAsNobody = ::perfcounters::testing::AsNobodyCommand();

class StatUnprivileged : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(Paranoid, StatUnprivileged, ::testing::Values(2, 3));

// page-faults of the helper touching `pages`, as nobody; the stderr.
double NobodyPageFaults(long pages, std::string* err) {
  const RunResult r = RunTool(
      absl::StrCat("stat -x, -r 3 -e page-faults,task-clock -- ", SelfExe()),
      absl::StrCat("PERFCOUNTERS_TOUCH_PAGES=", pages, " ", kAsNobody));
  EXPECT_EQ(r.code, 0) << r.err;
  *err = r.err;
  const std::vector<CsvLine> lines = ParseCsv(r.err, true);
  EXPECT_EQ(lines.size(), 2u) << r.err;
  if (lines.size() != 2) return -1;
  EXPECT_EQ(lines[0].event, "page-faults:u") << r.err;
  EXPECT_EQ(lines[1].event, "task-clock:u") << r.err;
  EXPECT_EQ(lines[1].unit, "msec") << r.err;
  return Number(lines[0].value);
}

// The user-only fallback applies to every event kind; when user space
// alone fails too, the reason shown is that failure's (here: what root is
// told for the same event), not the permission checked first.
TEST(StatUnprivilegedReason, FallbackFailureShowsTheRealReason) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to set paranoid and drop";
  auto line_of = [](const std::string& err, const std::string& event) {
    for (absl::string_view line : absl::StrSplit(err, '\n')) {
      if (absl::StrContains(line, " " + event)) return std::string(line);
    }
    return std::string();
  };
  const RunResult root = RunTool("stat -e cycles,task-clock -- true");
  ASSERT_EQ(root.code, 0) << root.err;
  ScopedParanoid paranoid(2);
  const RunResult nobody =
      RunTool("stat -e cycles,task-clock -- true", kAsNobody);
  ASSERT_EQ(nobody.code, 0) << nobody.err;
  const std::string mine = line_of(nobody.err, "cycles");
  if (line_of(root.err, "cycles").find("<not supported>") ==
      std::string::npos) {
    // cycles counts here: as nobody it counts user space only.
    EXPECT_THAT(mine, HasSubstr("cycles:u")) << nobody.err;
    return;
  }
  EXPECT_EQ(mine, line_of(root.err, "cycles")) << nobody.err;
  EXPECT_THAT(mine, Not(HasSubstr("ermission"))) << nobody.err;
  EXPECT_THAT(line_of(nobody.err, "task-clock"), HasSubstr("task-clock:u"));
}

// perf stat falls back to user space only when the kernel refuses kernel
// counting; so does stat, and says so. At 3 an upstream kernel behaves as
// at 2; Debian's patch (the emulated arm64 machine's kernel) refuses every
// event to an unprivileged user, and then stat says not supported, with
// the sysctl as the reason, and counts nothing.
TEST_P(StatUnprivileged, CountsUserSpaceOnlyAndSaysSo) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to set kernel.perf_event_paranoid and to "
                    "drop to nobody";
  }
  const std::optional<std::string> before = ReadParanoid();
  {
    ScopedParanoid paranoid(GetParam());
    ASSERT_TRUE(paranoid.ok()) << "cannot write " << kParanoid;
    if (GetParam() == 3) {
      const RunResult r = RunTool("stat -e page-faults -- true", kAsNobody);
      if (absl::StrContains(r.err, "<not supported>")) {
        EXPECT_THAT(r.err, HasSubstr("perf_event_paranoid")) << r.err;
        EXPECT_THAT(r.err, Not(HasSubstr("counting user space only")));
        std::printf("level 3 refuses every event here:\n%s\n", r.err.c_str());
        return;
      }
    }
    std::string err;
    const double none = NobodyPageFaults(0, &err);
    EXPECT_THAT(err, HasSubstr(absl::StrCat(
                         "kernel.perf_event_paranoid=", GetParam(),
                         " and no CAP_PERFMON: counting user space only")));
    const double some = NobodyPageFaults(2000, &err);
    std::printf(
        "paranoid %d, nobody: page-faults:u %.1f with 0 pages, %.1f "
        "with 2000\n",
        GetParam(), none, some);
    EXPECT_GT(none, 0);
    EXPECT_GE(some - none, 2000 * 0.99);
    EXPECT_LE(some - none, 2000 * 1.02 + 20);
  }
  EXPECT_EQ(ReadParanoid(), before) << "the sysctl was not restored";
}

// --- signals ---

// `perfcounters stat ARGS` started in a process group of its own, with
// stderr to a file.
struct Started {
  pid_t pid = -1;
  std::string err_path;
};

Started StartTool(const std::vector<std::string>& args,
                  const std::vector<std::string>& env) {
  Started s;
  s.err_path = ScratchPath(absl::StrCat("signal.err.", args.size()));
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const int fd = open(s.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv;
    const std::string tool = ToolPath();
    argv.push_back(const_cast<char*>(tool.c_str()));
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(126);
  }
  setpgid(pid, pid);
  s.pid = pid;
  return s;
}

// Waits until `path` has `bytes` bytes (the helper's runs), up to 20 s.
bool WaitForSize(const std::string& path, off_t bytes) {
  for (int i = 0; i < 2000; ++i) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && st.st_size >= bytes) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The exit code of `pid`, waiting up to 20 s; -1 on timeout (then kills).
int WaitExit(pid_t pid) {
  for (int i = 0; i < 2000; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

// True when no process is left in process group `pgid` (10 s grace).
bool GroupIsGone(pid_t pgid) {
  for (int i = 0; i < 1000; ++i) {
    if (kill(-pgid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pgid, SIGKILL);
  return false;
}

struct SignalCase {
  const char* name;
  int signal;
  bool to_group;  // Ctrl-C: the whole process group
  int repeat;
  int wait_from_run;
};

class StatSignals : public ::testing::TestWithParam<SignalCase> {};

INSTANTIATE_TEST_SUITE_P(
    Cases, StatSignals,
    ::testing::Values(SignalCase{"SigintToGroup", SIGINT, true, 1, 1},
                      SignalCase{"SigtermToStatAlone", SIGTERM, false, 1, 1},
                      SignalCase{"SigintToStatAlone", SIGINT, false, 1, 1},
                      SignalCase{"SigintToGroupInRun2Of3", SIGINT, true, 3, 2}),
    [](const ::testing::TestParamInfo<SignalCase>& info) {
      return std::string(info.param.name);
    });

// The helper touches 500 pages and waits; the signal comes; stat prints
// the counts so far (-x, on stderr: the 500 faults included) with a note,
// exits 128+N, and leaves no process behind.
TEST_P(StatSignals, PrintsPartialCountsAndLeavesNoChild) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  const SignalCase& c = GetParam();
  const std::string runs = ScratchPath(absl::StrCat("runs.", c.name));
  unlink(runs.c_str());
  const Started s = StartTool(
      {"stat", "-x,", "-r", std::to_string(c.repeat), "-e",
       "page-faults,task-clock", "--", SelfExe()},
      {"PERFCOUNTERS_TOUCH_PAGES=500", "PERFCOUNTERS_RUNS_FILE=" + runs,
       absl::StrCat("PERFCOUNTERS_WAIT_FROM_RUN=", c.wait_from_run)});
  ASSERT_TRUE(WaitForSize(runs, c.wait_from_run)) << Slurp(s.err_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(kill(c.to_group ? -s.pid : s.pid, c.signal), 0);
  EXPECT_EQ(WaitExit(s.pid), 128 + c.signal);
  EXPECT_TRUE(GroupIsGone(s.pid));
  const std::string err = Slurp(s.err_path);
  const std::vector<CsvLine> lines = ParseCsv(err, c.wait_from_run > 1);
  ASSERT_EQ(lines.size(), 2u) << err;
  EXPECT_EQ(lines[0].event, "page-faults");
  // Every run (the interrupted one too) touched 500 pages.
  EXPECT_GE(Number(lines[0].value), 500) << err;
  EXPECT_GT(Number(lines[1].value), 0) << err;
  EXPECT_THAT(err, HasSubstr(absl::StrCat("perfcounters stat: interrupted by ",
                                          strsignal(c.signal), " (signal ",
                                          c.signal, ") in run ",
                                          c.wait_from_run, " of ", c.repeat)));
}

}  // namespace
