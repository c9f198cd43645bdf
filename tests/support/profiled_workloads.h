// profiled_workloads.h: the code profile_test and profile_symbols_test
// profile, and their shared helpers: spinners with a measured CPU time, an
// always-inline helper, a static function with a static helper inlined and
// out of line, and the tests' standard profile (SampleThreeToOne).
//
// It DEFINES the profiled functions (external linkage, frame pointers and
// full debug information come from the including test's flags: see
// tests/CMakeLists.txt): include it from exactly one .cc per binary.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_PROFILED_WORKLOADS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_PROFILED_WORKLOADS_H_

#include <unistd.h>

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/profile.h"
#include "perfcounters/symbols.h"
#include "support/event_helpers.h"
#include "support/status_matchers.h"

// The profiled functions have external linkage, so that their debug info
// carries linkage names: binutils' addr2line then names them exactly (for a
// function without one it may name an inlined frame after the symbol that
// encloses it, which llvm-symbolizer, elfutils and we do not).
namespace perfcounters::profiled {

// The profiled functions are defined here, not only declared: each test
// binary compiles them once, with its own flags (see the top of this file).
// NOLINTBEGIN(misc-definitions-in-headers)

// Spins in its own loop for `ns` of this thread's CPU time; the clock is
// read every 200000 additions, so almost every sample lands in the loop.
#define PERFCOUNTERS_SPINNER(Name, K)                         \
  __attribute__((noinline)) uint64_t Name(uint64_t ns) {      \
    const uint64_t start = testing::ThreadCpuNs();            \
    volatile uint64_t sink = 0;                               \
    uint64_t now = start;                                     \
    while (now - start < ns) {                                \
      for (int i = 0; i < 200000; ++i) sink = sink + i + (K); \
      now = testing::ThreadCpuNs();                           \
    }                                                         \
    return now - start;                                       \
  }
PERFCOUNTERS_SPINNER(SpinThree, 3)
PERFCOUNTERS_SPINNER(SpinOne, 1)
PERFCOUNTERS_SPINNER(SpinStopped, 2)

// An always-inline helper: its samples belong to the caller's code.
__attribute__((always_inline)) inline uint64_t AddSquares(uint64_t n) {
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < n; ++i) sink = sink + i * i;
  return sink;
}

__attribute__((noinline)) uint64_t SpinInlined(uint64_t ns) {
  const uint64_t start = testing::ThreadCpuNs();
  uint64_t now = start;
  while (now - start < ns) {
    AddSquares(200000);
    now = testing::ThreadCpuNs();
  }
  return now - start;
}

__attribute__((noinline)) uint64_t Outer(uint64_t ns) {
  const uint64_t r = SpinOne(ns);
  asm volatile("" ::: "memory");  // keep the call a call, not a tail call
  return r;
}

// Internal linkage: GCC writes no linkage name for these, so their names
// come from the symbol table or the DWARF scopes. MixStatic spends its time
// in its own loop, in MixHelper inlined into it and in MixHelper's
// out-of-line copy (its address is taken).
__attribute__((always_inline)) static inline uint64_t MixHelper(uint64_t n) {
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < n; ++i) sink = sink + (i ^ 0x5bd1e995u);
  return sink;
}
static uint64_t (*volatile g_mix_helper)(uint64_t) = &MixHelper;

// (Unused in profile_test: only profile_symbols_test samples it.)
[[maybe_unused]] __attribute__((noinline)) static uint64_t MixStatic(
    uint64_t ns) {
  const uint64_t start = testing::ThreadCpuNs();
  uint64_t now = start;
  volatile uint64_t sink = 0;
  while (now - start < ns) {
    MixHelper(100000);
    g_mix_helper(100000);
    for (int i = 0; i < 100000; ++i) sink = sink + i;
    now = testing::ThreadCpuNs();
  }
  return now - start;
}

// NOLINTEND(misc-definitions-in-headers)

}  // namespace perfcounters::profiled

// The tests' helpers.
namespace perfcounters::profiled {

// The self samples of the functions whose names start with `prefix`.
inline uint64_t SelfOf(const ProfileSummary& s, const std::string& prefix) {
  uint64_t n = 0;
  for (const FunctionShare& f : s.functions) {
    if (f.name.rfind(prefix, 0) == 0) n += f.self;
  }
  return n;
}

// The first function whose name starts with `prefix`, or null.
inline const FunctionShare* Find(const ProfileSummary& s,
                                 const std::string& prefix) {
  for (const FunctionShare& f : s.functions) {
    if (f.name.rfind(prefix, 0) == 0) return &f;
  }
  return nullptr;
}

// p.Take(), a test failure when it fails.
inline Profile MustTake(Profiler& p) {
  absl::StatusOr<Profile> prof = p.Take();
  EXPECT_TRUE(prof.ok()) << prof.status();
  return prof.ok() ? *prof : Profile();
}

// The main executable's path as /proc/self/maps names it.
inline std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : std::string();
}

// The test's standard profile: 3:1 CPU time on two functions plus an
// inlined helper, with call chains.
struct Sampled {
  Profile profile;
  uint64_t three_ns = 0, one_ns = 0;
};

inline Sampled SampleThreeToOne(bool callchain) {
  ProfileOptions o;
  o.callchain = callchain;
  absl::StatusOr<Profiler> p = Profiler::Open(o);
  EXPECT_TRUE(p.ok()) << p.status();
  Sampled s;
  if (!p.ok()) return s;
  EXPECT_TRUE(p->Start().ok());
  for (int i = 0; i < 20; ++i) {
    s.three_ns += SpinThree(15'000'000);
    s.one_ns += SpinOne(5'000'000);
  }
  EXPECT_THAT(p->Stop(), ::perfcounters::testing::IsOk());
  SpinStopped(50'000'000);
  EXPECT_TRUE(p->Start().ok());
  SpinInlined(20'000'000);
  s.one_ns += Outer(5'000'000);
  s.profile = MustTake(*p);
  return s;
}

}  // namespace perfcounters::profiled

#endif  // PERFCOUNTERS_TESTS_SUPPORT_PROFILED_WORKLOADS_H_
