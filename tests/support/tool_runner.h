// tool_runner.h: helpers for the tools_*_test binaries: run the built
// `perfcounters` command and capture its output (support/subprocess.h
// runs it), golden files, and where the test data is.
//
// In the emulated arm64 machine (tests/arm64) the command travels next to
// the test binary and the source tree is absent: ToolPath() finds the
// command there, and tests that need tests/testdata/tools skip with
// PERFCOUNTERS_REQUIRE_TESTDATA().
#ifndef PERFCOUNTERS_TESTS_SUPPORT_TOOL_RUNNER_H_
#define PERFCOUNTERS_TESTS_SUPPORT_TOOL_RUNNER_H_

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "support/subprocess.h"

namespace perfcounters::tools::testing {

// The directory of golden files and sample inputs.
inline const std::string kTestdata = PERFCOUNTERS_TOOLS_TESTDATA;

inline bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

inline std::string Slurp(const std::string& path) {
  return ::perfcounters::testing::ReadFile(path);
}

// This test binary's path.
inline std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// The built command: its build-tree path, else `perfcounters` next to this
// binary (the arm64 machine).
inline std::string ToolPath() {
  std::string built = PERFCOUNTERS_TOOL;
  if (Exists(built)) return built;
  const std::string self = SelfExe();
  return self.substr(0, self.rfind('/') + 1) + "perfcounters";
}

// Single-quotes `s` for sh.
inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

inline std::string QuoteAll(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) absl::StrAppend(&out, " ", Quote(a));
  return out;
}

// A path under the test temp directory that no other process uses (test
// binaries run in parallel under ctest -j).
inline std::string ScratchPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/perfcounters_tools.", getpid(),
                      ".", name);
}

// `path` and its parents as directories, as mkdir -p (an existing one is
// kept); `fresh` removes what was there first.
inline ::testing::AssertionResult MakeDirectories(const std::string& path,
                                                  bool fresh = false) {
  std::error_code ec;
  if (fresh) std::filesystem::remove_all(path, ec);
  if (!ec) std::filesystem::create_directories(path, ec);
  if (ec) {
    return ::testing::AssertionFailure()
           << "cannot make directory " << path << ": " << ec.message();
  }
  return ::testing::AssertionSuccess();
}

// Removes this process's scratch paths when the test binary exits.
struct ScratchCleaner {
  ~ScratchCleaner() {
    ::perfcounters::testing::RunShellLine(
        absl::StrCat("rm -rf ", ScratchPath("*")));
  }
};
inline ScratchCleaner scratch_cleaner;

// Touches `pages` fresh anonymous pages, one page fault each: the workload
// the tests' `stat` runs count. False when the memory cannot be mapped.
inline bool TouchFreshPages(long pages) {
  if (pages <= 0) return true;
  const long page = sysconf(_SC_PAGESIZE);
  char* p =
      static_cast<char*>(mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED) return false;
  madvise(p, pages * page, MADV_NOHUGEPAGE);  // one fault per page
  for (long i = 0; i < pages; ++i) p[i * page] = 1;
  return true;
}

// What a run of the command gave.
using RunResult = ::perfcounters::testing::RunResult;

// Runs `perfcounters <shell_args>` (already quoted for sh) in `dir` (if not
// empty) with `env` assignments (e.g. "A=1") before it.
inline RunResult RunTool(const std::string& shell_args,
                         const std::string& dir = "",
                         const std::string& env = "") {
  ::perfcounters::testing::Command command;
  command.shell = absl::StrCat(env, " ", Quote(ToolPath()), " ", shell_args);
  command.dir = dir;
  return ::perfcounters::testing::RunCommand(command);
}

// Runs a shell command line (already quoted for sh); its exit code and
// outputs.
inline RunResult RunShell(const std::string& cmd) {
  return ::perfcounters::testing::RunShellLine(cmd);
}

// The path of perf (the linux-perf package) when it is installed and can
// count here; empty otherwise. Tests that compare with perf skip without it.
inline std::string PerfPath() {
  for (const char* p : {"/usr/bin/perf", "/usr/local/bin/perf"}) {
    if (Exists(p) &&
        RunShell(absl::StrCat(p, " stat -e task-clock true")).code == 0) {
      return p;
    }
  }
  return "";
}

// Compares with a golden file; PERFCOUNTERS_UPDATE_GOLDEN=1 rewrites it.
inline void ExpectGolden(const std::string& actual, const std::string& name) {
  const std::string path = kTestdata + "/" + name;
  if (std::getenv("PERFCOUNTERS_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  EXPECT_EQ(actual, Slurp(path))
      << "golden " << path << " differs (PERFCOUNTERS_UPDATE_GOLDEN=1 "
      << "rewrites it)";
}

}  // namespace perfcounters::tools::testing

// Declares `var`, perf's path, or skips the test when perf is missing.
// `var` is a name to declare, so it cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PERFCOUNTERS_REQUIRE_PERF(var)                                    \
  const std::string var = ::perfcounters::tools::testing::PerfPath();     \
  if (var.empty()) {                                                      \
    GTEST_SKIP() << "needs perf (apt-get install linux-perf) to compare " \
                    "with";                                               \
  }
// NOLINTEND(bugprone-macro-parentheses)

// Skips where the source tree's test data is absent (the arm64 machine).
#define PERFCOUNTERS_REQUIRE_TESTDATA()                                     \
  do {                                                                      \
    if (!::perfcounters::tools::testing::Exists(                            \
            ::perfcounters::tools::testing::kTestdata)) {                   \
      GTEST_SKIP() << "needs " << ::perfcounters::tools::testing::kTestdata \
                   << " (runs natively, not in the emulated machine)";      \
    }                                                                       \
  } while (0)

#endif  // PERFCOUNTERS_TESTS_SUPPORT_TOOL_RUNNER_H_
