// group.h: `Group`, events scheduled on the PMU together and read in one
// snapshot.
//
// The first event is the leader; the Group owns the leader and every member
// and closes them (members first). Every member is opened with read_format
// PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING so that one
// read(2) of the leader returns the whole group (a GroupReading).
#ifndef PERFCOUNTERS_GROUP_H_
#define PERFCOUNTERS_GROUP_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"
#include "perfcounters/event_spec.h"

namespace perfcounters {

// What a Group::Open needs besides the events.
struct GroupOptions {
  Target target;
  // Open the leader disabled (members follow the leader's state). Start
  // counting with Enable(). When false the group counts from open.
  bool start_disabled = true;
};

// A group of events read together.
class Group {
 public:
  // Opens `events` (non-empty) as one group. An event that fails to open
  // fails the whole open, with the explanation from ExplainOpenError and
  // the event's label. Nothing stays open on error.
  static absl::StatusOr<Group> Open(const std::vector<EventSpec>& events,
                                    const GroupOptions& options = {});
  static absl::StatusOr<Group> Open(const GroupSpec& spec,
                                    const GroupOptions& options = {});

  Group() = default;
  Group(Group&&) noexcept = default;
  Group& operator=(Group&&) noexcept = default;

  const Event& leader() const { return events_.front(); }
  // All events, leader first.
  const std::vector<Event>& events() const { return events_; }
  size_t size() const { return events_.size(); }

  // Whole-group ioctls (PERF_IOC_FLAG_GROUP on the leader).
  absl::Status Enable() const;
  absl::Status Disable() const;
  absl::Status Reset() const;

  // One read(2) of the whole group. A read that returns 0 bytes (a pinned
  // group in error state) is an error, never stale values.
  absl::StatusOr<GroupReading> Read() const;

  // Resets the whole group, enables it, runs f, disables it and returns the
  // reading (go-perf's MeasureGroup, but resetting every member).
  absl::StatusOr<GroupReading> Measure(const std::function<void()>& f) const;

  // Closes everything (members first, then the leader).
  absl::Status Close();

 private:
  std::vector<Event> events_;
};

}  // namespace perfcounters

#endif  // PERFCOUNTERS_GROUP_H_
