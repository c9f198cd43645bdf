// extra_run.cc: one gbench ProfilerManager fanning out to the extra run's
// clients (gbench accepts a single manager).
#include "extra_run.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "benchmark/benchmark.h"
#include "registry.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

ExtraRunState& ExtraRun() { return Registry::Get().state().extra_run; }

}  // namespace

#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
class ExtraRunFanOut : public benchmark::ProfilerManager {
 public:
  void Add(ExtraRunClient* client) {
    std::lock_guard<std::mutex> lock(mu_);
    clients_.push_back(client);
  }
  void AfterSetupStart() override {
    ExtraRun().self_counted = false;
    ExtraRun().in_run = true;
    for (ExtraRunClient* c : clients_) c->Start();
  }
  void BeforeTeardownStop() override {
    for (auto it = clients_.rbegin(); it != clients_.rend(); ++it) {
      (*it)->Stop();
    }
    ExtraRun().in_run = false;
  }

 private:
  std::mutex mu_;
  std::vector<ExtraRunClient*> clients_;
};

namespace {

// The one extra run, registered with gbench on first use.
ExtraRunFanOut* TheExtraRun() {
  ExtraRunState& state = ExtraRun();
  std::call_once(state.fan_out_once, [&state] {
    state.fan_out = new ExtraRunFanOut();
    benchmark::RegisterProfilerManager(state.fan_out);
  });
  return state.fan_out;
}

}  // namespace
#endif

bool ExtraRunAvailable() {
#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  return true;
#else
  return false;
#endif
}

bool AddExtraRunClient(ExtraRunClient* client) {
#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  TheExtraRun()->Add(client);
  return true;
#else
  (void)client;
  return false;
#endif
}

void SetExtraRunRegistered(bool registered) {
#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  ExtraRunFanOut* const extra_run = TheExtraRun();
  benchmark::RegisterProfilerManager(nullptr);
  if (registered) benchmark::RegisterProfilerManager(extra_run);
#else
  (void)registered;
#endif
}

bool InExtraRun() { return ExtraRun().in_run.load(std::memory_order_relaxed); }

void MarkExtraRunSelfCounted() { ExtraRun().self_counted = true; }

bool TakeExtraRunSelfCounted() {
  return ExtraRun().self_counted.exchange(false);
}

}  // namespace perfcounters::benchmark_ext_internal
