// counter_set.cc: CounterSet, the snapshots behind Measure (see
// benchmark_counters.h for the path rules).
#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "perfcounters/benchmark_counters.h"
#include "perfcounters/group.h"
#include "perfcounters/user_read.h"

namespace perfcounters::bench {
namespace {

// Events that never sit on a hardware counter: their pages never offer a
// user-space read, so their groups are not mapped at all.
bool NeverOnACounter(const Attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE || attr.type == PERF_TYPE_TRACEPOINT ||
         attr.type == PERF_TYPE_BREAKPOINT;
}

// Maps every member of `group` for user-space reads; empty with *why set
// when the group cannot be read from user space.
std::vector<UserReader> MapMembers(const Group& group, std::string* why) {
  std::vector<UserReader> readers;
  for (const Event& e : group.events()) {
    if (NeverOnACounter(e.attr())) {
      *why = absl::StrCat(e.label(),
                          " is a software event (never on a hardware "
                          "counter): read(2)");
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
          " (cap_user_rdpmc = 0; arm64 needs kernel.perf_user_access=1, "
          "x86-64 /sys/bus/event_source/devices/cpu/rdpmc >= 1): read(2)");
      return {};
    }
    readers.push_back(*std::move(r));
  }
  return readers;
}

}  // namespace

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
  return absl::InvalidArgumentError(absl::StrCat(
      "--perf_counters_read=", std::string(text),
      ": unknown read path; write --perf_counters_read=auto, "
      "--perf_counters_read=syscall or --perf_counters_read=user"));
}

CounterSet CounterSet::Open(const std::vector<std::vector<EventSpec>>& groups,
                            ReadMode mode) {
  CounterSet c;
  size_t events = 0;
  for (const std::vector<EventSpec>& specs : groups) {
    c.first_event_.push_back(events);
    events += specs.size();
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
        why = "--perf_counters_read=syscall";
      } else {
        readers = MapMembers(*c.groups_.back(), &why);
      }
    }
    c.readers_.push_back(std::move(readers));
    c.why_.push_back(why);
    const size_t words =
        c.groups_.back().has_value() ? 3 + 2 * specs.size() : 0;
    c.start_.emplace_back(words);
    c.end_.emplace_back(words);
  }
  c.start_user_.resize(groups.size());
  c.failed_.resize(groups.size());
  c.raw_.resize(events);
  c.enabled_.resize(groups.size());
  c.running_.resize(groups.size());
  return c;
}

void CounterSet::ResetBatch() {
  std::fill(failed_.begin(), failed_.end(), 0);
  std::fill(raw_.begin(), raw_.end(), 0);
  std::fill(enabled_.begin(), enabled_.end(), 0);
  std::fill(running_.begin(), running_.end(), 0);
  intervals_ = 0;
  user_snapshots_ = 0;
  syscall_snapshots_ = 0;
}

// One snapshot of group `g` into `buf` (read(2)'s layout), on one path.
// The read(2) buffer is preallocated to the exact size of the group's
// record; a short read (a pinned group in error state reads 0 bytes) or a
// record of another shape is a failure.
bool CounterSet::Snapshot(size_t g, uint64_t* buf, bool* user) {
  const std::vector<UserReader>& readers = readers_[g];
  const size_t n = start_[g].size() / 2 - 1;
  if (!readers.empty()) {
    const std::vector<Event>& events = groups_[g]->events();
    UserReading r;
    size_t m = 0;
    for (; m < n; ++m) {
      if (!readers[m].TryReadUserSpace(&r)) break;
      if (m == 0) {
        buf[1] = r.enabled;
        buf[2] = r.running;
      }
      buf[3 + 2 * m] = r.value;
      buf[4 + 2 * m] = events[m].id();
    }
    if (m == n) {
      buf[0] = n;
      *user = true;
      ++user_snapshots_;
      return true;
    }
  }
  *user = false;
  ++syscall_snapshots_;
  const size_t bytes = start_[g].size() * sizeof(uint64_t);
  const ssize_t got = read(groups_[g]->leader().fd(), buf, bytes);
  return got == static_cast<ssize_t>(bytes) && buf[0] == n;
}

void CounterSet::Start() {
  if (counting_) return;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].has_value() || failed_[g]) continue;
    bool user = false;
    if (!Snapshot(g, start_[g].data(), &user)) failed_[g] = 1;
    start_user_[g] = user;
  }
  counting_ = true;
}

void CounterSet::Stop() {
  if (!counting_) return;
  counting_ = false;
  ++intervals_;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].has_value() || failed_[g]) continue;
    uint64_t* end = end_[g].data();
    const uint64_t* start = start_[g].data();
    bool user = false;
    if (!Snapshot(g, end, &user)) {
      failed_[g] = 1;
      continue;
    }
    // Times: the user-space path extrapolates the kernel's clock with the
    // page's mult/shift, so across paths the two may disagree by a few ns;
    // only a same-path time going backwards is an error.
    const bool mixed = user != (start_user_[g] != 0);
    if (!mixed && (end[1] < start[1] || end[2] < start[2])) {
      failed_[g] = 1;
      continue;
    }
    enabled_[g] += end[1] > start[1] ? end[1] - start[1] : 0;
    running_[g] += end[2] > start[2] ? end[2] - start[2] : 0;
    const size_t first = first_event_[g];
    for (size_t m = 0; m < end[0]; ++m) {
      // Same member (id) and a counter that did not go backwards.
      const size_t v = 3 + 2 * m;
      if (end[v + 1] != start[v + 1] || end[v] < start[v]) {
        failed_[g] = 1;
        break;
      }
      raw_[first + m] += end[v] - start[v];
    }
  }
}

std::vector<BracketCost> CounterSet::Calibrate(int samples) {
  std::vector<std::vector<uint64_t>> counts(event_count());
  for (int s = 0; s < samples; ++s) {
    ResetBatch();
    Start();
    Stop();
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (!groups_[g].has_value() || failed_[g] || running_[g] == 0 ||
          running_[g] < enabled_[g]) {
        continue;
      }
      const size_t n = groups_[g]->size();
      for (size_t i = first_event_[g]; i < first_event_[g] + n; ++i) {
        counts[i].push_back(raw_[i]);
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

}  // namespace perfcounters::bench
