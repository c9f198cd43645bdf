// Tests of RingBuffer (ring_buffer.h) against the real kernel with software
// events: mapping rules, records straddling the end of a tiny ring, lost
// records, blocking reads with timeout and cancellation, pause/resume and
// SetOutput redirection.
#include "perfcounters/ring_buffer.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/records.h"
#include "support/event_helpers.h"
#include "support/sampling_helpers.h"
#include "support/sanitizers.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

const size_t kPage = testing::FreshPages::PageSize();
using testing::FreshPages;
using testing::OpenSampler;
using testing::Sampler;

// A page-fault sampler: one 48-byte sample per user page fault (header + ip,
// pid/tid, time, addr, period). 48 does not divide the ring size, so
// records straddle the end of the ring.
Attr PageFaultSampler() {
  Attr a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_PAGE_FAULTS;
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
  a.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a.disabled = true;
  a.exclude_kernel = true;
  a.exclude_hv = true;
  a.wakeup_events = 1;
  return a;
}
constexpr size_t kPageFaultSampleSize = 48;

// Waits until thread `tid` of this process sleeps in ppoll(2), as
// /proc/self/task/TID/syscall says (its first field is the number of the
// system call the thread is blocked in). A blocking Read checks the ring
// before it polls, so a test of what wakes the poll must not write records
// before the reader is in it: on a loaded machine a new thread may not have
// run at all after tens of milliseconds. True once it is; false after 10 s.
bool WaitUntilInPpoll(pid_t tid) {
  const std::string path =
      "/proc/self/task/" + std::to_string(tid) + "/syscall";
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(path);
    long nr = -1;
    if (in >> nr && nr == SYS_ppoll) return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

TEST(RingBufferTest, DataPagesMustBeAPowerOfTwo) {
  absl::StatusOr<Event> ev = Event::Open(PageFaultSampler(), "page-faults");
  ASSERT_TRUE(ev.ok()) << ev.status();
  for (size_t bad : {size_t{0}, size_t{3}, size_t{6}, size_t{12}}) {
    absl::StatusOr<RingBuffer> ring = RingBuffer::Map(*ev, bad);
    ASSERT_FALSE(ring.ok()) << bad;
    EXPECT_EQ(ring.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(ring.status().message(),
                HasSubstr("data_pages is " + std::to_string(bad)));
    EXPECT_THAT(ring.status().message(), HasSubstr("power of two"));
  }
  absl::StatusOr<RingBuffer> ring = RingBuffer::Map(*ev, 4);
  ASSERT_TRUE(ring.ok()) << ring.status();
  EXPECT_EQ(ring->data_size(), 4 * kPage);
  EXPECT_FALSE(ring->HasRecord());
  // A second ring of a different size on the same event: the kernel says
  // EINVAL and we say why.
  absl::StatusOr<RingBuffer> other = RingBuffer::Map(*ev, 8);
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("EINVAL"));
}

TEST(RingBufferTest, EmptyRingReadsNothing) {
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  RingBuffer* ring = &sampler->ring;
  absl::StatusOr<std::optional<Record>> r = ring->TryRead();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(ring->data_head(), 0u);
  EXPECT_EQ(ring->data_tail(), 0u);
}

// A 1+1 page ring, drained after every fault: 48-byte samples wrap the
// 4096-byte ring again and again, and some straddle its end. Each record's
// bytes must equal those read independently from a second mapping of the
// same ring, and decode to the page touched.
TEST(RingBufferTest, RecordsStraddlingTheEndAreCopiedWhole) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  const size_t size = ring->data_size();
  ASSERT_NE(size % kPageFaultSampleSize, 0u);
  // The independent view: the same ring mapped again, read-only.
  void* view = mmap(nullptr, 2 * kPage, PROT_READ, MAP_SHARED, ev->fd(), 0);
  ASSERT_NE(view, MAP_FAILED) << strerror(errno);
  const uint8_t* data = static_cast<const uint8_t*>(view) + kPage;

  constexpr size_t kPages = 400;  // 400 * 48 bytes = 4.7 trips round
  FreshPages pages(kPages);
  ASSERT_TRUE(pages.ok());
  const uint32_t tid = static_cast<uint32_t>(gettid());
  int straddled = 0;
  size_t matched = 0;
  for (size_t i = 0; i < kPages; ++i) {
    ASSERT_THAT(ev->Enable(), IsOk());
    pages.Touch(i);
    ASSERT_THAT(ev->Disable(), IsOk());
    bool found = false;
    while (ring->HasRecord()) {
      const uint64_t tail = ring->data_tail();
      absl::StatusOr<std::optional<absl::Span<const uint8_t>>> raw =
          ring->TryReadRaw();
      ASSERT_TRUE(raw.ok()) << raw.status();
      ASSERT_TRUE(raw->has_value());
      const absl::Span<const uint8_t> bytes = **raw;
      // The same bytes, read independently from the second mapping.
      std::vector<uint8_t> expect(bytes.size());
      for (size_t k = 0; k < bytes.size(); ++k) {
        expect[k] = data[(tail + k) % size];
      }
      ASSERT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), expect);
      const size_t off = tail % size;
      if (off + bytes.size() > size) ++straddled;
      absl::StatusOr<Record> rec = DecodeRecord(bytes, ring->format());
      ASSERT_TRUE(rec.ok()) << rec.status();
      const SampleRecord* s = rec->As<SampleRecord>();
      ASSERT_NE(s, nullptr) << RecordTypeName(rec->type());
      ASSERT_EQ(bytes.size(), kPageFaultSampleSize);
      EXPECT_EQ(s->tid, tid);
      EXPECT_EQ(s->period, 1u);
      if (s->addr == pages.addr(i)) {
        found = true;
        ++matched;
      }
    }
    EXPECT_TRUE(found) << "no sample for page " << i;
  }
  EXPECT_EQ(matched, kPages);
  // 400 records of 48 bytes cross the ring's end at 4096, 8192, 12288 and
  // 16384 bytes; 12288 is a multiple of 48, the other three are straddled.
  EXPECT_EQ(straddled, 3);
  EXPECT_EQ(ring->lost_records(), 0u);
  munmap(view, 2 * kPage);
}

// An undrained tiny ring overflows: every fault is either a sample we read
// or counted in a PERF_RECORD_LOST, and together they equal the count.
TEST(RingBufferTest, LostRecordsAreAccountedExactly) {
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  constexpr size_t kPages = 400;  // far more than the 85 samples that fit
  FreshPages pages(kPages + 1);
  ASSERT_TRUE(pages.ok());
  ASSERT_THAT(ev->Enable(), IsOk());
  for (size_t i = 0; i < kPages; ++i) {
    pages.Touch(i);
    // Stay well below the kernel's per-tick sample limit, so that the
    // kernel loses records (ring full) rather than throttling.
    if (i % 32 == 31) std::this_thread::sleep_for(2ms);
  }
  ASSERT_THAT(ev->Disable(), IsOk());
  uint64_t samples = 0;
  auto drain = [&] {
    while (true) {
      absl::StatusOr<std::optional<Record>> r = ring->TryRead();
      ASSERT_TRUE(r.ok()) << r.status();
      if (!r->has_value()) return;
      if ((*r)->As<SampleRecord>() != nullptr) ++samples;
      ASSERT_NE((*r)->type(), static_cast<uint32_t>(PERF_RECORD_THROTTLE));
    }
  };
  drain();
  EXPECT_LE(samples, 4096 / kPageFaultSampleSize);
  // The kernel writes the LOST record with the next record that fits.
  ASSERT_THAT(ev->Enable(), IsOk());
  pages.Touch(kPages);
  ASSERT_THAT(ev->Disable(), IsOk());
  drain();
  absl::StatusOr<Count> count = ev->ReadCount();
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_GE(count->value, kPages + 1);
  EXPECT_GT(ring->lost_records(), 0u);
  EXPECT_EQ(samples + ring->lost_records(), count->value)
      << "samples " << samples << " lost " << ring->lost_records();
}

TEST(RingBufferTest, BlockingReadTimesOut) {
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  RingBuffer* ring = &sampler->ring;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Record> r = ring->Read(50ms);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_GE(took, 50ms);
  EXPECT_LT(took, 1000ms);
}

TEST(RingBufferTest, CancelWakesABlockedReadFromAnotherThread) {
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  RingBuffer* ring = &sampler->ring;
  std::chrono::steady_clock::time_point cancelled_at;
  // Before the thread: it may run its whole sleep before this thread
  // takes the time.
  const auto start = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(30ms);
    cancelled_at = std::chrono::steady_clock::now();
    ring->Cancel();
  });
  absl::StatusOr<Record> r = ring->Read(RingBuffer::kWaitForever);
  const auto returned_at = std::chrono::steady_clock::now();
  canceller.join();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled) << r.status();
  // Woken by the cancel: not before it, and not by a timeout (there is
  // none); the bound on the wake-up is loose for loaded machines.
  EXPECT_GE(returned_at - start, 30ms);
  EXPECT_GE(returned_at, cancelled_at);
  EXPECT_LT(returned_at - cancelled_at, 1s);
  // The cancel was consumed: the next read times out normally.
  EXPECT_EQ(ring->Read(10ms).status().code(),
            absl::StatusCode::kDeadlineExceeded);
}

// With wakeup_events=1 the kernel wakes poll(2) at the first sample: a
// blocking read returns the record another thread caused.
TEST(RingBufferTest, BlockingReadReturnsARecordWrittenLater) {
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  FreshPages pages(1);
  ASSERT_TRUE(pages.ok());
  // The event counts this thread; the other thread only waits and reads.
  absl::StatusOr<Record> got = absl::UnknownError("not read");
  std::atomic<pid_t> reader_tid{0};
  std::thread reader([&] {
    reader_tid = gettid();
    got = ring->Read(5s);
  });
  while (reader_tid == 0) std::this_thread::yield();
  const bool blocked = WaitUntilInPpoll(reader_tid);
  if (!blocked) reader.join();
  ASSERT_TRUE(blocked) << "the reader never blocked in ppoll(2)";
  ASSERT_THAT(ev->Enable(), IsOk());
  pages.Touch(0);
  ASSERT_THAT(ev->Disable(), IsOk());
  reader.join();
  ASSERT_TRUE(got.ok()) << got.status();
  const SampleRecord* s = got->As<SampleRecord>();
  ASSERT_NE(s, nullptr);
  // The first record woke the reader. It is the page's fault unless a
  // sanitizer's shadow memory faulted first (TSan does), so the page's
  // fault must be the first record or one after it.
  std::vector<std::optional<uint64_t>> addrs = {s->addr};
  for (;;) {
    absl::StatusOr<std::optional<Record>> more = ring->TryRead();
    ASSERT_THAT(more.status(), IsOk());
    if (!more->has_value()) break;
    if (const SampleRecord* m = (*more)->As<SampleRecord>()) {
      addrs.push_back(m->addr);
    }
  }
  EXPECT_THAT(addrs,
              ::testing::Contains(std::optional<uint64_t>(pages.addr(0))));
  if (testing::kSanitizer == nullptr) {
    EXPECT_EQ(addrs.front(), pages.addr(0));
  }
}

// The kernel wakes poll(2) per the attr: after wakeup_events samples, or once
// more than wakeup_watermark bytes are unread (watermark=1). A reader
// blocked before the first sample stays blocked through 4 samples and
// returns (with the first record) at the 5th.
void ExpectWakeupAtFifthSample(const Attr& attr) {
  absl::StatusOr<Sampler> sampler = OpenSampler(attr, "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  FreshPages pages(5);
  ASSERT_TRUE(pages.ok());
  std::atomic<bool> returned{false};
  std::atomic<pid_t> reader_tid{0};
  absl::StatusOr<Record> got = absl::UnknownError("not read");
  std::thread reader([&] {
    reader_tid = gettid();
    got = ring->Read(10s);
    returned = true;
  });
  while (reader_tid == 0) std::this_thread::yield();
  const bool blocked = WaitUntilInPpoll(reader_tid);
  if (!blocked) reader.join();
  ASSERT_TRUE(blocked) << "the reader never blocked in ppoll(2)";
  ASSERT_THAT(ev->Enable(), IsOk());
  for (size_t i = 0; i < 4; ++i) pages.Touch(i);
  ASSERT_THAT(ev->Disable(), IsOk());
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(returned) << "woken before the 5th sample";
  EXPECT_TRUE(ring->HasRecord());  // the records are there all the same
  ASSERT_THAT(ev->Enable(), IsOk());
  pages.Touch(4);
  ASSERT_THAT(ev->Disable(), IsOk());
  reader.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->As<SampleRecord>()->addr, pages.addr(0));
}

TEST(RingBufferTest, WakeupAfterWakeupEventsSamples) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  Attr a = PageFaultSampler();
  a.wakeup_events = 5;
  ExpectWakeupAtFifthSample(a);
}

TEST(RingBufferTest, WakeupAfterWatermarkBytes) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  Attr a = PageFaultSampler();
  a.watermark = true;
  a.wakeup_events = 4 * kPageFaultSampleSize + 1;  // wakeup_watermark
  ExpectWakeupAtFifthSample(a);
}

// While output is paused the kernel writes nothing; on resume it reports
// what it dropped as lost.
TEST(RingBufferTest, PausedOutputWritesNothing) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  FreshPages pages(11);
  ASSERT_TRUE(pages.ok());
  ASSERT_THAT(ring->Pause(), IsOk());
  ASSERT_THAT(ev->Enable(), IsOk());
  for (size_t i = 0; i < 10; ++i) pages.Touch(i);
  ASSERT_THAT(ev->Disable(), IsOk());
  EXPECT_FALSE(ring->HasRecord());
  EXPECT_EQ(ring->data_head(), 0u);
  ASSERT_THAT(ring->Resume(), IsOk());
  ASSERT_THAT(ev->Enable(), IsOk());
  pages.Touch(10);
  ASSERT_THAT(ev->Disable(), IsOk());
  uint64_t samples = 0;
  while (true) {
    absl::StatusOr<std::optional<Record>> r = ring->TryRead();
    ASSERT_TRUE(r.ok()) << r.status();
    if (!r->has_value()) break;
    if (const SampleRecord* s = (*r)->As<SampleRecord>()) {
      ++samples;
      EXPECT_EQ(s->addr, pages.addr(10));
    }
  }
  EXPECT_EQ(samples, 1u);
  EXPECT_EQ(ring->lost_records(), 10u);
}

// A second event's records redirected into the first event's ring.
TEST(RingBufferTest, FollowerRecordsArriveInTheLeadersRing) {
  Attr leader_attr = PageFaultSampler();
  leader_attr.sample_type |= PERF_SAMPLE_ID;
  absl::StatusOr<Event> leader = Event::Open(leader_attr, "page-faults");
  ASSERT_TRUE(leader.ok()) << leader.status();
  Attr follower_attr = leader_attr;
  follower_attr.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
  absl::StatusOr<Event> follower = Event::Open(follower_attr, "minor-faults");
  ASSERT_TRUE(follower.ok()) << follower.status();
  absl::StatusOr<RingBuffer> ring = RingBuffer::Map(*leader, 2);
  ASSERT_TRUE(ring.ok()) << ring.status();
  ASSERT_THAT(ring->AddFollower(*follower), IsOk());

  // A follower whose format differs is refused before the ioctl.
  Attr other_attr = leader_attr;
  other_attr.sample_type &= ~PERF_SAMPLE_TIME;
  absl::StatusOr<Event> other = Event::Open(other_attr, "other");
  ASSERT_TRUE(other.ok()) << other.status();
  absl::Status s = ring->AddFollower(*other);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sample_type"));

  FreshPages pages(5);
  ASSERT_TRUE(pages.ok());
  ASSERT_THAT(leader->Enable(), IsOk());
  ASSERT_THAT(follower->Enable(), IsOk());
  for (size_t i = 0; i < 5; ++i) pages.Touch(i);
  ASSERT_THAT(follower->Disable(), IsOk());
  ASSERT_THAT(leader->Disable(), IsOk());
  std::set<uint64_t> leader_addrs, follower_addrs;
  while (true) {
    absl::StatusOr<std::optional<Record>> r = ring->TryRead();
    ASSERT_TRUE(r.ok()) << r.status();
    if (!r->has_value()) break;
    const SampleRecord* sample = (*r)->As<SampleRecord>();
    if (sample == nullptr) continue;
    if (sample->id == leader->id()) leader_addrs.insert(*sample->addr);
    if (sample->id == follower->id()) follower_addrs.insert(*sample->addr);
  }
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(leader_addrs.count(pages.addr(i))) << i;
    EXPECT_TRUE(follower_addrs.count(pages.addr(i))) << i;
  }
}

// write_backward=1: the kernel overwrites the oldest records instead of
// losing new ones. After 400 faults a 4096-byte ring holds the newest
// complete 48-byte samples: pages 399, 398, ... in that order, none lost.
TEST(RingBufferTest, BackwardRingKeepsTheNewestRecords) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kShadowFaults);
  Attr a = PageFaultSampler();
  a.write_backward = true;
  absl::StatusOr<Sampler> sampler = OpenSampler(a, "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  EXPECT_EQ(ring->TryRead().status().code(),
            absl::StatusCode::kFailedPrecondition);
  constexpr size_t kPages = 400;
  FreshPages pages(kPages);
  ASSERT_TRUE(pages.ok());
  // First a few, then a snapshot of a ring that has not wrapped yet.
  ASSERT_THAT(ev->Enable(), IsOk());
  for (size_t i = 0; i < 3; ++i) pages.Touch(i);
  ASSERT_THAT(ev->Disable(), IsOk());
  absl::StatusOr<std::vector<Record>> snap = ring->ReadBackwardSnapshot();
  ASSERT_TRUE(snap.ok()) << snap.status();
  std::vector<uint64_t> addrs;
  for (const Record& r : *snap) addrs.push_back(*r.As<SampleRecord>()->addr);
  EXPECT_EQ(addrs, (std::vector<uint64_t>{pages.addr(2), pages.addr(1),
                                          pages.addr(0)}));
  ASSERT_THAT(ev->Enable(), IsOk());
  for (size_t i = 3; i < kPages; ++i) {
    pages.Touch(i);
    if (i % 32 == 31) std::this_thread::sleep_for(2ms);  // no throttling
  }
  ASSERT_THAT(ev->Disable(), IsOk());
  snap = ring->ReadBackwardSnapshot();
  ASSERT_TRUE(snap.ok()) << snap.status();
  // 4096 / 48 = 85 records fit; the oldest of them may be cut by the newest.
  ASSERT_GE(snap->size(), 84u);
  ASSERT_LE(snap->size(), 85u);
  for (size_t k = 0; k < snap->size(); ++k) {
    const SampleRecord* s = (*snap)[k].As<SampleRecord>();
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->addr, pages.addr(kPages - 1 - k)) << k;
  }
  EXPECT_EQ(ring->lost_records(), 0u);
  // A forward ring refuses the snapshot.
  absl::StatusOr<Sampler> fwd =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  EXPECT_EQ(fwd->ring.ReadBackwardSnapshot().status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// A per-task event whose task exits hangs up: a blocked read then returns
// FailedPrecondition instead of waiting for its timeout.
TEST(RingBufferTest, ReadReportsTheMonitoredTasksExit) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char c;
    _exit(read(go[0], &c, 1) == 1 ? 0 : 1);
  }
  close(go[0]);
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1, Target::Thread(child));
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  RingBuffer* ring = &sampler->ring;
  std::thread releaser([&] {
    std::this_thread::sleep_for(30ms);
    ASSERT_EQ(write(go[1], "x", 1), 1);
  });
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Record> r = ring->Read(5s);
  const auto took = std::chrono::steady_clock::now() - start;
  releaser.join();
  close(go[1]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition)
      << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("hung up"));
  EXPECT_LT(took, 2s);
}

TEST(RingBufferTest, MovedRingKeepsWorking) {
  absl::StatusOr<Sampler> sampler =
      OpenSampler(PageFaultSampler(), "page-faults", 1);
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Event* ev = &sampler->event;
  RingBuffer* ring = &sampler->ring;
  RingBuffer moved = std::move(*ring);
  FreshPages pages(1);
  ASSERT_TRUE(pages.ok());
  ASSERT_THAT(ev->Enable(), IsOk());
  pages.Touch(0);
  ASSERT_THAT(ev->Disable(), IsOk());
  // The ring holds its own fd: closing the event does not break it.
  ASSERT_THAT(ev->Close(), IsOk());
  // The page's fault is among the records: under a sanitizer its shadow
  // memory's own faults (seen at 0x600000000000 under TSan) may come first.
  bool found = false;
  std::vector<uint64_t> seen;
  for (int i = 0; i < 16 && !found; ++i) {
    absl::StatusOr<Record> r = moved.Read(1s);
    ASSERT_TRUE(r.ok()) << r.status();
    const SampleRecord* sample = r->As<SampleRecord>();
    ASSERT_NE(sample, nullptr);
    ASSERT_TRUE(sample->addr.has_value());
    seen.push_back(*sample->addr);
    found = seen.back() == pages.addr(0);
  }
  EXPECT_TRUE(found) << "no fault at " << pages.addr(0) << " in "
                     << absl::StrJoin(seen, ", ");
  if (::perfcounters::testing::kSanitizer == nullptr) {
    EXPECT_EQ(seen.size(), 1u);  // no sanitizer: the first record
  }
  EXPECT_FALSE(ring->HasRecord());  // moved-from: empty, not mapped
  EXPECT_EQ(ring->TryRead().status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace perfcounters
