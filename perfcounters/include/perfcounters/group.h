// group.h: `Group`, events scheduled on the PMU together and read in one
// snapshot.
//
// The first event is the leader; the Group owns the leader and every member
// and closes them (members first). Every member is opened with read_format
// PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING so that one
// read(2) of the leader returns the whole group (a GroupReading).
//
// Thread safety: as for Event (event.h): concurrent const calls such as
// Read() on one Group are supported; CountCall()/Verify() need one Group per
// thread; Close(), moves and destruction must not overlap any other use.
#ifndef PERFCOUNTERS_GROUP_H_
#define PERFCOUNTERS_GROUP_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// What a Group::Open needs besides the events.
struct GroupOptions {
  Target target;
  // Leave the group disabled after Open; start counting with Enable() or
  // CountCall(). When false the group counts from open.
  // Groups are opened as perf opens them: a disabled leader with enabled
  // members. A group with hardware events is first opened once with every
  // event enabled and closed again, because some PMU drivers (arm64's) only
  // check at open time that a group fits on the counters for events created
  // enabled. A leader with enable_on_exec keeps the disabled bits given.
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
  // Moving transfers every fd; the moved-from Group is empty.
  Group(Group&& other) noexcept;
  // Closes this group's events (members first) and takes `other`'s.
  Group& operator=(Group&& other) noexcept;
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  // Closes members first, then the leader.
  ~Group();

  // The leader. Only on an open group (size() > 0).
  const Event& leader() const { return events_.front(); }
  // All events, leader first.
  const std::vector<Event>& events() const { return events_; }
  size_t size() const { return events_.size(); }

  // Whole-group ioctls. Enable() enables every member, then the leader, so
  // that the group goes onto the PMU at once; Disable() disables the leader,
  // which takes the whole group off the PMU at once; Reset() zeroes every
  // member (PERF_IOC_FLAG_GROUP).
  absl::Status Enable() const;
  absl::Status Disable() const;
  absl::Status Reset() const;

  // One read(2) of the whole group. A read that returns 0 bytes (a pinned
  // group in error state) is an error, never stale values.
  absl::StatusOr<GroupReading> Read() const;

  // Resets the whole group, enables it, runs f, disables it and returns the
  // reading (go-perf's MeasureGroup, but resetting every member).
  // enabled/running are those of this interval only (reset clears values,
  // not times).
  absl::StatusOr<GroupReading> CountCall(const std::function<void()>& f) const;

  // Checks that the group is really scheduled on the PMU: enables it, runs
  // a busy loop until the group has run (or ~20 ms of enabled time passed),
  // disables and resets it (the loop runs in the calling thread, so for
  // other targets only the time bound applies: up to 2 s of wall time). A
  // group that opens but never counts (too big for the PMU when its events
  // were created disabled, or pinned and in error state) is
  // FailedPrecondition. Leaves the group disabled and reset.
  absl::Status Verify() const;

  // Closes everything (members first, then the leader). Closing an empty
  // or closed Group is FailedPrecondition.
  absl::Status Close();

 private:
  std::vector<Event> events_;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_GROUP_H_
