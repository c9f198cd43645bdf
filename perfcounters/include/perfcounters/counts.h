// counts.h: what reading counters yields, and the one scaling function.
//
// `Count` is one event's reading (value plus its time_enabled/time_running).
// `GroupReading` is a whole group read in one read(2) with
// PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING: a snapshot.
// `Delta()` subtracts two snapshots of the same group; `Scale()` turns a
// delta into a `ScaledCount`, correcting for multiplexing as
// value * enabled / running. A delta with running == 0 was not counted at
// all: ScaledCount then says so and has no value (never 0).
#ifndef PERFCOUNTERS_COUNTS_H_
#define PERFCOUNTERS_COUNTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// One event's reading: the raw counter value and the times the event was
// enabled and actually running on the PMU, in nanoseconds.
struct Count {
  uint64_t value = 0;
  uint64_t enabled = 0;
  uint64_t running = 0;
  // The kernel's event id (PERF_FORMAT_ID), 0 if not read.
  uint64_t id = 0;
  // The event's label: its `perf list` name or the user's text.
  std::string label;

  friend bool operator==(const Count&, const Count&) = default;
};

// One member's value inside a group snapshot.
struct GroupValue {
  uint64_t value = 0;
  uint64_t id = 0;
  std::string label;

  friend bool operator==(const GroupValue&, const GroupValue&) = default;
};

// A snapshot of a whole group, taken with one read(2). All members share the
// group's enabled/running times (the leader's schedule).
struct GroupReading {
  uint64_t enabled = 0;
  uint64_t running = 0;
  std::vector<GroupValue> values;

  friend bool operator==(const GroupReading&, const GroupReading&) = default;
};

// A counter value corrected for multiplexing, or "not counted".
class ScaledCount {
 public:
  // A count whose event never ran in the interval (running == 0).
  static ScaledCount NotCounted(uint64_t enabled);
  // A count over an interval of `enabled` ns of which the event ran
  // `running` ns. Prefer Scale().
  ScaledCount(uint64_t raw, uint64_t enabled, uint64_t running);

  // False when the event never ran: there is no value to report.
  bool counted() const { return running_ != 0; }
  // raw * enabled / running, computed without 64-bit overflow. Only
  // meaningful when counted().
  double value() const;
  // The unscaled counter delta.
  uint64_t raw() const { return raw_; }
  uint64_t enabled() const { return enabled_; }
  uint64_t running() const { return running_; }
  // running / enabled in [0, 1]; 1 when enabled == 0 and running == 0 would
  // be meaningless, so it is 0 then.
  double coverage() const;
  // True when the event ran for only part of the time it was enabled.
  bool multiplexed() const { return running_ < enabled_; }

 private:
  uint64_t raw_ = 0;
  uint64_t enabled_ = 0;
  uint64_t running_ = 0;
};

// The one scaling function: raw * enabled / running (exact 128-bit
// arithmetic before the conversion to double); NotCounted when running == 0.
ScaledCount Scale(uint64_t raw, uint64_t enabled, uint64_t running);

// Scales a single event's delta.
ScaledCount Scale(const Count& delta);

// after - before for a single event. Errors if time went backwards or the
// labels/ids differ (not the same event).
absl::StatusOr<Count> Delta(const Count& before, const Count& after);

// after - before for a group snapshot. Errors if the two readings do not
// come from the same group (member count, ids) or time went backwards.
absl::StatusOr<GroupReading> Delta(const GroupReading& before,
                                   const GroupReading& after);

// Scales every member of a group delta with the group's times.
std::vector<ScaledCount> Scale(const GroupReading& delta);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_COUNTS_H_
