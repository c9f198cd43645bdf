// plan.h: turning an event list (Counters::Open's, or one a caller plans
// once for several threads) into counter groups the PMU can schedule.
//
// `ParseRequest()` reads the list (our grammar, plus derived metric names
// such as `ipc` that bring in their inputs). `MakePlan()` places the events
// into groups by opening them: every event is first tried alone (an event
// this machine cannot count becomes `Unavailable`, with the reason), the
// user's `{}` groups are kept together, and the remaining events are packed
// first-fit into as few groups as open *and count* (a group that opens but
// never runs is refused). The open test is injectable (`TryOpenFn`) so that
// planning is unit-testable without a PMU.
#ifndef PERFCOUNTERS_PLAN_H_
#define PERFCOUNTERS_PLAN_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"
#include "perfcounters/grammar.h"
#include "perfcounters/metrics.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// A metric of the table (metrics.h) over two planned events.
struct DerivedMetric {
  // The reported name: the metric's, with the inputs' modifiers, e.g.
  // "ipc" or "ipc:u".
  std::string name;
  // Keys of the inputs, e.g. "instructions:u" and "cycles:u".
  std::string numerator;
  std::string denominator;
  // The table's entry (name, formula, unit).
  const Metric* metric = nullptr;
};

// The table's metrics (metrics.h) whose two inputs are both among
// `labels` with the same modifiers, in table order and then the order of
// `labels`; numerator and denominator are the matching labels as given. An
// input matches as the grammar resolves it: generic and cache names
// case-insensitively and by perf's aliases (`cpu-cycles` and `CYCLES` are
// `cycles`, `branch-instructions` is `branches`, `l1d-loads` is
// `L1-dcache-loads`); sysfs inputs on any one PMU (`cpu/topdown-retiring/`
// with `cpu/slots/`). A label that is no event name (`cycles#2`) matches
// nothing; a metric name found twice (`cycles` and `cpu-cycles` both
// counted) is given once, for the first. What MakePlan() derives, and what
// the tools derive from counted labels.
std::vector<DerivedMetric> MatchMetrics(const std::vector<std::string>& labels);

// What the user asked for: events (as the grammar parsed them) and derived
// metric names.
struct Request {
  // The list as written.
  std::string text;
  std::vector<GroupSpec> groups;
  // Derived metrics named explicitly (their inputs are in `groups`).
  std::vector<DerivedMetric> derived;
  // Top-level items that named a metric group ("topdown").
  std::vector<std::string> metric_groups;
};

// Parses an event list. Top-level items that name a derived
// metric of the table (case-insensitive, optionally with modifiers: `ipc:u`)
// are replaced by their inputs with those modifiers, as a `{}` group,
// unless the inputs are already requested; a metric group's name
// (`topdown`) brings in the inputs of all its metrics as one `{}` group
// (an error naming what is missing where this CPU's sysfs lacks them).
// Everything else goes to ParseEventList(); its errors (unknown name, with
// close names) are returned as they are.
absl::StatusOr<Request> ParseRequest(std::string_view list,
                                     const ParseOptions& options);

// Opens `events` as one group and checks that it really counts; returns the
// reason when it does not. Production code uses OpenAndVerify().
using TryOpenFn =
    std::function<absl::Status(const std::vector<EventSpec>& events)>;

// Group::Open() for the calling thread, then Group::Verify().
absl::Status OpenAndVerify(const std::vector<EventSpec>& events);

// One event of a plan.
struct PlannedEvent {
  EventSpec spec;
  // The counter name it is reported under: its label, or `label#N` for the
  // N-th request of the same label.
  std::string key;
};

// Events to open as one group (the first is the leader).
struct PlannedGroup {
  std::vector<PlannedEvent> events;
  // Kept together because the user wrote `{}`.
  bool user_group = false;
};

// A requested event that cannot be counted here.
struct Unavailable {
  std::string key;
  std::string reason;
};

// Where every requested event goes.
struct Plan {
  std::string text;
  std::vector<PlannedGroup> groups;
  std::vector<Unavailable> unavailable;
  // Derived metrics whose two inputs are both planned with the same
  // modifiers (requested explicitly or not), in table order.
  std::vector<DerivedMetric> derived;

  // Every requested key in request order, available or not.
  std::vector<std::string> requested_keys;
  size_t event_count() const;
};

// Places the request's events into groups (see the file comment). Never
// fails: what cannot be counted is listed in Plan::unavailable.
Plan MakePlan(const Request& request, const TryOpenFn& try_open);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_PLAN_H_
