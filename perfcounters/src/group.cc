// group.cc: Group, events scheduled together and read in one read(2).
#include "perfcounters/group.h"

#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "errno_text.h"
#include "measure.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters {
namespace {

constexpr uint64_t kGroupReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                      PERF_FORMAT_TOTAL_TIME_ENABLED |
                                      PERF_FORMAT_TOTAL_TIME_RUNNING;

// How long Verify() lets a group be enabled before deciding it never runs:
// several multiplexing intervals (the default is 4 ms on arm64, 1 ms on x86).
constexpr uint64_t kVerifyEnabledNs = 20'000'000;
// A wall-clock bound on Verify()'s loop, for targets that are not this thread.
constexpr uint64_t kVerifyWallNs = 2'000'000'000;

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

// A little user-space work so that a counting group sees its events run.
void BusyWork() {
  volatile uint64_t sink = 0;
  for (int i = 0; i < 20000; ++i) sink = sink + i;
}

}  // namespace

absl::StatusOr<Group> Group::Open(const GroupSpec& spec,
                                  const GroupOptions& options) {
  return Open(spec.events, options);
}

namespace {

// True when the kernel may refuse to schedule the group for lack of
// counters: it holds an event of a PMU with a limited number of them.
bool NeedsFitCheck(const std::vector<EventSpec>& events) {
  if (events.size() < 2) return false;
  for (const EventSpec& e : events) {
    if (e.attr.type != PERF_TYPE_SOFTWARE &&
        e.attr.type != PERF_TYPE_TRACEPOINT) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<Group> Group::Open(const std::vector<EventSpec>& events,
                                  const GroupOptions& options) {
  if (events.empty()) {
    return absl::InvalidArgumentError(
        "Group::Open: the group is empty; give at least one event (the "
        "first is the leader)");
  }
  std::string all_labels;
  for (const EventSpec& e : events) {
    absl::StrAppend(&all_labels, all_labels.empty() ? "" : ",", e.label);
  }
  const bool keep_disabled_bits = events.front().attr.enable_on_exec;

  // Opens the events as one group; `all_enabled` creates every event
  // enabled, otherwise the leader is disabled and the members follow it.
  auto open_all = [&](bool all_enabled) -> absl::StatusOr<Group> {
    Group group;
    group.events_.reserve(events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      EventSpec spec = events[i];
      spec.attr.read_format = kGroupReadFormat;
      if (!keep_disabled_bits) spec.attr.disabled = !all_enabled && i == 0;
      const int leader_fd = i == 0 ? -1 : group.events_.front().fd();
      absl::StatusOr<Event> event =
          Event::Open(spec, options.target, leader_fd);
      if (!event.ok()) {
        // `group` closes what was opened so far (members first).
        return absl::Status(
            event.status().code(),
            absl::StrCat(event.status().message(), " [member ", i + 1, " of ",
                         events.size(), " in group {", all_labels, "}]"));
      }
      group.events_.push_back(*std::move(event));
    }
    return group;
  };

  // Some PMU drivers (arm64's among them) only check that a group fits on
  // the counters for events created enabled. So a group of hardware events
  // is first opened all enabled, for the kernel to refuse one that does not
  // fit, and closed again.
  if (!keep_disabled_bits && NeedsFitCheck(events)) {
    // The probe group closes again at once.
    RETURN_IF_ERROR(open_all(/*all_enabled=*/true).status());
  }
  // The real group: a disabled leader with enabled members, as perf opens
  // groups. (Members created enabled under an enabled leader, or enabled
  // later one by one, are not always scheduled with it: a task-clock
  // leader's software siblings then never count.)
  ASSIGN_OR_RETURN(Group group, open_all(/*all_enabled=*/false));
  if (!options.start_disabled && !keep_disabled_bits) {
    RETURN_IF_ERROR(group.Enable());
  }
  return group;
}

Group::Group(Group&& other) noexcept : events_(std::move(other.events_)) {
  other.events_.clear();
}

Group& Group::operator=(Group&& other) noexcept {
  if (this != &other) {
    while (!events_.empty()) events_.pop_back();  // members first
    events_ = std::move(other.events_);
    other.events_.clear();
  }
  return *this;
}

Group::~Group() {
  while (!events_.empty()) events_.pop_back();  // members first, leader last
}

namespace {

absl::Status EmptyGroupError(const char* what) {
  return absl::FailedPreconditionError(absl::StrCat(
      what, ": the group is empty (closed, moved from or never opened)"));
}

}  // namespace

// Enabling and disabling go through the leader: while it is disabled the
// whole group is off the PMU, and enabling it schedules the group with every
// enabled member at once. (PERF_IOC_FLAG_GROUP enables the leader first and
// then each member into an already running group; on Linux 6.18 software
// members of a task-clock-led group then never count.)
absl::Status Group::Enable() const {
  if (events_.empty()) return EmptyGroupError("group enable");
  for (size_t i = 1; i < events_.size(); ++i) {
    RETURN_IF_ERROR(events_[i].Enable());
  }
  return leader().Enable();
}

absl::Status Group::Disable() const {
  if (events_.empty()) return EmptyGroupError("group disable");
  return leader().Disable();
}

absl::Status Group::Reset() const {
  if (events_.empty()) return EmptyGroupError("group reset");
  return leader().Reset(/*whole_group=*/true);
}

absl::StatusOr<GroupReading> Group::Read() const {
  if (events_.empty()) return EmptyGroupError("group read");
  const std::string& name = leader().label();
  // Layout with PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING:
  // nr, time_enabled, time_running, then {value, id} per member.
  const size_t n = events_.size();
  std::vector<uint64_t> words(3 + 2 * n, 0);
  const ssize_t got =
      read(leader().fd(), words.data(), words.size() * sizeof(uint64_t));
  if (got < 0) {
    return internal::ErrnoError(
        errno, absl::StrCat("read of group led by '", name, "'"));
  }
  if (got == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "read of group led by '", name,
        "' returned 0 bytes: the group is pinned and in error state — it "
        "could not be scheduled on the PMU (e.g. it needs more counters than "
        "exist), so none of its ",
        n, " counters is counting; split it or drop pinned"));
  }
  if (static_cast<size_t>(got) != words.size() * sizeof(uint64_t) ||
      words[0] != n) {
    return absl::InternalError(absl::StrCat(
        "read of group led by '", name, "' returned ", got, " bytes with nr ",
        words[0], ", but the group has ", n, " events (",
        words.size() * sizeof(uint64_t), " bytes expected)"));
  }
  GroupReading reading;
  reading.enabled = words[1];
  reading.running = words[2];
  reading.values.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    GroupValue value;
    value.value = words[3 + 2 * i];
    value.id = words[4 + 2 * i];
    const Event* owner = nullptr;
    for (const Event& e : events_) {
      if (e.id() == value.id) owner = &e;
    }
    if (owner == nullptr) {
      return absl::InternalError(absl::StrCat(
          "read of group led by '", name, "': value ", i, " has id ", value.id,
          ", which is none of the group's events"));
    }
    value.label = owner->label();
    reading.values.push_back(std::move(value));
  }
  return reading;
}

absl::StatusOr<GroupReading> Group::CountCall(
    const std::function<void()>& f) const {
  return internal::MeasureInterval(*this, &Group::Read, f);
}

absl::Status Group::Verify() const {
  RETURN_IF_ERROR(Reset());
  RETURN_IF_ERROR(Enable());
  const uint64_t start = MonotonicNs();
  absl::StatusOr<GroupReading> reading;
  while (true) {
    BusyWork();
    reading = Read();
    if (!reading.ok() || reading->running > 0 ||
        reading->enabled >= kVerifyEnabledNs ||
        MonotonicNs() - start >= kVerifyWallNs) {
      break;
    }
  }
  absl::Status disabled = Disable();
  absl::Status reset = Reset();
  RETURN_IF_ERROR(reading.status());
  RETURN_IF_ERROR(disabled);
  RETURN_IF_ERROR(reset);
  if (reading->running == 0) {
    std::vector<std::string> labels;
    for (const Event& e : events_) labels.push_back(e.label());
    return absl::FailedPreconditionError(absl::StrCat(
        "group was never scheduled on the PMU: {", absl::StrJoin(labels, ","),
        "} was enabled for ", reading->enabled,
        " ns and ran 0 ns, so it would only ever read 0; it probably needs "
        "more counters than the PMU has (",
        events_.size(), " events) — split it into smaller groups"));
  }
  return absl::OkStatus();
}

absl::Status Group::Close() {
  if (events_.empty()) return EmptyGroupError("group close");
  absl::Status first_error;
  while (!events_.empty()) {  // members first, leader last
    absl::Status s = events_.back().Close();
    if (first_error.ok()) first_error = s;
    events_.pop_back();
  }
  return first_error;
}

}  // namespace perfcounters
