// counters.cc: Counters, the region API (counters.h), over the planner
// (plan.cc) and the snapshots (counter_set.cc).
#include "perfcounters/counters.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perfcounters/counts.h"

namespace perfcounters {
namespace {

// Empty intervals measured at Open to calibrate the bracket.
constexpr int kCalibrationSamples = 33;

const CounterValue* FindValue(const std::vector<CounterValue>& values,
                              std::string_view label) {
  for (const CounterValue& v : values) {
    if (v.label == label) return &v;
  }
  return nullptr;
}

}  // namespace

std::vector<MetricValue> ComputeMetrics(
    const std::vector<DerivedMetric>& derived,
    const std::vector<CounterValue>& values) {
  std::vector<MetricValue> out;
  for (const DerivedMetric& d : derived) {
    const CounterValue* n = FindValue(values, d.numerator);
    const CounterValue* m = FindValue(values, d.denominator);
    if (n == nullptr || m == nullptr) continue;
    MetricValue& v = out.emplace_back();
    v.name = d.name;
    v.metric = d.metric;
    v.counted = n->counted && m->counted && m->value > 0;
    if (v.counted) v.value = n->value / m->value;
  }
  return out;
}

absl::StatusOr<Counters> Counters::Open(std::string_view events,
                                        const CountersOptions& options) {
  absl::StatusOr<Request> request = ParseRequest(events, options.parse);
  if (!request.ok()) return request.status();
  return Open(MakePlan(*request, OpenAndVerify), options);
}

Counters Counters::Open(Plan plan, const CountersOptions& options) {
  Counters c;
  c.plan_ = std::move(plan);
  std::vector<std::vector<EventSpec>> groups;
  for (size_t g = 0; g < c.plan_.groups.size(); ++g) {
    std::vector<EventSpec>& specs = groups.emplace_back();
    for (const PlannedEvent& e : c.plan_.groups[g].events) {
      specs.push_back(e.spec);
      c.group_of_.push_back(g);
    }
  }
  c.set_ = CounterSet::Open(groups, options.read_mode);
  if (options.calibrate) c.calibration_ = c.set_.Calibrate(kCalibrationSamples);
  return c;
}

CounterValue Counters::PlannedValue(size_t i) const {
  const size_t g = group_of_[i];
  CounterValue v;
  v.label = plan_.groups[g].events[i - set_.first_event(g)].key;
  if (!set_.group_status(g).ok()) {
    v.not_counted_reason = absl::StrCat("its group could not be opened: ",
                                        set_.group_status(g).message());
    return v;
  }
  if (set_.failed(g)) {
    v.not_counted_reason =
        "a read of its group failed or went backwards in some interval";
    return v;
  }
  v.raw = set_.raw(i);
  v.enabled = set_.enabled(g);
  v.running = set_.running(g);
  const ScaledCount scaled = Scale(v.raw, v.enabled, v.running);
  if (!scaled.counted()) {
    v.not_counted_reason =
        set_.intervals() == 0
            ? "no interval was measured (Start and Stop)"
            : "its group never ran on the PMU (more events than counters?)";
    return v;
  }
  v.counted = true;
  v.coverage = scaled.coverage();
  v.value = scaled.value();
  if (i < calibration_.size() && calibration_[i].valid) {
    // The bracket ran once per interval; never below 0.
    const BracketCost& cost = calibration_[i];
    const double intervals = static_cast<double>(set_.intervals());
    v.subtracted = static_cast<double>(cost.floor) * intervals;
    v.value = std::max(0.0, v.value - v.subtracted);
    // Too small: below 10x the bracket's noise, or below the bracket's own
    // count (then the result is mostly the subtraction).
    v.noise_limit = std::max(10.0 * static_cast<double>(cost.spread),
                             static_cast<double>(cost.floor)) *
                    intervals;
  }
  return v;
}

std::vector<CounterValue> Counters::Values() const {
  std::vector<CounterValue> planned;
  for (size_t i = 0; i < set_.event_count(); ++i) {
    planned.push_back(PlannedValue(i));
  }
  std::vector<CounterValue> out;
  for (const std::string& key : plan_.requested_keys) {
    if (const CounterValue* v = FindValue(planned, key); v != nullptr) {
      out.push_back(*v);
      continue;
    }
    CounterValue& v = out.emplace_back();
    v.label = key;
    v.not_counted_reason = "not available here";
    for (const Unavailable& u : plan_.unavailable) {
      if (u.key == key) v.not_counted_reason = u.reason;
    }
  }
  return out;
}

absl::StatusOr<CounterValue> Counters::Value(std::string_view label) const {
  std::vector<CounterValue> values = Values();
  if (const CounterValue* v = FindValue(values, label); v != nullptr) {
    return *v;
  }
  return absl::NotFoundError(absl::StrCat(
      "no requested event is keyed \"", std::string(label),
      "\"; the keys are: ", absl::StrJoin(plan_.requested_keys, ", ")));
}

std::vector<MetricValue> Counters::DerivedMetrics() const {
  return ComputeMetrics(plan_.derived, Values());
}

}  // namespace perfcounters
