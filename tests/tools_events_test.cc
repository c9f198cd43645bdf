// tools_events_test.cc: `perfcounters list`, `encode` and `stat` — the
// built command on this machine's real kernel.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/capabilities.h"
#include "support/sanitizers.h"
#include "testing/tool_runner.h"

namespace {

// When run as `PERFCOUNTERS_TOUCH_PAGES=N tools_events_test`, this binary is
// the helper that `stat` counts: it touches N fresh pages and exits.
const bool kTouchHelper = [] {
  const char* n = std::getenv("PERFCOUNTERS_TOUCH_PAGES");
  if (n == nullptr) return false;
  const long pages = std::atol(n);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages > 0) {
    char* p =
        static_cast<char*>(mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) _exit(3);
    madvise(p, pages * page, MADV_NOHUGEPAGE);  // one fault per page
    for (long i = 0; i < pages; ++i) p[i * page] = 1;
  }
  _exit(0);
}();

using ::testing::HasSubstr;
using ::testing::StartsWith;

using perfcounters::tools::testing::ExpectGolden;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::SelfExe;

RunResult RunTool(const std::string& args, const std::string& env = "") {
  return perfcounters::tools::testing::RunTool(args, "", env);
}

// Mean page-faults of `stat -x, -r 3` on the helper touching `pages`.
double PageFaults(long pages) {
  const RunResult r =
      RunTool(absl::StrCat("stat -x, -r 3 -e page-faults -- ", SelfExe()),
              absl::StrCat("PERFCOUNTERS_TOUCH_PAGES=", pages));
  EXPECT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> fields = absl::StrSplit(r.err, ',');
  EXPECT_GE(fields.size(), 3u) << r.err;
  if (fields.size() < 3) return -1;
  EXPECT_EQ(fields[2], "page-faults");
  double v = -1;
  EXPECT_TRUE(absl::SimpleAtod(fields[0], &v)) << r.err;
  return v;
}

TEST(Stat, PageFaultsOfAKnownNumberOfPages) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER();
  constexpr long kPages = 2000;
  const double none = PageFaults(0);
  const double some = PageFaults(kPages);
  std::printf("page-faults: %.1f with 0 pages, %.1f with %ld pages\n", none,
              some, kPages);
  ASSERT_GT(none, 0);  // exec and start-up fault too: counted from exec
  EXPECT_GE(some - none, kPages * 0.99);
  EXPECT_LE(some - none, kPages * 1.02 + 20);
}

TEST(Stat, TableExitCodeAndNotSupported) {
  const RunResult r =
      RunTool("stat -e page-faults,task-clock,cycles -- sh -c 'exit 3'");
  EXPECT_EQ(r.code, 3) << "the command's exit code";
  EXPECT_THAT(r.err, HasSubstr("Performance counter stats for 'sh -c exit 3'"));
  EXPECT_THAT(r.err, HasSubstr("page-faults"));
  EXPECT_THAT(r.err, HasSubstr("CPUs utilized"));
  EXPECT_THAT(r.err, HasSubstr("Command exited with status 3"));
  if (!perfcounters::ProbeCapabilities().has_hardware_pmu()) {
    EXPECT_THAT(r.err, HasSubstr("<not supported>      cycles"));
  }
}

TEST(Stat, JsonOutput) {
  const RunResult r = RunTool("stat --json -r 2 -e page-faults -- true");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.err, HasSubstr("\"runs\": 2"));
  EXPECT_THAT(r.err, HasSubstr("\"event\": \"page-faults\""));
  EXPECT_THAT(r.err, HasSubstr("\"status\": \"counted\""));
}

TEST(Stat, BadInput) {
  RunResult r = RunTool("stat -- /nonexistent/command");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot execute '/nonexistent/command': No "
                               "such file or directory"));
  r = RunTool("stat -e no-such-event -- true");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("-e 'no-such-event'"));
  r = RunTool("stat -r 0 -- true");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("-r must be >= 1"));
  r = RunTool("stat");
  EXPECT_EQ(r.code, 2);
}

TEST(Encode, Golden) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult r =
      RunTool("encode cycles:u page-faults '{instructions,branches}:k'");
  EXPECT_EQ(r.code, 0) << r.err;
  ExpectGolden(r.out, "encode.txt");
}

TEST(Encode, BadEvent) {
  const RunResult r = RunTool("encode cycles:q");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, StartsWith("perfcounters encode: 'cycles:q': "));
  EXPECT_EQ(r.out, "");
}

TEST(List, SoftwareAvailableHardwareExplained) {
  const RunResult r = RunTool("list");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("page-faults"));
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (absl::StartsWith(line, "task-clock ") ||
        absl::StartsWith(line, "page-faults ") ||
        absl::StartsWith(line, "context-switches ")) {
      EXPECT_THAT(std::string(line), HasSubstr("software    available"))
          << line;
    }
    if (absl::StartsWith(line, "instructions ")) {
      if (perfcounters::ProbeCapabilities().has_hardware_pmu()) {
        EXPECT_THAT(std::string(line), HasSubstr("available")) << line;
      } else {
        EXPECT_THAT(std::string(line),
                    HasSubstr("hardware    unavailable: instructions: "
                              "not supported by this machine's PMU"))
            << line;
      }
    }
  }
}

TEST(List, GoldenJsonForAPattern) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult r = RunTool("list --json faults");
  EXPECT_EQ(r.code, 0) << r.err;
  ExpectGolden(r.out, "list_faults.json");
}

}  // namespace
