// simulate_extra_run.cc: the simulator's counting client of gbench's extra run
// (simulate_extra_run.h).
#include "simulate_extra_run.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "extra_run.h"
#include "perfcounters/counters.h"
#include "perfcounters/plan.h"
#include "simulate.h"
#include "simulate_profile.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

class SimulatedExtraRunCounter : public ExtraRunCountingClient {
 public:
  explicit SimulatedExtraRunCounter(std::shared_ptr<const Config> config)
      : config_(std::move(config)) {}

  // The bracket: from here on to SimCollectOff() in Stop(); of what it
  // collects, BenchmarkCallCosts() keeps the benchmark's own part.
  void Start() override { SimCollectOn(); }

  void Stop() override {
    SimCollectOff();
    ExtraRunResult r;
    r.self_counted = TakeExtraRunSelfCounted();
    if (r.self_counted) {
      // A Measure benchmark counted itself in its own run: no dump.
      std::lock_guard<std::mutex> lock(mu_);
      results_.push_back(std::move(r));
      return;
    }
    absl::StatusOr<std::string> text = SimDumpText();
    // The sampling run's region, by function (simulate_profile.h).
    if (text.ok() && SimProfiling())
      SimProfileAdd(*text, /*from_extra_run=*/true);
    absl::StatusOr<SimCosts> dump =
        text.ok() ? BenchmarkCallCosts(*text) : text.status();
    std::lock_guard<std::mutex> lock(mu_);
    if (!dump.ok()) {
      r.not_counted =
          absl::StrCat("the simulator did not count gbench's extra run (",
                       dump.status().message(), ")");
      results_.push_back(std::move(r));
      return;
    }
    const SimCosts& net = *dump;
    size_t i = 0;
    for (const PlannedGroup& g : config_->plan.groups) {
      for (const PlannedEvent& e : g.events) {
        CounterValue v;
        v.label = config_->keys[i++];
        absl::StatusOr<std::vector<SimEvent>> inputs = SimulatedInputs(e.spec);
        if (!inputs.ok()) {
          v.not_counted_reason = std::string(inputs.status().message());
          r.values.push_back(std::move(v));
          continue;
        }
        uint64_t sum = 0;
        for (SimEvent in : *inputs) sum += net[in];
        v.counted = true;
        v.raw = sum;
        v.value = static_cast<double>(sum);
        v.coverage = 1;
        v.enabled = v.running = 1;
        r.values.push_back(std::move(v));
      }
    }
    if (WantsSimulatedEstimates(*config_)) {
      const double cycles = EstimatedCycles(net);
      r.est_cycles = cycles;
      if (cycles > 0) r.est_ipc = static_cast<double>(net[kIr]) / cycles;
    }
    results_.push_back(std::move(r));
  }

  // Nothing to calibrate: gbench's code is cut out of the dump exactly.
  void BeginCalibration() override {}
  void EndCalibration() override {}

  std::vector<ExtraRunResult> Take() override {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(results_, {});
  }

  std::vector<std::pair<std::string, BracketCost>> calibration() override {
    return {};
  }

 private:
  const std::shared_ptr<const Config> config_;
  std::mutex mu_;
  std::vector<ExtraRunResult> results_;  // guarded by mu_
};

}  // namespace

ExtraRunCountingClient* NewSimulatedExtraRunCounter(
    const std::shared_ptr<const Config>& config) {
  return new SimulatedExtraRunCounter(config);
}

}  // namespace perfcounters::benchmark_ext_internal
