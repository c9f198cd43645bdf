// profiler_pass.cc: one gbench ProfilerManager fanning out to the pass's
// clients (gbench accepts a single manager).
#include "profiler_pass.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "benchmark/benchmark.h"

namespace perfcounters::bench_internal {
namespace {

std::atomic<bool> in_pass{false};
std::atomic<bool> self_counted{false};

#ifdef PERFCOUNTERS_HAVE_PROFILER_MANAGER
class Pass : public benchmark::ProfilerManager {
 public:
  void Add(PassClient* client) {
    std::lock_guard<std::mutex> lock(mu_);
    clients_.push_back(client);
  }
  void AfterSetupStart() override {
    self_counted = false;
    in_pass = true;
    for (PassClient* c : clients_) c->Start();
  }
  void BeforeTeardownStop() override {
    for (auto it = clients_.rbegin(); it != clients_.rend(); ++it) {
      (*it)->Stop();
    }
    in_pass = false;
  }

 private:
  std::mutex mu_;
  std::vector<PassClient*> clients_;
};

// The one pass, registered with gbench on first use.
Pass* ThePass() {
  static Pass* const pass = [] {
    auto* p = new Pass();
    benchmark::RegisterProfilerManager(p);
    return p;
  }();
  return pass;
}
#endif

}  // namespace

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
  Pass* const pass = ThePass();
  benchmark::RegisterProfilerManager(nullptr);
  if (registered) benchmark::RegisterProfilerManager(pass);
#else
  (void)registered;
#endif
}

bool InProfilerPass() { return in_pass.load(std::memory_order_relaxed); }

void MarkPassSelfCounted() { self_counted = true; }

bool TakePassSelfCounted() { return self_counted.exchange(false); }

}  // namespace perfcounters::bench_internal
