// profiler_pass.cc: one gbench ProfilerManager fanning out to the pass's
// clients (gbench accepts a single manager).
#include "profiler_pass.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "benchmark/benchmark.h"
#include "registry.h"

namespace perfcounters::bench_internal {
namespace {

ExtraRunState& ExtraRun() { return Registry::Get().state().extra_run; }

}  // namespace

#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
class PassFanOut : public benchmark::ProfilerManager {
 public:
  void Add(PassClient* client) {
    std::lock_guard<std::mutex> lock(mu_);
    clients_.push_back(client);
  }
  void AfterSetupStart() override {
    ExtraRun().self_counted = false;
    ExtraRun().in_run = true;
    for (PassClient* c : clients_) c->Start();
  }
  void BeforeTeardownStop() override {
    for (auto it = clients_.rbegin(); it != clients_.rend(); ++it) {
      (*it)->Stop();
    }
    ExtraRun().in_run = false;
  }

 private:
  std::mutex mu_;
  std::vector<PassClient*> clients_;
};

namespace {

// The one pass, registered with gbench on first use.
PassFanOut* ThePass() {
  ExtraRunState& state = ExtraRun();
  std::call_once(state.fan_out_once, [&state] {
    state.fan_out = new PassFanOut();
    benchmark::RegisterProfilerManager(state.fan_out);
  });
  return state.fan_out;
}

}  // namespace
#endif

bool ProfilerPassAvailable() {
#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  return true;
#else
  return false;
#endif
}

bool AddPassClient(PassClient* client) {
#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  ThePass()->Add(client);
  return true;
#else
  (void)client;
  return false;
#endif
}

void SetPassRegistered(bool registered) {
#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
  PassFanOut* const pass = ThePass();
  benchmark::RegisterProfilerManager(nullptr);
  if (registered) benchmark::RegisterProfilerManager(pass);
#else
  (void)registered;
#endif
}

bool InProfilerPass() {
  return ExtraRun().in_run.load(std::memory_order_relaxed);
}

void MarkPassSelfCounted() { ExtraRun().self_counted = true; }

bool TakePassSelfCounted() { return ExtraRun().self_counted.exchange(false); }

}  // namespace perfcounters::bench_internal
