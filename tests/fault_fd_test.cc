// fault_fd_test.cc: file descriptors under stress and at the limit, with
// real perf_event_open(2) calls: 1,000 open/close cycles (the fd count
// checked after each) and every error path leave the process's fd count
// where it started, and a tiny RLIMIT_NOFILE gives a clear error naming the
// limit with nothing half-open (a Group whose third member hits EMFILE
// closes the first two).
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "perfcounters/ring_buffer.h"
#include "support/paranoid.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::testing::HasSubstr;

// Entries of /proc/self/fd (the directory's own fd excluded).
size_t OpenFdCount() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  size_t n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;
}

EventSpec Spec(const std::string& text) {
  absl::StatusOr<EventSpec> spec = ParseEvent(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
  return spec.ok() ? *spec : EventSpec{};
}

// 1,000 cycles: single events released by Close() and by the destructor,
// and 3-event groups released by theirs. The fd count is checked after
// every cycle, so a leak is caught in the cycle that makes it; each path
// runs hundreds of times.
TEST(FaultFdTest, OpenCloseCyclesLeakNothing) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  const EventSpec clock = Spec("task-clock");
  const std::vector<EventSpec> group = {Spec("task-clock"), Spec("page-faults"),
                                        Spec("context-switches")};
  const size_t before = OpenFdCount();
  ASSERT_GT(before, 0u);
  for (int i = 0; i < 1000; ++i) {
    if (i % 10 == 0) {
      absl::StatusOr<Group> g = Group::Open(group);
      ASSERT_TRUE(g.ok()) << "cycle " << i << ": " << g.status();
      ASSERT_EQ(g->size(), 3u);
      ASSERT_EQ(OpenFdCount(), before + 3) << "cycle " << i;
    } else {
      absl::StatusOr<Event> e = Event::Open(clock);
      ASSERT_TRUE(e.ok()) << "cycle " << i << ": " << e.status();
      if (i % 2 == 1) {
        ASSERT_THAT(e->Close(), IsOk());
      }
    }
    ASSERT_EQ(OpenFdCount(), before) << "cycle " << i;
  }
}

TEST(FaultFdTest, EveryErrorPathLeavesTheFdCountUnchanged) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  const size_t before = OpenFdCount();
  int failures = 0;
  auto expect_error = [&](const absl::Status& s, const char* what) {
    EXPECT_FALSE(s.ok()) << what;
    EXPECT_FALSE(s.message().empty()) << what;
    EXPECT_EQ(OpenFdCount(), before) << what << ": " << s;
    ++failures;
  };

  // A PMU type the kernel does not have (ENOENT).
  Attr bad;
  bad.type = 0x7fff0000;
  bad.disabled = true;
  expect_error(Event::Open(bad, "bad-type").status(), "unknown type");
  // An invalid attr (EINVAL: unknown read_format bits).
  Attr einval = Spec("task-clock").attr;
  einval.read_format = uint64_t{1} << 40;
  expect_error(Event::Open(einval, "bad-read_format").status(),
               "bad read_format");
  // A group whose last member cannot open: the first two are closed.
  EventSpec bad_spec = Spec("task-clock");
  bad_spec.attr = bad;
  expect_error(
      Group::Open({Spec("task-clock"), Spec("page-faults"), bad_spec}).status(),
      "group with a bad third member");
  // A group whose leader cannot open.
  expect_error(Group::Open({bad_spec, Spec("page-faults")}).status(),
               "group with a bad leader");
  // A thread that does not exist (ESRCH).
  expect_error(
      Event::Open(Spec("task-clock"), Target::Thread(0x3fffffff)).status(),
      "missing thread");
  // A ring buffer on a counting (non-sampling) event / with a bad size.
  {
    absl::StatusOr<Event> e = Event::Open(Spec("task-clock"));
    ASSERT_TRUE(e.ok()) << e.status();
    const absl::Status s = RingBuffer::Map(*e, 3).status();
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(OpenFdCount(), before + 1) << s;
  }
  {
    // mmap(2) fails (2^24 pages is beyond any perf ring): the ring's own
    // duplicate of the fd is closed again.
    EventSpec sampling = Spec("task-clock");
    sampling.attr.sample_period = 1000000;
    sampling.attr.sample_type = PERF_SAMPLE_IP;
    absl::StatusOr<Event> e = Event::Open(sampling);
    ASSERT_TRUE(e.ok()) << e.status();
    const size_t with_event = OpenFdCount();
    absl::Status s = RingBuffer::Map(*e, size_t{1} << 24).status();
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(OpenFdCount(), with_event) << s;
  }
  // Unknown events never reach the kernel.
  expect_error(ParseEvent("no-such-event").status(), "unknown event");
  EXPECT_EQ(failures, 6);
  EXPECT_EQ(OpenFdCount(), before);
}

// Lowers the soft RLIMIT_NOFILE for the scope; restores it on exit.
class ScopedFdLimit {
 public:
  explicit ScopedFdLimit(rlim_t soft) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    ok_ = setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~ScopedFdLimit() { setrlimit(RLIMIT_NOFILE, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

// The highest open fd (-1 if none).
int HighestFd() {
  DIR* dir = opendir("/proc/self/fd");
  int highest = -1;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::stoi(e->d_name);
    if (fd != dirfd(dir)) highest = std::max(highest, fd);
  }
  closedir(dir);
  return highest;
}

TEST(FaultFdTest, TinyFdLimitIsAClearErrorAndNothingStaysHalfOpen) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  const size_t before = OpenFdCount();
  std::vector<EventSpec> group = {Spec("task-clock"), Spec("page-faults"),
                                  Spec("context-switches")};
  absl::Status status;
  {
    // Room for exactly two more fds: the third member hits EMFILE. Gaps
    // below the highest inherited fd are filled with /dev/null first.
    const rlim_t soft = std::max<rlim_t>(HighestFd() + 1, OpenFdCount() + 2);
    std::vector<int> fillers;
    while (soft - OpenFdCount() > 2) {
      fillers.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
      ASSERT_GE(fillers.back(), 0);
    }
    const size_t at_limit = OpenFdCount();
    {
      ScopedFdLimit limit(soft);
      ASSERT_TRUE(limit.ok());
      status = Group::Open(group).status();
      EXPECT_EQ(OpenFdCount(), at_limit) << "members stayed open";
      // A single event still fits.
      absl::StatusOr<Event> one = Event::Open(group[0]);
      EXPECT_TRUE(one.ok()) << one.status();
    }
    for (int fd : fillers) close(fd);
  }
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("RLIMIT_NOFILE"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("context-switches"));
  EXPECT_EQ(OpenFdCount(), before);
  // With the limit restored the same group opens.
  absl::StatusOr<Group> g = Group::Open(group);
  EXPECT_TRUE(g.ok()) << g.status();
}

}  // namespace
}  // namespace perfcounters
