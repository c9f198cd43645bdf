// Tests of every perf_event ioctl wrapped by Event: each is exercised on a
// real event for its effect, and in an error case whose message must name
// the ioctl, the event and the errno.
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "support/event_helpers.h"
#include "support/hw.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"
#include "support/thread_clock.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::CpuWindow;
using ::perfcounters::testing::FreshPages;
using ::perfcounters::testing::kShortWindowTolerance;
using ::perfcounters::testing::Message;
using ::perfcounters::testing::SoftwareAttr;
using ::perfcounters::testing::SpinCpuNs;
using ::testing::HasSubstr;

absl::StatusOr<Event> OpenTaskClock() {
  return Event::Open(SoftwareAttr(PERF_COUNT_SW_TASK_CLOCK), "task-clock");
}

uint64_t ValueOf(const Event& event) {
  absl::StatusOr<Count> count = event.ReadCount();
  EXPECT_TRUE(count.ok()) << count.status();
  return count.ok() ? count->value : ~0ull;
}

TEST(IoctlTest, EnableDisableReset) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> event = OpenTaskClock();
  ASSERT_TRUE(event.ok()) << event.status();
  SpinCpuNs(2'000'000);
  EXPECT_EQ(ValueOf(*event), 0u);  // created disabled: nothing counted

  ASSERT_THAT(event->Enable(), IsOk());
  CpuWindow window;
  SpinCpuNs(10'000'000);
  window.Stop();
  ASSERT_THAT(event->Disable(), IsOk());
  const uint64_t counted = ValueOf(*event);
  // Enabled, it counts the window (within the two clocks' disagreement on a
  // loaded VM; see thread_clock.h); a counter that stayed off reads 0.
  EXPECT_THREAD_CLOCK(counted, window, kShortWindowTolerance);

  SpinCpuNs(5'000'000);
  EXPECT_EQ(ValueOf(*event), counted);  // disabled: stopped

  ASSERT_THAT(event->Reset(), IsOk());
  EXPECT_EQ(ValueOf(*event), 0u);
}

// Overflow signals: SIGIO-like realtime signal with si_code POLL_IN for an
// overflow and POLL_HUP for the one that used up the refresh count.
std::atomic<int> g_poll_in{0};
std::atomic<int> g_poll_hup{0};

void OnOverflowSignal(int, siginfo_t* info, void*) {
  if (info->si_code == POLL_HUP) {
    ++g_poll_hup;
  } else if (info->si_code == POLL_IN) {
    ++g_poll_in;
  }
}

// Routes overflow notifications of `fd` to this thread as signal `sig`.
void RouteOverflowSignal(int fd, int sig) {
  struct sigaction action {};
  action.sa_sigaction = OnOverflowSignal;
  action.sa_flags = SA_SIGINFO;
  sigaction(sig, &action, nullptr);
  f_owner_ex owner{F_OWNER_TID, static_cast<pid_t>(syscall(SYS_gettid))};
  ASSERT_EQ(fcntl(fd, F_SETOWN_EX, &owner), 0);
  ASSERT_EQ(fcntl(fd, F_SETSIG, sig), 0);
  ASSERT_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC), 0);
}

TEST(IoctlTest, RefreshDisablesAfterNOverflows) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  constexpr uint64_t kPeriod = 10;
  constexpr int kOverflows = 2;
  Attr attr = SoftwareAttr(PERF_COUNT_SW_PAGE_FAULTS);
  attr.sample_period = kPeriod;
  attr.wakeup_events = 1;
  absl::StatusOr<Event> event = Event::Open(attr, "page-faults");
  ASSERT_TRUE(event.ok()) << event.status();
  const int sig = SIGRTMIN + 3;
  RouteOverflowSignal(event->fd(), sig);
  g_poll_in = 0;
  g_poll_hup = 0;

  FreshPages pages(200);
  ASSERT_TRUE(pages.ok());
  ASSERT_THAT(event->Refresh(kOverflows), IsOk());
  pages.Touch();
  signal(sig, SIG_IGN);

  // The event disabled itself at the second overflow (20 faults), long
  // before the 200 pages were all touched.
  const uint64_t value = ValueOf(*event);
  EXPECT_GE(value, kPeriod * kOverflows);
  EXPECT_LE(value, kPeriod * kOverflows + 3);
  EXPECT_EQ(g_poll_hup.load(), 1);
  EXPECT_EQ(g_poll_in.load(), kOverflows - 1);

  // Refreshing again allows kOverflows more.
  g_poll_hup = 0;
  FreshPages more(200);
  ASSERT_TRUE(more.ok());
  ASSERT_THAT(event->Refresh(1), IsOk());
  more.Touch();
  const uint64_t after = ValueOf(*event);
  EXPECT_GE(after - value, kPeriod - 3);
  EXPECT_LE(after - value, kPeriod + 3);
}

TEST(IoctlTest, RefreshErrors) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> event = OpenTaskClock();
  ASSERT_TRUE(event.ok()) << event.status();
  absl::Status zero = event->Refresh(0);
  EXPECT_TRUE(absl::IsInvalidArgument(zero));
  EXPECT_THAT(Message(zero),
              HasSubstr("PERF_EVENT_IOC_REFRESH on 'task-clock'"));
  // Not a sampling event: the kernel refuses.
  absl::Status not_sampling = event->Refresh(1);
  EXPECT_TRUE(absl::IsInvalidArgument(not_sampling));
  EXPECT_EQ(Message(not_sampling),
            "PERF_EVENT_IOC_REFRESH on 'task-clock': EINVAL (Invalid "
            "argument)");
}

TEST(IoctlTest, SetPeriodMovesTheOverflow) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  Attr attr = SoftwareAttr(PERF_COUNT_SW_PAGE_FAULTS);
  attr.sample_period = 100;
  absl::StatusOr<Event> event = Event::Open(attr, "page-faults");
  ASSERT_TRUE(event.ok()) << event.status();
  ASSERT_THAT(event->SetPeriod(7), IsOk());
  FreshPages pages(200);
  ASSERT_TRUE(pages.ok());
  ASSERT_THAT(event->Refresh(1), IsOk());
  pages.Touch();
  const uint64_t value = ValueOf(*event);
  EXPECT_GE(value, 7u);
  EXPECT_LE(value, 10u);  // not 100: the new period applied

  absl::Status zero = event->SetPeriod(0);
  EXPECT_EQ(Message(zero),
            "PERF_EVENT_IOC_PERIOD on 'page-faults': EINVAL (Invalid "
            "argument)");
  absl::StatusOr<Event> counting = OpenTaskClock();
  ASSERT_TRUE(counting.ok()) << counting.status();
  EXPECT_THAT(Message(counting->SetPeriod(1000)),
              HasSubstr("PERF_EVENT_IOC_PERIOD on 'task-clock': EINVAL"));
}

TEST(IoctlTest, QueryIdMatchesTheId) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> a = OpenTaskClock();
  absl::StatusOr<Event> b = OpenTaskClock();
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  absl::StatusOr<uint64_t> ida = a->QueryId();
  absl::StatusOr<uint64_t> idb = b->QueryId();
  ASSERT_THAT(ida, IsOk());
  ASSERT_THAT(idb, IsOk());
  EXPECT_EQ(*ida, a->id());
  EXPECT_EQ(*idb, b->id());
  EXPECT_NE(*ida, *idb);
}

// A perf ring buffer (1 + 1 pages) mapped over an event's fd.
class Ring {
 public:
  explicit Ring(int fd) : size_(2 * sysconf(_SC_PAGESIZE)) {
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    base_ = p == MAP_FAILED ? nullptr : p;
  }
  ~Ring() {
    if (base_ != nullptr) munmap(base_, size_);
  }
  bool ok() const { return base_ != nullptr; }

 private:
  size_t size_;
  void* base_;
};

Attr SamplingAttr() {
  Attr attr = SoftwareAttr(PERF_COUNT_SW_TASK_CLOCK);
  attr.sample_period = 1'000'000;
  attr.sample_type = PERF_SAMPLE_IP;
  return attr;
}

TEST(IoctlTest, SetOutputNeedsATargetWithABuffer) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> target = Event::Open(SamplingAttr(), "target");
  absl::StatusOr<Event> source = Event::Open(SamplingAttr(), "source");
  ASSERT_THAT(target, IsOk());
  ASSERT_THAT(source, IsOk());
  // No buffer on the target yet: the kernel refuses.
  EXPECT_EQ(Message(source->SetOutput(target->fd())),
            "PERF_EVENT_IOC_SET_OUTPUT on 'source': EINVAL (Invalid "
            "argument)");
  Ring ring(target->fd());
  ASSERT_TRUE(ring.ok());
  EXPECT_THAT(source->SetOutput(target->fd()), IsOk());
  EXPECT_THAT(source->SetOutput(-1), IsOk());
  EXPECT_EQ(Message(source->SetOutput(987654)),
            "PERF_EVENT_IOC_SET_OUTPUT on 'source': EBADF (Bad file "
            "descriptor)");
}

TEST(IoctlTest, PauseOutputNeedsABuffer) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> event = Event::Open(SamplingAttr(), "sampler");
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(Message(event->PauseOutput(true)),
            "PERF_EVENT_IOC_PAUSE_OUTPUT on 'sampler': EINVAL (Invalid "
            "argument)");
  Ring ring(event->fd());
  ASSERT_TRUE(ring.ok());
  EXPECT_THAT(event->PauseOutput(true), IsOk());
  EXPECT_THAT(event->PauseOutput(false), IsOk());
}

// Loads "r0 = 0; exit" as a tracepoint BPF program; -1 with `why` set.
int LoadTrivialTracepointProgram(std::string* why) {
  bpf_insn insns[2] = {};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;  // r0 = 0
  insns[1].code = BPF_JMP | BPF_EXIT;
  static const char kLicense[] = "GPL";
  bpf_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
  attr.insn_cnt = 2;
  attr.insns = reinterpret_cast<uint64_t>(insns);
  attr.license = reinterpret_cast<uint64_t>(kLicense);
  const int fd =
      static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr)));
  if (fd < 0) *why = absl::StrCat("BPF_PROG_LOAD failed: ", strerror(errno));
  return fd;
}

uint32_t BpfProgramId(int prog_fd) {
  bpf_prog_info info;
  memset(&info, 0, sizeof(info));
  bpf_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.info.bpf_fd = prog_fd;
  attr.info.info_len = sizeof(info);
  attr.info.info = reinterpret_cast<uint64_t>(&info);
  if (syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)) != 0) {
    return 0;
  }
  return info.id;
}

TEST(IoctlTest, SetBpfAndQueryBpf) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> not_tracepoint = OpenTaskClock();
  ASSERT_THAT(not_tracepoint, IsOk());
  EXPECT_EQ(Message(not_tracepoint->QueryBpf().status()),
            "PERF_EVENT_IOC_QUERY_BPF on 'task-clock': EINVAL (Invalid "
            "argument)");
  EXPECT_EQ(Message(not_tracepoint->SetBpf(-1)),
            "PERF_EVENT_IOC_SET_BPF on 'task-clock': EBADF (Bad file "
            "descriptor)");

  std::string why;
  std::optional<uint64_t> id =
      testing::TracepointId("sched", "sched_switch", &why);
  if (!id) GTEST_SKIP() << why;
  Attr attr;
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.config = *id;
  attr.disabled = true;
  attr.read_format = testing::kCountFormat;
  absl::StatusOr<Event> tp = Event::Open(attr, "sched:sched_switch");
  ASSERT_TRUE(tp.ok()) << tp.status();
  absl::StatusOr<std::vector<uint32_t>> none = tp->QueryBpf();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());

  const int prog = LoadTrivialTracepointProgram(&why);
  if (prog < 0) GTEST_SKIP() << why;
  EXPECT_THAT(tp->SetBpf(prog), IsOk());
  absl::StatusOr<std::vector<uint32_t>> attached = tp->QueryBpf();
  ASSERT_TRUE(attached.ok()) << attached.status();
  ASSERT_EQ(attached->size(), 1u);
  EXPECT_EQ((*attached)[0], BpfProgramId(prog));
  absl::StatusOr<std::vector<uint32_t>> too_small = tp->QueryBpf(0);
  EXPECT_FALSE(too_small.ok());
  close(prog);
}

TEST(IoctlTest, ModifyAttributesMovesABreakpoint) {
  static volatile uint64_t first = 0;
  static volatile uint64_t second = 0;
  Attr attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = HW_BREAKPOINT_W;
  attr.config1 = reinterpret_cast<uint64_t>(&first);
  attr.config2 = HW_BREAKPOINT_LEN_8;
  attr.disabled = true;
  attr.exclude_kernel = true;
  attr.exclude_hv = true;
  attr.read_format = testing::kCountFormat;
  PERFCOUNTERS_REQUIRE_BREAKPOINTS();
  absl::StatusOr<Event> bp = Event::Open(attr, "mem:first:w");
  ASSERT_TRUE(bp.ok()) << bp.status();
  Attr moved = attr;
  moved.config1 = reinterpret_cast<uint64_t>(&second);
  ASSERT_THAT(bp->ModifyAttributes(moved), IsOk());
  absl::StatusOr<Count> count = bp->CountCall([] {
    for (int i = 0; i < 10; ++i) first = i;
    for (int i = 0; i < 3; ++i) second = i;
  });
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->value, 3u);

  absl::StatusOr<Event> clock = OpenTaskClock();
  ASSERT_THAT(clock, IsOk());
  // Only breakpoints can be modified; the errno depends on the kernel
  // version (EOPNOTSUPP in 6.1, EINVAL in later ones).
  EXPECT_THAT(
      Message(clock->ModifyAttributes(SoftwareAttr(PERF_COUNT_SW_TASK_CLOCK))),
      ::testing::AnyOf(
          "PERF_EVENT_IOC_MODIFY_ATTRIBUTES on 'task-clock': EOPNOTSUPP "
          "(Operation not supported)",
          "PERF_EVENT_IOC_MODIFY_ATTRIBUTES on 'task-clock': EINVAL (Invalid "
          "argument)"));
}

TEST(IoctlTest, EveryIoctlOnAClosedEventNamesTheIoctl) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> event = OpenTaskClock();
  ASSERT_THAT(event, IsOk());
  ASSERT_THAT(event->Close(), IsOk());
  const Event& e = *event;
  const std::vector<std::pair<std::string, std::function<absl::Status()>>>
      calls = {
          {"PERF_EVENT_IOC_ENABLE", [&] { return e.Enable(); }},
          {"PERF_EVENT_IOC_DISABLE", [&] { return e.Disable(true); }},
          {"PERF_EVENT_IOC_RESET", [&] { return e.Reset(); }},
          {"PERF_EVENT_IOC_REFRESH", [&] { return e.Refresh(1); }},
          {"PERF_EVENT_IOC_PERIOD", [&] { return e.SetPeriod(1); }},
          {"PERF_EVENT_IOC_ID", [&] { return e.QueryId().status(); }},
          {"PERF_EVENT_IOC_SET_OUTPUT", [&] { return e.SetOutput(-1); }},
          {"PERF_EVENT_IOC_SET_FILTER", [&] { return e.SetFilter("x"); }},
          {"PERF_EVENT_IOC_SET_BPF", [&] { return e.SetBpf(3); }},
          {"PERF_EVENT_IOC_PAUSE_OUTPUT", [&] { return e.PauseOutput(true); }},
          {"PERF_EVENT_IOC_QUERY_BPF", [&] { return e.QueryBpf().status(); }},
          {"PERF_EVENT_IOC_MODIFY_ATTRIBUTES",
           [&] { return e.ModifyAttributes(e.attr()); }},
      };
  for (const auto& [name, call] : calls) {
    absl::Status status = call();
    EXPECT_TRUE(absl::IsFailedPrecondition(status)) << name << ": " << status;
    EXPECT_EQ(Message(status),
              absl::StrCat(name, " on 'task-clock': the event is closed"));
  }
}

TEST(IoctlTest, SetFilterOnANonTracepoint) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Event> event = OpenTaskClock();
  ASSERT_THAT(event, IsOk());
  absl::Status status = event->SetFilter("common_pid == 1");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(Message(status),
              HasSubstr("PERF_EVENT_IOC_SET_FILTER on 'task-clock': E"));
}

}  // namespace
}  // namespace perfcounters
