// counters.cc: Counters, the region API (counters.h), over the planner
// (plan.cc) and the snapshots (counter_set.cc).
#include "perfcounters/counters.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/counts.h"
#include "perfcounters/internal/counter_set.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters {
namespace {

// Full-coverage empty intervals measured per group to calibrate the
// bracket, and the CPU time calibration may take at most when groups take
// turns on the PMU (each group gets its turn within a rotation per group:
// 12 one-event groups on 6 counters need 6 rotations of 4 ms).
constexpr int kCalibrationSamples = 33;
constexpr double kCalibrationMaxCpuSeconds = 0.25;

// The hardware PMU's multiplexing interval in ns, read once per process;
// the kernel's default of 4 ms (HZ 250) when sysfs does not say.
double MuxIntervalNs() {
  static const double ns = [] {
    const std::optional<int> ms = ProbeCapabilities().mux_interval_ms;
    return ms.has_value() && *ms > 0 ? *ms * 1e6 : 4e6;
  }();
  return ns;
}

// What the bracket adds to a batch of `intervals` intervals: the first
// interval's and every further one's.
double Bracket(const BracketCost& first, const BracketCost& next,
               double intervals, bool noise) {
  auto one = [noise](const BracketCost& c) {
    return noise ? std::max(10.0 * static_cast<double>(c.spread),
                            static_cast<double>(c.floor))
                 : static_cast<double>(c.floor);
  };
  if (intervals <= 0) return 0;
  return one(first) + one(next) * (intervals - 1);
}

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

Counters::Counters() = default;
Counters::Counters(Counters&&) noexcept = default;
Counters& Counters::operator=(Counters&&) noexcept = default;
Counters::~Counters() = default;

// Start() and Stop() are in counter_set.cc, with the rest of the hot path.
void Counters::Reset() { set_->ResetBatch(); }
uint64_t Counters::intervals() const { return set_->intervals(); }
bool Counters::user_space(size_t g) const { return set_->user_space(g); }
const std::string& Counters::user_space_reason(size_t g) const {
  return set_->user_space_reason(g);
}

absl::StatusOr<Counters> Counters::Open(std::string_view events,
                                        const CountersOptions& options) {
  ASSIGN_OR_RETURN(Request request, ParseRequest(events, options.parse));
  return Open(MakePlan(request, OpenAndVerify), options);
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
  c.set_ =
      std::make_unique<CounterSet>(CounterSet::Open(groups, options.read_mode));
  c.mux_interval_ns_ = MuxIntervalNs();
  if (options.calibrate) {
    // The bracket measured twice: the snapshots alone (what an optimized
    // caller's Start(); Stop(); compiles to, nearly) and through the public
    // Start() and Stop() (which an unoptimized build calls rather than
    // inlines). The smaller floor per event: calibration never subtracts
    // more than the bracket costs.
    c.calibration_ =
        c.set_->Calibrate(kCalibrationSamples, kCalibrationMaxCpuSeconds);
    const std::vector<BracketCost> wrapped = c.MeasureBracket([&c] {
      c.Start();
      c.Stop();
    });
    for (size_t i = 0; i < wrapped.size(); ++i) {
      BracketCost& cost = c.calibration_[i];
      if (wrapped[i].valid && (!cost.valid || wrapped[i].floor < cost.floor)) {
        cost = wrapped[i];
      }
    }
    c.first_calibration_ = c.calibration_;
  }
  return c;
}

std::vector<BracketCost> Counters::MeasureBracket(
    absl::FunctionRef<void()> bracket) {
  return set_->Calibrate(kCalibrationSamples, kCalibrationMaxCpuSeconds,
                         bracket);
}

void Counters::SetCalibration(std::vector<BracketCost> first,
                              std::vector<BracketCost> next) {
  first_calibration_ = std::move(first);
  calibration_ = std::move(next);
}

std::vector<std::string> Counters::Uncalibrated() const {
  std::vector<std::string> keys;
  for (size_t i = 0; i < calibration_.size(); ++i) {
    const size_t g = group_of_[i];
    if (!set_->group_status(g).ok()) continue;
    if (calibration_[i].valid && first_calibration_[i].valid) continue;
    keys.push_back(plan_.groups[g].events[i - set_->first_event(g)].key);
  }
  return keys;
}

CounterValue Counters::PlannedValue(size_t i) const {
  const size_t g = group_of_[i];
  CounterValue v;
  v.label = plan_.groups[g].events[i - set_->first_event(g)].key;
  if (!set_->group_status(g).ok()) {
    v.not_counted_reason = absl::StrCat("its group could not be opened: ",
                                        set_->group_status(g).message());
    return v;
  }
  if (set_->failed(g)) {
    v.not_counted_reason =
        "a read of its group failed or went backwards in some interval";
    return v;
  }
  v.raw = set_->raw(i);
  v.enabled = set_->enabled(g);
  v.running = set_->running(g);
  const ScaledCount scaled = Scale(v.raw, v.enabled, v.running);
  if (!scaled.counted()) {
    v.not_counted_reason =
        set_->intervals() == 0
            ? "no interval was measured (Start and Stop)"
            : "its group never ran on the PMU (more events than counters?)";
    return v;
  }
  v.counted = true;
  v.coverage = scaled.coverage();
  v.value = scaled.value();
  v.mux_intervals = static_cast<double>(v.enabled) / mux_interval_ns_;
  if (i >= calibration_.size()) return v;  // calibration off
  if (!calibration_[i].valid || !first_calibration_[i].valid) {
    v.calibrated = false;
    return v;
  }
  // The bracket ran once per interval; never below 0.
  const double intervals = static_cast<double>(set_->intervals());
  v.subtracted = Bracket(first_calibration_[i], calibration_[i], intervals,
                         /*noise=*/false);
  v.value = std::max(0.0, v.value - v.subtracted);
  // Too small: below 10x the bracket's noise, or below the bracket's own
  // count (then the result is mostly the subtraction).
  v.noise_limit = Bracket(first_calibration_[i], calibration_[i], intervals,
                          /*noise=*/true);
  return v;
}

std::vector<CounterValue> Counters::Values() const {
  std::vector<CounterValue> planned;
  for (size_t i = 0; i < set_->event_count(); ++i) {
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
