// extra_run_counting.cc: the counting client of gbench's extra run.
#include "extra_run_counting.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "extra_run.h"
#include "measure_internal.h"
#include "perfcounters/counters.h"
#include "registry.h"
#include "simulate_extra_run.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

// Repetitions of the calibration benchmark (as Measure's 33 empty
// intervals).
constexpr int kCalibrationRuns = 33;

// Set by the calibration benchmark's body around its loop: inside the
// calibrated bracket, so one store to a fixed address (a listed exception
// to the one owner, process_state.h).
std::atomic<bool> calibration_body{false};

class ExtraRunCounter : public ExtraRunCountingClient {
 public:
  ExtraRunCounter(std::shared_ptr<const Config> config, absl::Status budget,
                  Counters counters)
      : config_(std::move(config)),
        budget_(std::move(budget)),
        counters_(std::move(counters)) {}

  void Start() override {
    counters_.Reset();
    counters_.Start();
  }

  void Stop() override {
    counters_.Stop();
    const bool self = TakeExtraRunSelfCounted();
    const bool calibration = InExtraRunCalibration();
    std::lock_guard<std::mutex> lock(mu_);
    if (calibration) {
      if (calibrating_) samples_.push_back(Raw());
      return;  // the main run's calibration rows are dropped
    }
    ExtraRunResult r;
    r.self_counted = self;
    if (!budget_.ok()) {
      r.not_counted = std::string(budget_.message());
    } else if (!self) {
      r.values = Raw();
      for (size_t i = 0; i < r.values.size(); ++i) Calibrate(i, &r.values[i]);
      r.counted_cpu_s = CountedCpuSeconds();
    }
    results_.push_back(std::move(r));
  }

  void BeginCalibration() override { calibrating_ = true; }
  // The floor (smallest) and spread (upper quartile minus floor) of the
  // samples in which the event's group was on the PMU the whole time.
  void EndCalibration() override {
    std::lock_guard<std::mutex> lock(mu_);
    calibrating_ = false;
    cost_.assign(config_->keys.size(), BracketCost());
    for (size_t i = 0; i < cost_.size(); ++i) {
      std::vector<uint64_t> counts;
      for (const std::vector<CounterValue>& s : samples_) {
        if (i < s.size() && s[i].counted && s[i].running == s[i].enabled) {
          counts.push_back(s[i].raw);
        }
      }
      if (counts.empty()) continue;
      std::sort(counts.begin(), counts.end());
      cost_[i].valid = true;
      cost_[i].floor = counts.front();
      cost_[i].spread = counts[counts.size() * 3 / 4] - counts.front();
    }
    samples_.clear();
  }

  std::vector<ExtraRunResult> Take() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<ExtraRunResult> out;
    out.swap(results_);
    return out;
  }

  std::vector<std::pair<std::string, BracketCost>> calibration() override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<std::string, BracketCost>> out;
    for (size_t i = 0; i < cost_.size(); ++i) {
      if (cost_[i].valid) out.emplace_back(config_->keys[i], cost_[i]);
    }
    return out;
  }

 private:
  std::vector<CounterValue> Raw() const {
    std::vector<CounterValue> values;
    for (size_t i = 0; i < internal::CounterSetOf(counters_).event_count();
         ++i) {
      values.push_back(counters_.PlannedValue(i));
    }
    return values;
  }

  // The longest time enabled of the groups that counted (none: unknown).
  std::optional<double> CountedCpuSeconds() const {
    const CounterSet& set = internal::CounterSetOf(counters_);
    std::optional<double> seconds;
    for (size_t g = 0; g < set.group_count(); ++g) {
      if (!set.group_status(g).ok() || set.failed(g)) continue;
      seconds = std::max(seconds.value_or(0),
                         static_cast<double>(set.enabled(g)) * 1e-9);
    }
    return seconds;
  }

  void Calibrate(size_t i, CounterValue* v) const {
    if (!config_->options.calibrate || !v->counted) return;
    if (i >= cost_.size() || !cost_[i].valid) {
      v->calibrated = false;
      return;
    }
    const double floor = static_cast<double>(cost_[i].floor);
    v->subtracted = floor;
    v->noise_limit = std::max(floor, 10 * static_cast<double>(cost_[i].spread));
    v->value = std::max(0.0, v->value - floor);
  }

  const std::shared_ptr<const Config> config_;
  const absl::Status budget_;
  Counters counters_;
  std::mutex mu_;
  bool calibrating_ = false;                        // guarded by mu_
  std::vector<std::vector<CounterValue>> samples_;  // guarded by mu_
  std::vector<BracketCost> cost_;                   // guarded by mu_
  std::vector<ExtraRunResult> results_;             // guarded by mu_
};

// The counting client, set once before the benchmarks run.
ExtraRunCountingClient*& TheCounter() {
  return Registry::Get().state().extra_run_counting.counter;
}

void CalibrationBody(benchmark::State& state) {
  calibration_body = true;
  for (auto _ : state) {
  }
  calibration_body = false;
}

}  // namespace

bool StartExtraRunCounting(const std::shared_ptr<const Config>& config) {
  if (!ExtraRunAvailable() || config == nullptr || TheCounter() != nullptr) {
    return TheCounter() != nullptr;
  }
  if (config->simulated) {
    // Exact without calibration (simulate_extra_run.h).
    TheCounter() = NewSimulatedExtraRunCounter(config);
  } else {
    CountersOptions options;
    options.read_mode = config->options.read_mode;
    options.calibrate = false;  // the extra run's own calibration, below
    absl::Status budget = CheckDescriptorBudget(config->plan.event_count());
    Counters counters =
        Counters::Open(budget.ok() ? config->plan : Plan{}, options);
    TheCounter() =
        new ExtraRunCounter(config, std::move(budget), std::move(counters));
  }
  if (!AddExtraRunClient(TheCounter())) return false;
  if (config->options.calibrate && !config->simulated) {
    benchmark::RegisterBenchmark(kExtraRunCalibrationName, CalibrationBody)
        ->Iterations(1)
        ->Repetitions(kCalibrationRuns);
    NullReporter null;
    TheCounter()->BeginCalibration();
    benchmark::RunSpecifiedBenchmarks(
        &null, absl::StrCat("^", kExtraRunCalibrationName, "(/|$)"));
    TheCounter()->EndCalibration();
  }
  return true;
}

bool ExtraRunCountingActive() { return TheCounter() != nullptr; }

bool InExtraRunCalibration() { return calibration_body.load(); }

std::vector<ExtraRunResult> TakeExtraRunResults() {
  return TheCounter() == nullptr ? std::vector<ExtraRunResult>()
                                 : TheCounter()->Take();
}

std::vector<std::pair<std::string, BracketCost>> ExtraRunCalibration() {
  return TheCounter() == nullptr
             ? std::vector<std::pair<std::string, BracketCost>>()
             : TheCounter()->calibration();
}

}  // namespace perfcounters::benchmark_ext_internal
