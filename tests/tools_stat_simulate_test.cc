// tools_stat_simulate_test.cc: `perfcounters stat --source simulate`, the
// built command on this machine with Debian's valgrind: its counts against
// plain `valgrind --tool=callgrind` (no perfcounters involved) as the
// oracle, the same every run, children counted once each (exec'd ones and
// forked ones), events the simulator lacks and the estimates labelled,
// the command's exit status, and the errors (no valgrind, a bad source, a
// missing command).
#include <unistd.h>

#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/tool_runner.h"

namespace {

using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::Slurp;
using perfcounters::tools::testing::ToolPath;
using ::testing::HasSubstr;

// The same small, fixed environment for the command under test and the
// oracle: the environment is on the command's stack, and its size moves
// instruction counts a little.
constexpr char kEnv[] = "env -i PATH=/usr/bin:/bin";

bool HaveValgrind() {
  return perfcounters::testing::RunShellLine("command -v valgrind >/dev/null")
             .code == 0;
}

// `perfcounters stat --source simulate --json -o FILE ARGS`; the JSON.
nlohmann::json StatJson(const std::string& args, RunResult* run = nullptr) {
  const std::string out = ScratchPath("stat.json");
  unlink(out.c_str());
  const RunResult r = perfcounters::testing::RunShellLine(absl::StrCat(
      kEnv, " ", Quote(ToolPath()), " stat --source simulate --json -o ",
      Quote(out), " ", args, " >/dev/null"));
  if (run != nullptr) *run = r;
  EXPECT_TRUE(r.code == 0 || run != nullptr) << r.err;
  const std::string text = Slurp(out);
  if (text.empty()) {
    ADD_FAILURE() << "no JSON; stderr:\n" << r.err;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(text);
}

// The event `name` of stat's JSON (null when absent).
nlohmann::json Event(const nlohmann::json& j, const std::string& name) {
  for (const nlohmann::json& e : j["events"]) {
    if (e["event"] == name) return e;
  }
  return nullptr;
}

double Counted(const nlohmann::json& j, const std::string& name) {
  const nlohmann::json e = Event(j, name);
  if (e.is_null() || e["status"] != "counted") {
    ADD_FAILURE() << name << " not counted: " << j.dump(2);
    return -1;
  }
  return e["value"].get<double>();
}

// Plain callgrind's totals for `command` (ASLR off, as stat runs it): the
// callgrind event `column` (Ir, Bc, Bi, ...) summed over every dump.
uint64_t PlainCallgrind(const std::string& command, const std::string& column) {
  const std::string dir = ScratchPath("plain");
  perfcounters::testing::RunShellLine(
      absl::StrCat("rm -rf ", Quote(dir), " && mkdir -p ", Quote(dir)));
  const RunResult r = perfcounters::testing::RunShellLine(absl::StrCat(
      kEnv, " setarch -R valgrind -q --tool=callgrind --branch-sim=yes ",
      "--callgrind-out-file=", dir, "/cg.%p ", command, " >/dev/null"));
  EXPECT_EQ(r.code, 0) << r.err;
  const RunResult cat = perfcounters::testing::RunShellLine(
      absl::StrCat("cat ", Quote(dir), "/cg.*"));
  uint64_t sum = 0;
  int index = -1;
  for (absl::string_view line : absl::StrSplit(cat.out, '\n')) {
    if (absl::ConsumePrefix(&line, "events:")) {
      const std::vector<std::string> names =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      index = -1;
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == column) index = static_cast<int>(i);
      }
    } else if (absl::ConsumePrefix(&line, "totals:") && index >= 0) {
      const std::vector<std::string> v =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      uint64_t x = 0;
      EXPECT_TRUE(absl::SimpleAtoi(v.at(static_cast<size_t>(index)), &x));
      sum += x;
    }
  }
  EXPECT_GT(sum, 0u) << cat.out << r.err;
  return sum;
}

#define REQUIRE_VALGRIND()                                             \
  if (!HaveValgrind()) {                                               \
    GTEST_SKIP() << "valgrind is not installed (scripts/deps.sh test " \
                    "installs it)";                                    \
  }

// Instructions and branches equal plain callgrind's, exactly, and two runs
// give the same values.
TEST(StatSimulate, MatchesPlainCallgrindAndRepeatsExactly) {
  REQUIRE_VALGRIND();
  const std::string command = "seq 3000";
  const nlohmann::json a =
      StatJson("-e instructions,branches,L1-dcache-load-misses -- " + command);
  const nlohmann::json b =
      StatJson("-e instructions,branches,L1-dcache-load-misses -- " + command);
  EXPECT_THAT(a["source"].get<std::string>(),
              ::testing::StartsWith("simulate: valgrind-"));
  const double instructions = Counted(a, "instructions");
  EXPECT_EQ(instructions, static_cast<double>(PlainCallgrind(command, "Ir")));
  EXPECT_EQ(Counted(a, "branches"),
            static_cast<double>(PlainCallgrind(command, "Bc") +
                                PlainCallgrind(command, "Bi")));
  EXPECT_GT(instructions, 100000) << "seq 3000 runs more than this";
  for (const char* name :
       {"instructions", "branches", "L1-dcache-load-misses", "est_cycles"}) {
    EXPECT_EQ(Counted(a, name), Counted(b, name)) << name;
  }
}

// Children are counted, each once: an exec'd child adds its own count; a
// child forked without exec (a subshell) adds only its own work, not its
// parent's costs up to the fork, which callgrind copies into it.
TEST(StatSimulate, CountsEveryChildOnce) {
  REQUIRE_VALGRIND();
  const double seq =
      Counted(StatJson("-e instructions -- seq 5000"), "instructions");
  const double one =
      Counted(StatJson("-e instructions -- sh -c 'seq 5000 >/dev/null'"),
              "instructions");
  const double two = Counted(
      StatJson("-e instructions -- sh -c 'seq 5000 >/dev/null; seq 5000 "
               ">/dev/null'"),
      "instructions");
  // The second seq, plus the shell's few thousand instructions to start it.
  EXPECT_GE(two - one, seq);
  EXPECT_LE(two - one, seq * 1.05 + 50000);
  const std::string loop = "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done";
  const double plain = Counted(
      StatJson("-e instructions -- bash -c '" + loop + "; :'"), "instructions");
  const double forked =
      Counted(StatJson("-e instructions -- bash -c '" + loop + "; (:)'"),
              "instructions");
  // Counted twice, the loop before the fork would about double it; the
  // two command lines' lengths alone move the counts by ~0.02 %.
  EXPECT_NEAR(forked, plain, plain * 0.05)
      << "a forked child counted its parent's work";
}

// What the simulator cannot count is not supported, with the reason (no
// value, never 0); the estimates say they are estimates in every format.
TEST(StatSimulate, UncountableEventsAndEstimatesSaySo) {
  REQUIRE_VALGRIND();
  const nlohmann::json j = StatJson(
      "-e task-clock,page-faults,cycles,instructions:k,duration_time,"
      "instructions -- true");
  for (const char* name : {"task-clock", "page-faults", "cycles",
                           "instructions:k", "duration_time"}) {
    const nlohmann::json e = Event(j, name);
    ASSERT_FALSE(e.is_null()) << name << ": " << j.dump(2);
    EXPECT_EQ(e["status"], "not supported") << name;
    EXPECT_FALSE(e.contains("value")) << name;
    EXPECT_THAT(e["reason"].get<std::string>(),
                HasSubstr("not counted by the simulator"))
        << name;
  }
  EXPECT_THAT(Event(j, "instructions:k")["reason"].get<std::string>(),
              HasSubstr("user space only"));
  for (const char* name : {"est_cycles", "est_ipc"}) {
    const nlohmann::json e = Event(j, name);
    ASSERT_FALSE(e.is_null()) << name << ": " << j.dump(2);
    EXPECT_EQ(e["estimate"], true) << name;
    EXPECT_EQ(e["unit"], "estimate") << name;
  }
  const double ipc = Counted(j, "est_ipc");
  EXPECT_NEAR(ipc, Counted(j, "instructions") / Counted(j, "est_cycles"), 1e-9);
  // The table and perf's -x lines.
  const RunResult table = perfcounters::testing::RunShellLine(
      absl::StrCat(Quote(ToolPath()),
                   " stat --source simulate -e cycles,instructions true"));
  EXPECT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.err, HasSubstr("counted by the simulator, not the PMU"));
  EXPECT_THAT(table.err, HasSubstr("estimate      est_cycles"));
  EXPECT_THAT(table.err, HasSubstr("a cost model, not measured"));
  EXPECT_THAT(table.err, HasSubstr("seconds time elapsed under valgrind"));
  EXPECT_THAT(table.err, HasSubstr("<not supported>      cycles"));
  const RunResult csv = perfcounters::testing::RunShellLine(absl::StrCat(
      Quote(ToolPath()), " stat --source simulate -x, -e instructions true"));
  EXPECT_THAT(csv.err, HasSubstr(",estimate,est_cycles,"));
}

TEST(StatSimulate, ExitStatusOfTheCommand) {
  REQUIRE_VALGRIND();
  RunResult run;
  const nlohmann::json j = StatJson("-e instructions -- sh -c 'exit 3'", &run);
  EXPECT_EQ(run.code, 3) << run.err;
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_GT(Counted(j, "instructions"), 0);
}

TEST(StatSimulate, Errors) {
  // No valgrind on PATH: the package is named, nothing runs.
  RunResult r = perfcounters::testing::RunShellLine(
      absl::StrCat("PATH=/nonexistent ", Quote(ToolPath()),
                   " stat --source simulate -e instructions /bin/true"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("valgrind was not found on PATH"));
  EXPECT_THAT(r.err, HasSubstr("apt-get install valgrind"));
  // A `valgrind` that answers --version with nothing: said so, nothing runs.
  const std::string fake = ScratchPath("fakebin");
  r = perfcounters::testing::RunShellLine(absl::StrCat(
      "mkdir -p ", Quote(fake), " && printf '#!/bin/sh\\nexit 0\\n' >",
      Quote(fake + "/valgrind"), " && chmod +x ", Quote(fake + "/valgrind"),
      " && PATH=", Quote(fake), ":$PATH ", Quote(ToolPath()),
      " stat --source simulate -e instructions /bin/true"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--version` printed nothing where Valgrind "
                               "prints its version"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("failed ()")));
  r = perfcounters::testing::RunShellLine(
      absl::StrCat(Quote(ToolPath()), " stat --source bogus true"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--source bogus: unknown counting source"));
  if (!HaveValgrind()) return;
  r = perfcounters::testing::RunShellLine(absl::StrCat(
      Quote(ToolPath()), " stat --source simulate -- no-such-command-here"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot execute 'no-such-command-here'"));
}

}  // namespace
