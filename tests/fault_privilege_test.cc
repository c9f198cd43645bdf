// fault_privilege_test.cc: an unprivileged user (nobody, no capabilities)
// under kernel.perf_event_paranoid 2 and 3, with real perf_event_open(2)
// calls in a forked child that drops to nobody. Errors must name the sysctl
// and CAP_PERFMON; what is allowed at that level must still open. The sysctl
// is restored afterwards (RAII). Needs root; skips with the reason otherwise.
// (The Google Benchmark path as nobody: benchmark_ext_fault_test.cc.)
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "support/as_nobody.h"
#include "support/paranoid.h"

namespace perfcounters {
namespace {

using ::testing::HasSubstr;

using ::perfcounters::testing::kParanoid;
using ::perfcounters::testing::ReadParanoid;
using ::perfcounters::testing::ScopedParanoid;

// What the child saw: "OK" when the event opened, else the status.
struct ChildResult {
  bool opened = false;
  std::string message;
};

// Forks, drops to nobody/nogroup with no supplementary groups (and so no
// capabilities), opens `event` for `target` and reports back through a pipe.
// With `default_user_only`, plain names are parsed as the Google Benchmark
// integration parses them.
ChildResult OpenAsNobody(const std::string& event, const Target& target,
                         bool default_user_only = false) {
  int fds[2];
  if (pipe(fds) != 0) return {false, "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    const std::string why = ::perfcounters::testing::DropToNobody();
    if (!why.empty()) {
      out = "E:could not drop to nobody: " + why;
    } else {
      ParseOptions options;
      options.default_user_only = default_user_only;
      absl::StatusOr<EventSpec> spec = ParseEvent(event, options);
      if (!spec.ok()) {
        out = "E:" + std::string(spec.status().ToString());
      } else {
        absl::StatusOr<Event> e = Event::Open(*spec, target);
        out = e.ok() ? "OK" : "E:" + std::string(e.status().ToString());
      }
    }
    (void)!write(fds[1], out.data(), out.size());
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) got.append(buf, n);
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  if (got == "OK") return {true, ""};
  return {false, got.size() > 2 ? got.substr(2) : "child died: " + got};
}

class FaultPrivilegeTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "needs root to set kernel.perf_event_paranoid and to "
                      "drop to nobody";
    }
  }
};

TEST_P(FaultPrivilegeTest, KernelCountingIsAClearError) {
  const std::optional<std::string> before = ReadParanoid();
  {
    ScopedParanoid paranoid(GetParam());
    ASSERT_TRUE(paranoid.ok()) << "cannot write " << kParanoid;
    const ChildResult r = OpenAsNobody("task-clock", Target::CallingThread());
    ASSERT_FALSE(r.opened) << "counting kernel code as nobody at level "
                           << GetParam();
    EXPECT_THAT(r.message, HasSubstr("PERMISSION_DENIED"));
    EXPECT_THAT(r.message, HasSubstr("kernel.perf_event_paranoid is " +
                                     std::to_string(GetParam())));
    EXPECT_THAT(r.message, HasSubstr("CAP_PERFMON"));
    EXPECT_THAT(r.message, HasSubstr("task-clock"));
  }
  EXPECT_EQ(ReadParanoid(), before) << "the sysctl was not restored";
}

TEST_P(FaultPrivilegeTest, SystemWideCountingIsAClearError) {
  ScopedParanoid paranoid(GetParam());
  ASSERT_TRUE(paranoid.ok());
  const ChildResult r = OpenAsNobody("task-clock:u", Target::AllThreads(0));
  ASSERT_FALSE(r.opened);
  EXPECT_THAT(r.message, HasSubstr("kernel.perf_event_paranoid"));
  EXPECT_THAT(r.message, HasSubstr("CAP_PERFMON"));
}

// Level 2 allows user-space counting of one's own threads. Level 3 (a
// Debian/Android kernel patch) forbids everything; upstream kernels treat 3
// like 2, so at 3 either outcome is right, but an error must be clear.
TEST_P(FaultPrivilegeTest, UserSpaceCountingOfOwnThread) {
  ScopedParanoid paranoid(GetParam());
  ASSERT_TRUE(paranoid.ok());
  const ChildResult r = OpenAsNobody("task-clock:u", Target::CallingThread());
  if (GetParam() == 2) {
    EXPECT_TRUE(r.opened) << r.message;
  } else if (!r.opened) {
    EXPECT_THAT(r.message, HasSubstr("kernel.perf_event_paranoid is 3"));
    EXPECT_THAT(r.message, HasSubstr("CAP_PERFMON"));
  }
}

// Plain faults and clocks are user-only under default_user_only, so they
// open as nobody wherever :u does; context-switches happens in the kernel,
// so it is left counting the kernel and refused, with advice that does not
// suggest :u (it would count 0).
TEST_P(FaultPrivilegeTest, DefaultUserOnlyFaultsAndClocksOpen) {
  ScopedParanoid paranoid(GetParam());
  ASSERT_TRUE(paranoid.ok());
  const ChildResult colon_u =
      OpenAsNobody("task-clock:u", Target::CallingThread());
  for (const char* event : {"page-faults", "minor-faults", "task-clock"}) {
    const ChildResult r = OpenAsNobody(event, Target::CallingThread(),
                                       /*default_user_only=*/true);
    EXPECT_EQ(r.opened, colon_u.opened) << event << ": " << r.message;
    if (GetParam() == 2) {
      EXPECT_TRUE(r.opened) << event << ": " << r.message;
    }
  }
  const ChildResult cs =
      OpenAsNobody("context-switches", Target::CallingThread(),
                   /*default_user_only=*/true);
  ASSERT_FALSE(cs.opened);
  EXPECT_THAT(cs.message, HasSubstr("context-switches happens in the kernel"));
  EXPECT_THAT(cs.message, HasSubstr("kernel.perf_event_paranoid=1"));
  EXPECT_THAT(cs.message, ::testing::Not(HasSubstr("add the :u")));
}

INSTANTIATE_TEST_SUITE_P(Levels, FaultPrivilegeTest, ::testing::Values(2, 3));

}  // namespace
}  // namespace perfcounters
