// symbolize_bench.cc: what profiles cost (profile.h, symbols.h).
//
//   BM_Summarize100kSamples/N   a fresh Symbolizer for this process, then
//                               SummarizeProfile over 100,000 samples at N
//                               distinct addresses of this binary's code
//                               (cold caches: the debug info is read once
//                               per iteration, every address looked up)
//   BM_SymbolizeCached          one more lookup of an address already seen
//   BM_ProfiledSpin/P           100 ms of CPU sampled every P ns of
//                               cpu-clock, with call chains: the samples
//                               drained per second and how many were lost
//   BM_FixedWork/P              the same fixed work (about 50 ms of CPU)
//                               unsampled (P = 0) and sampled every P ns of
//                               cpu-clock with call chains: the process's
//                               CPU time (the reader thread's included)
//                               against P = 0 is what sampling costs
//
// The numbers are in docs/profiles.md.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/profile.h"
#include "perfcounters/symbols.h"

namespace {

using perfcounters::Profile;
using perfcounters::ProfileOptions;
using perfcounters::Profiler;
using perfcounters::Symbolizer;

// The executable mapping of this binary: [begin, end).
std::pair<uint64_t, uint64_t> OwnText() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  const std::string exe(self, n > 0 ? n : 0);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(" r-xp ") == std::string::npos ||
        line.find(exe) == std::string::npos) {
      continue;
    }
    std::istringstream in(line);
    uint64_t b = 0, e = 0;
    char dash = 0;
    in >> std::hex >> b >> dash >> e;
    return {b, e};
  }
  return {0, 0};
}

Profile RandomProfile(size_t distinct, size_t samples) {
  const auto [begin, end] = OwnText();
  std::mt19937_64 rng(42);
  std::vector<uint64_t> addrs(distinct);
  for (uint64_t& a : addrs) a = begin + rng() % (end - begin);
  Profile p;
  p.event = "cpu-clock";
  p.period = 250000;
  for (size_t i = 0; i < samples; ++i) ++p.by_address[addrs[i % distinct]];
  p.samples = samples;
  return p;
}

void BM_Summarize100kSamples(benchmark::State& state) {
  const Profile p = RandomProfile(state.range(0), 100000);
  for (auto _ : state) {
    absl::StatusOr<Symbolizer> s = Symbolizer::ForThisProcess();
    if (!s.ok()) {
      state.SkipWithError(std::string(s.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(perfcounters::SummarizeProfile(p, *s));
  }
  state.counters["addresses"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Summarize100kSamples)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

void BM_SymbolizeCached(benchmark::State& state) {
  absl::StatusOr<Symbolizer> s = Symbolizer::ForThisProcess();
  const uint64_t addr = reinterpret_cast<uint64_t>(&BM_SymbolizeCached);
  s->Symbolize(addr);
  for (auto _ : state) benchmark::DoNotOptimize(s->Symbolize(addr));
}
BENCHMARK(BM_SymbolizeCached);

__attribute__((noinline)) void Spin(uint64_t ns) {
  timespec t0{}, t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  volatile uint64_t sink = 0;
  do {
    for (int i = 0; i < 20000; ++i) sink = sink + i;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000ull + t.tv_nsec - t0.tv_nsec <
           ns);
}

void BM_ProfiledSpin(benchmark::State& state) {
  ProfileOptions o;
  o.period = state.range(0);
  o.callchain = true;
  absl::StatusOr<Profiler> p = Profiler::Open(o);
  if (!p.ok()) {
    state.SkipWithError(std::string(p.status().message()).c_str());
    return;
  }
  uint64_t samples = 0, lost = 0;
  for (auto _ : state) {
    (void)p->Start();
    Spin(100'000'000);
    absl::StatusOr<Profile> prof = p->Take();
    samples += prof.ok() ? prof->samples : 0;
    lost += prof.ok() ? prof->lost : 0;
  }
  state.counters["samples_per_s"] =
      benchmark::Counter(samples, benchmark::Counter::kIsRate);
  state.counters["lost"] = benchmark::Counter(lost);
}
BENCHMARK(BM_ProfiledSpin)
    ->Arg(250000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

__attribute__((noinline)) void FixedWork() {
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < 50'000'000; ++i) sink = sink + i;
}

void BM_FixedWork(benchmark::State& state) {
  std::optional<Profiler> p;
  if (state.range(0) > 0) {
    ProfileOptions o;
    o.period = state.range(0);
    o.callchain = true;
    absl::StatusOr<Profiler> opened = Profiler::Open(o);
    if (!opened.ok()) {
      state.SkipWithError(std::string(opened.status().message()).c_str());
      return;
    }
    p = std::move(*opened);
  }
  uint64_t samples = 0;
  for (auto _ : state) {
    if (p) (void)p->Start();
    FixedWork();
    if (p) {
      absl::StatusOr<Profile> prof = p->Take();
      samples += prof.ok() ? prof->samples : 0;
    }
  }
  state.counters["samples"] =
      benchmark::Counter(samples, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_FixedWork)
    ->Arg(0)
    ->Arg(250000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
