// counter_set.cc: CounterSet, the snapshots behind Measure (see
// counter_set.h for the path rules).
#include "counter_set.h"

#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hot_path.h"
#include "perfcounters/group.h"
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
std::vector<UserReader> MapMembers(const Group& group, std::string* why) {
  std::vector<UserReader> readers;
  // Groups with an event that is never read from user space (software,
  // topdown) are not mapped at all.
  for (const Event& e : group.events()) {
    if (const char* reason = ReadSyscallOnlyReason(e.attr())) {
      *why = absl::StrCat(e.label(), " is ", reason, ": read(2)");
      return {};
    }
  }
  for (const Event& e : group.events()) {
    absl::StatusOr<UserReader> r = UserReader::MapGroupMember(e);
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

}  // namespace

namespace internal {

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
        readers = MapMembers(*c.groups_.back(), &why);
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
  c.raw_.resize(events);
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
}

// One snapshot of a group into `buf` (read(2)'s layout), on one path. The
// read(2) buffer has the exact size of the group's record; a short read (a
// pinned group in error state reads 0 bytes) or a record of another shape
// is a failure.
inline bool CounterSet::Snapshot(const Slot& s, uint64_t* buf, bool* user,
                                 bool try_user) {
  if (try_user && s.readers != nullptr) {
    // Every member's count; the times once, the leader's (as read(2)).
    UserReading times;
    if (UserReader::TryReadGroupUserSpace(s.readers, s.n, buf + 3, 2, &times)) {
      buf[1] = times.enabled;  // nr and the ids: written at Open
      buf[2] = times.running;
      *user = true;
      ++user_snapshots_;
      return true;
    }
  }
  *user = false;
  ++syscall_snapshots_;
  return read(s.fd, buf, s.bytes) == static_cast<ssize_t>(s.bytes) &&
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

void CounterSet::Start() {
  if (counting_) return;
  const bool try_user = AllOnCounters();
  for (Slot& s : slots_) {
    if (s.fd < 0 || s.failed) continue;
    s.failed = !Snapshot(s, s.start, &s.start_user, try_user);
  }
  counting_ = true;
}

void CounterSet::Stop() {
  if (!counting_) return;
  counting_ = false;
  ++intervals_;
  const bool try_user = AllOnCounters();
  for (Slot& s : slots_) {
    if (s.fd < 0 || s.failed) continue;
    uint64_t* end = s.end;
    const uint64_t* start = s.start;
    bool user = false;
    if (!Snapshot(s, end, &user, try_user)) {
      s.failed = true;
      continue;
    }
    // Times: the user-space path extrapolates the kernel's clock with the
    // page's mult/shift, so across paths the two may disagree by a few ns;
    // only a same-path time going backwards is an error.
    if (user == s.start_user && (end[1] < start[1] || end[2] < start[2])) {
      s.failed = true;
      continue;
    }
    // Without a branch (a mask), so that a group's interval costs the same
    // instructions whether the groups snapshotted inside it ran or not
    // (an unoptimized build compiles `?:` to branches).
    s.enabled +=
        (end[1] - start[1]) & -static_cast<uint64_t>(end[1] > start[1]);
    s.running +=
        (end[2] - start[2]) & -static_cast<uint64_t>(end[2] > start[2]);
    uint64_t* raw = raw_.data() + s.first;
    for (uint32_t m = 0; m < s.n; ++m) {
      // Same member (id) and a counter that did not go backwards.
      const uint64_t* v = end + 3 + 2 * m;
      const uint64_t* w = start + 3 + 2 * m;
      if (v[1] != w[1] || v[0] < w[0]) {
        s.failed = true;
        break;
      }
      raw[m] += v[0] - w[0];
    }
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
  ResetBatch();
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
