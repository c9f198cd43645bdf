// counter_set.cc: CounterSet, the snapshots behind Measure (see
// counter_set.h for the path rules).
#include "perfcounters/internal/counter_set.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "perfcounters/group.h"
#include "perfcounters/internal/hot_path.h"
#include "perfcounters/internal/user_read_algorithm.h"
#include "perfcounters/internal/user_read_hardware.h"
#include "perfcounters/user_read.h"

namespace perfcounters {
namespace {

// Calibration stops after this many empty intervals even when the clock
// cannot be read.
constexpr int64_t kMaxCalibrationSamples = int64_t{1} << 20;

// This thread's CPU time in seconds (0 when the clock cannot be read).
double ThreadCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Maps every member of `group` for user-space reads; empty with *why set
// when the group cannot be read from user space.
std::vector<UserReader> MapMembers(const Group& group,
                                   const internal::MapMember* fake,
                                   std::string* why) {
  std::vector<UserReader> readers;
  // Groups with an event that is never read from user space (software,
  // topdown) are not mapped at all (a test's fake pages may be any event's).
  for (const Event& e : group.events()) {
    const char* reason = ReadSyscallOnlyReason(e.attr());
    if (reason != nullptr && fake == nullptr) {
      *why = absl::StrCat(e.label(), " is ", reason, ": read(2)");
      return {};
    }
  }
  for (const Event& e : group.events()) {
    absl::StatusOr<UserReader> r =
        fake != nullptr ? (*fake)(e) : UserReader::MapGroupMember(e);
    if (!r.ok()) {
      *why = absl::StrCat(r.status().message(), ": read(2)");
      return {};
    }
    if (!r->user_space_capable()) {
      *why = absl::StrCat(
          "the kernel offers no user-space reads of ", e.label(),
          " (cap_user_rdpmc or cap_user_time is 0; arm64 needs "
          "kernel.perf_user_access=1, x86-64 <pmu>/rdpmc >= 1 "
          "(/sys/bus/event_source/devices/cpu/rdpmc, on hybrids cpu_core/ "
          "and cpu_atom/) and a stable TSC): read(2)");
      return {};
    }
    readers.push_back(*std::move(r));
  }
  return readers;
}

// Writes `message` to stderr, the first time only (per process).
void WarnOnce(const std::string& message) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) std::fputs(message.c_str(), stderr);
}

}  // namespace

namespace internal {

CounterSet CounterSetTestPeer::OpenOnFakePages(
    const std::vector<std::vector<EventSpec>>& groups, const MapMember& map) {
  return CounterSet::Open(groups, ReadMode::kAuto, &map);
}

// This file and user_read.cc get the same flags (perfcounters/CMakeLists.txt).
bool HotPathOptimized() {
#if defined(__OPTIMIZE__)
  return true;
#else
  return false;
#endif
}

}  // namespace internal

// Counters' Start() and Stop() here rather than in counters.cc: they are
// the hot path too, and get its flags.
void Counters::Start() { set_->Start(); }
void Counters::Stop() { set_->Stop(); }

const char* ReadModeName(ReadMode mode) {
  switch (mode) {
    case ReadMode::kAuto:
      return "auto";
    case ReadMode::kSyscall:
      return "syscall";
    case ReadMode::kUser:
      return "user";
  }
  return "auto";
}

absl::StatusOr<ReadMode> ParseReadMode(std::string_view text) {
  for (ReadMode m : {ReadMode::kAuto, ReadMode::kSyscall, ReadMode::kUser}) {
    if (text == ReadModeName(m)) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown read mode \"", std::string(text),
                   "\"; the read modes are auto, syscall and user"));
}

CounterSet CounterSet::Open(const std::vector<std::vector<EventSpec>>& groups,
                            ReadMode mode) {
  return Open(groups, mode, nullptr);
}

CounterSet CounterSet::Open(const std::vector<std::vector<EventSpec>>& groups,
                            ReadMode mode, const internal::MapMember* fake) {
  CounterSet c;
  size_t events = 0;
  for (const std::vector<EventSpec>& specs : groups) {
    GroupOptions options;
    options.start_disabled = false;  // counts from open; we only snapshot
    absl::StatusOr<Group> group = absl::UnknownError("not opened");
    if (mode != ReadMode::kSyscall) {
      std::vector<EventSpec> user = specs;
      for (EventSpec& s : user) RequestUserAccess(s.attr, /*wide=*/false);
      if (user != specs) group = Group::Open(user, options);
    }
    // Without user access requested (x86-64, or a kernel that refuses the
    // config1 bits): as planned.
    if (!group.ok()) group = Group::Open(specs, options);
    std::string why;
    std::vector<UserReader> readers;
    if (!group.ok()) {
      c.status_.push_back(group.status());
      c.groups_.emplace_back(std::nullopt);
      why = "not open";
    } else {
      c.status_.push_back(absl::OkStatus());
      c.groups_.emplace_back(*std::move(group));
      if (mode == ReadMode::kSyscall) {
        why = "read mode syscall";
      } else {
        readers = MapMembers(*c.groups_.back(), fake, &why);
      }
    }
    c.readers_.push_back(std::move(readers));
    c.why_.push_back(why);
    Slot& slot = c.slots_.emplace_back();
    slot.n = static_cast<uint32_t>(specs.size());
    slot.bytes = static_cast<uint32_t>((3 + 2 * specs.size()) * 8);
    slot.first = events;
    events += specs.size();
  }
  // One buffer for every group's start, end and ids; pointers set once it
  // no longer grows.
  size_t words = 0;
  for (const Slot& s : c.slots_) words += 2 * (3 + 2 * s.n) + s.n;
  c.buffers_.assign(words, 0);
  uint64_t* p = c.buffers_.data();
  for (size_t g = 0; g < c.slots_.size(); ++g) {
    Slot& s = c.slots_[g];
    s.start = p;
    s.end = p + 3 + 2 * s.n;
    uint64_t* ids = s.end + 3 + 2 * s.n;
    p = ids + s.n;
    s.ids = ids;
    if (!c.groups_[g].has_value()) continue;
    s.fd = c.groups_[g]->leader().fd();
    for (uint32_t m = 0; m < s.n; ++m) ids[m] = c.groups_[g]->events()[m].id();
    // A snapshot buffer's nr and ids never change (read(2) writes the same
    // ones): written once here, so the user-space path writes only the
    // counts and times.
    for (uint64_t* buf : {s.start, s.end}) {
      buf[0] = s.n;
      for (uint32_t m = 0; m < s.n; ++m) buf[4 + 2 * m] = ids[m];
    }
    if (!c.readers_[g].empty()) {
      s.readers = c.readers_[g].data();
      ++c.user_groups_;
    }
  }
  // The pages of the groups read from user space on the hardware (on a
  // test's fake pages the readers read them), and who mapped them.
  for (const std::vector<UserReader>& readers : c.readers_) {
    for (const UserReader& r : readers) {
      c.pages_.push_back(static_cast<const perf_event_mmap_page*>(r.page_));
      c.owner_ = r.owner_;
      c.fork_generation_ = r.fork_generation_;
    }
  }
  c.raw_.resize(events);
  const perf_event_mmap_page* const* pages = c.pages_.data();
  for (size_t g = 0; g < c.slots_.size(); ++g) {
    Slot& s = c.slots_[g];
    s.raw = c.raw_.data() + s.first;
    if (s.readers != nullptr && s.readers[0].hardware_ == nullptr) {
      s.pages = pages;
    }
    pages += c.readers_[g].size();
  }
  c.disagreement_.resize(c.slots_.size());
  for (size_t g = 0; g < c.slots_.size(); ++g) c.CheckUserSpace(g);
  // One group, read from user space on the hardware: Start and Stop take
  // the short way (see Start()).
  if (c.slots_.size() == 1 && c.slots_[0].pages != nullptr) {
    c.only_.slot = &c.slots_[0];
    c.thread_key_ = internal::ClaimThreadKey();
  }
  return c;
}

void CounterSet::ResetBatch() {
  for (Slot& s : slots_) {
    s.failed = false;
    s.enabled = 0;
    s.running = 0;
  }
  std::fill(raw_.begin(), raw_.end(), 0);
  intervals_ = 0;
  user_snapshots_ = 0;
  syscall_snapshots_ = 0;
  general_calls_ = counting_ ? 1 : 0;
}

// A snapshot of a group into `buf` (read(2)'s layout) from user space:
// every member's count, the times once, the leader's (as read(2)); nr and
// the ids were written at Open. From the pages directly on the hardware,
// through the readers on a test's fake pages.
[[gnu::always_inline]] inline bool CounterSet::UserSnapshot(const Slot& s,
                                                            uint64_t* buf) {
  UserReading times;
  const bool ok =
      s.pages != nullptr
          ? internal::ReadGroupPages<internal::kHardwareMetricsIndex>(
                s.pages, s.n, buf + 3, 2, internal::ReadHardwareCounter,
                internal::ReadTimeCycles, &times)
          : UserReader::TryReadGroupUserSpace(s.readers, s.n, buf + 3, 2,
                                              &times);
  if (ok) {
    buf[1] = times.enabled;
    buf[2] = times.running;
  }
  return ok;
}

// A snapshot with read(2). The buffer has the exact size of the group's
// record; a short read (a pinned group in error state reads 0 bytes) or a
// record of another shape is a failure. Through syscall(2), not glibc's
// read(): read() is a cancellation point, which once the process has a
// second thread runs pthread's enable/disable-asynccancel around the
// system call (68 more instructions per read on arm64, glibc 2.36), so a
// calibration taken before the first thread started (perfcounters' main
// calibrates before its --benchmark_out writer thread exists; a program
// calibrates before its first Threads(N) benchmark) would leave them in
// every later interval. syscall(2) runs the same code in either mode.
inline bool CounterSet::SyscallSnapshot(const Slot& s, uint64_t* buf) {
  ++syscall_snapshots_;
  return syscall(SYS_read, s.fd, buf, s.bytes) == static_cast<long>(s.bytes) &&
         buf[0] == s.n;
}

// The same number of instructions whatever the answer (no early exit), so
// that the check costs every group's interval the same.
inline bool CounterSet::AllOnCounters() const {
  // One group read from user space has no other such group inside its
  // interval: nothing to keep alike (and nothing added to its reads).
  if (user_groups_ < 2) return true;
  bool all = true;
  for (const Slot& s : slots_) {
    if (s.readers == nullptr) continue;
    for (uint32_t m = 0; m < s.n; ++m) all &= s.readers[m].OnCounterNow();
  }
  return all;
}

// Whether this snapshot may try user space: some group is read so, on the
// thread that mapped the pages, in the process that did (checked once for
// every group), and not while groups take turns (AllOnCounters).
inline bool CounterSet::UserSpaceNow() const {
  return user_groups_ != 0 && owner_ == internal::ThreadIdentity() &&
         fork_generation_ == internal::ForkGeneration() && AllOnCounters();
}

// The short way, for the common case: the only group is read from user
// space on the hardware, has not failed, and this is the thread (and the
// process) that mapped its pages. Then a snapshot is the page reads alone,
// inlined, in a function that saves no registers; anything else (a member
// off its counter included) takes the general loop below.
[[gnu::always_inline]] inline bool CounterSet::ShortWay(const Slot* s) const {
  return s != nullptr && !s->failed && thread_key_ == internal::ThreadKey();
}

[[gnu::always_inline]] inline bool CounterSet::ShortSnapshot(const Slot& s,
                                                             uint64_t* buf) {
  UserReading times;
  if (!internal::ReadGroupPages<internal::kHardwareMetricsIndex>(
          s.pages, s.n, buf + 3, 2, internal::ReadHardwareCounter,
          internal::ReadTimeCycles, &times)) {
    return false;
  }
  buf[1] = times.enabled;
  buf[2] = times.running;
  return true;  // counted by user_snapshots() without an instruction here
}

void CounterSet::Start() {
  if (counting_) return;
  counting_ = true;
  Slot* s = only_.slot;
  if (ShortWay(s) && ShortSnapshot(*s, s->start)) {
    s->start_user = true;
    return;
  }
  StartGroups();
}

void CounterSet::StartGroups() {
  ++general_calls_;
  if (UserSpaceNow() && StartFromUserSpace()) return;
  for (Slot& s : slots_) {
    if (s.fd < 0 || s.failed) continue;
    s.start_user = false;
    if (!SyscallSnapshot(s, s.start)) s.failed = true;
  }
}

// Every group read from user space that can be, the others with read(2);
// false as soon as one of the former cannot be read so: then the caller
// starts every group again with read(2). Groups' turns on the PMU can
// change between UserSpaceNow's look at the pages and the reads (the
// multiplexing timer fired inside the look: it saw one group's pages
// before the rotation and the other's after it). A group started from
// user space next to one started with read(2) would count what the
// calibration, reading all of them with read(2) while they took turns,
// never saw: in the emulated machine, 35 instructions for each member read
// after it, once in about 80,000 intervals.
bool CounterSet::StartFromUserSpace() {
  uint64_t users = 0;
  for (Slot& s : slots_) {
    if (s.fd < 0 || s.failed) continue;
    if (s.readers == nullptr) {
      s.start_user = false;
      if (!SyscallSnapshot(s, s.start)) s.failed = true;
      continue;
    }
    if (!UserSnapshot(s, s.start)) return false;
    s.start_user = true;
    ++users;
  }
  user_snapshots_ += users;
  return true;
}

// An interval whose snapshots both came from user space: the ids are the
// ones written at Open (that path writes only counts and times), and on
// one path neither the times nor a count may go backwards. A step back
// shows as a difference with the top bit set (no interval runs 2^63 ns or
// counts 2^63 events): one OR per value, one test for them all.
[[gnu::always_inline]] inline void CounterSet::AddUserInterval(Slot& s) {
  const uint64_t* end = s.end;
  const uint64_t* start = s.start;
  const uint64_t enabled = end[1] - start[1];
  const uint64_t running = end[2] - start[2];
  uint64_t* raw = s.raw;
  // The leader, then the other members (a group has at least one).
  uint64_t d = end[3] - start[3];
  uint64_t backwards = enabled | running | d;
  raw[0] += d;
  for (uint32_t m = 1; m < s.n; ++m) {
    d = end[3 + 2 * m] - start[3 + 2 * m];
    backwards |= d;
    raw[m] += d;
  }
  s.enabled += enabled;
  s.running += running;
  s.failed = (backwards >> 63) != 0;
}

// An interval with a snapshot from read(2) (`user`: the end's path).
inline void CounterSet::AddInterval(Slot& s, bool user) {
  const uint64_t* end = s.end;
  const uint64_t* start = s.start;
  // Times: the user-space path extrapolates the kernel's clock with the
  // page's mult/shift, so across paths the two may disagree by a few ns;
  // only a same-path time going backwards is an error.
  if (user == s.start_user && (end[1] < start[1] || end[2] < start[2])) {
    s.failed = true;
    return;
  }
  // Without a branch (a mask), so that a group's interval costs the same
  // instructions whether the groups snapshotted inside it ran or not
  // (an unoptimized build compiles `?:` to branches).
  s.enabled += (end[1] - start[1]) & -static_cast<uint64_t>(end[1] > start[1]);
  s.running += (end[2] - start[2]) & -static_cast<uint64_t>(end[2] > start[2]);
  uint64_t* raw = s.raw;
  for (uint32_t m = 0; m < s.n; ++m) {
    // Same member (id) and a counter that did not go backwards.
    const uint64_t* v = end + 3 + 2 * m;
    const uint64_t* w = start + 3 + 2 * m;
    if (v[1] != w[1] || v[0] < w[0]) {
      s.failed = true;
      return;
    }
    raw[m] += v[0] - w[0];
  }
}

void CounterSet::Stop() {
  if (!counting_) return;
  counting_ = false;
  ++intervals_;
  Slot* s = only_.slot;
  if (ShortWay(s) && s->start_user && ShortSnapshot(*s, s->end)) {
    AddUserInterval(*s);
    return;
  }
  StopGroups();
}

void CounterSet::StopGroups() {
  ++general_calls_;
  const bool try_user = UserSpaceNow();
  uint64_t users = 0;
  for (Slot& s : slots_) {
    if (s.fd < 0 || s.failed) continue;
    const bool user =
        try_user && s.readers != nullptr && UserSnapshot(s, s.end);
    users += user;
    if (user && s.start_user) {
      AddUserInterval(s);
    } else if (user || SyscallSnapshot(s, s.end)) {
      AddInterval(s, user);
    } else {
      s.failed = true;
    }
  }
  user_snapshots_ += users;
}

// Once per group read from user space, at open: a user-space snapshot, a
// read(2) one and a user-space one again. Each member's read(2) count must
// lie between its two user-space counts, and the times within a
// microsecond (the page's clock conversion and the kernel's may differ by
// a few ns). Where they do not, the group is read with read(2) and
// disagreement(g) says why. Where no user-space snapshot can be taken now
// (a member not on a counter) there is nothing to compare.
void CounterSet::CheckUserSpace(size_t g) {
  Slot& s = slots_[g];
  if (s.readers == nullptr) return;
  std::vector<uint64_t> before(s.start, s.start + 3 + 2 * s.n);
  std::vector<uint64_t> kernel = before, after = before;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!UserSnapshot(s, before.data())) continue;
    const bool read_ok =
        read(s.fd, kernel.data(), s.bytes) == static_cast<ssize_t>(s.bytes) &&
        kernel[0] == s.n;
    if (!UserSnapshot(s, after.data())) continue;
    if (!read_ok) return;  // the snapshots' own failure, not this check's
    constexpr uint64_t kNs = 1000;
    std::string what;
    for (uint32_t m = 0; m < s.n && what.empty(); ++m) {
      const uint64_t a = before[3 + 2 * m], k = kernel[3 + 2 * m],
                     z = after[3 + 2 * m];
      if (a > k || k > z) {
        what = absl::StrCat(groups_[g]->events()[m].label(),
                            " read from user space ", a, " and then ", z,
                            ", but read(2) between them ", k);
      }
    }
    for (int t = 1; t <= 2 && what.empty(); ++t) {
      if (before[t] > kernel[t] + kNs || kernel[t] > after[t] + kNs) {
        what =
            absl::StrCat("time_", t == 1 ? "enabled" : "running",
                         " from user space ", before[t], " and then ", after[t],
                         " ns, but read(2) between them ", kernel[t], " ns");
      }
    }
    if (what.empty()) return;
    disagreement_[g] = absl::StrCat(
        "user-space reads disagree with read(2) (", what,
        "): the page's index, offset, pmc_width or clock fields do not "
        "describe this machine's counters; read(2)");
    why_[g] = disagreement_[g];
    s.readers = nullptr;
    s.pages = nullptr;
    --user_groups_;
    WarnOnce(absl::StrCat("perfcounters: warning: ", disagreement_[g],
                          " for this group from now on\n"));
    return;
  }
}

std::vector<BracketCost> CounterSet::Calibrate(int samples,
                                               double max_cpu_seconds) {
  return Calibrate(samples, max_cpu_seconds, [this] {
    Start();
    Stop();
  });
}

std::vector<BracketCost> CounterSet::Calibrate(
    int samples, double max_cpu_seconds, absl::FunctionRef<void()> bracket) {
  const size_t wanted = static_cast<size_t>(std::max(samples, 1));
  std::vector<std::vector<uint64_t>> counts(event_count());
  // The batch so far, given back afterwards: a caller may calibrate in the
  // middle of a batch (Measure does at a thread's first pause).
  const std::vector<Slot> kept_slots = slots_;
  const std::vector<uint64_t> kept_raw = raw_;
  const uint64_t kept[] = {intervals_, user_snapshots_, syscall_snapshots_,
                           general_calls_};
  // Groups still short of full-coverage samples; a group that is not open
  // or whose read failed has nothing to wait for.
  std::vector<bool> waiting(slots_.size());
  size_t left = 0;
  for (size_t g = 0; g < slots_.size(); ++g) {
    waiting[g] = slots_[g].fd >= 0;
    if (waiting[g]) ++left;
  }
  const double deadline = ThreadCpuSeconds() + max_cpu_seconds;
  for (int64_t s = 0; left > 0; ++s) {
    // The clock is a system call: read it between samples, not in them,
    // and only once the first round did not calibrate every group.
    if (s >= samples &&
        (s >= kMaxCalibrationSamples || ThreadCpuSeconds() > deadline)) {
      break;
    }
    ResetBatch();
    bracket();
    for (size_t g = 0; g < slots_.size(); ++g) {
      const Slot& slot = slots_[g];
      if (!waiting[g]) continue;
      if (slot.failed) {
        waiting[g] = false;
        --left;
        continue;
      }
      if (slot.running == 0 || slot.running < slot.enabled) continue;
      for (size_t i = slot.first; i < slot.first + slot.n; ++i) {
        counts[i].push_back(raw_[i]);
      }
      if (counts[slot.first].size() >= wanted) {
        waiting[g] = false;
        --left;
      }
    }
  }
  for (size_t g = 0; g < slots_.size(); ++g) {
    slots_[g].failed = kept_slots[g].failed;
    slots_[g].enabled = kept_slots[g].enabled;
    slots_[g].running = kept_slots[g].running;
  }
  std::copy(kept_raw.begin(), kept_raw.end(), raw_.begin());
  intervals_ = kept[0];
  user_snapshots_ = kept[1];
  syscall_snapshots_ = kept[2];
  general_calls_ = kept[3];
  std::vector<BracketCost> cost(event_count());
  for (size_t i = 0; i < counts.size(); ++i) {
    std::vector<uint64_t>& v = counts[i];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    cost[i].valid = true;
    cost[i].floor = v.front();
    cost[i].spread = v[(v.size() * 3) / 4] - v.front();
  }
  return cost;
}

}  // namespace perfcounters
