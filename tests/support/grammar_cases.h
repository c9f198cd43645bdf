// grammar_cases.h: the tables the grammar tests share (grammar_test,
// grammar_catalog_test): every valid form with the attr fields, label and
// PMU it must parse to, every malformed input with the error code and the
// parts its message must name, and the fake sysfs/tracefs tree they are
// parsed against.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_GRAMMAR_CASES_H_
#define PERFCOUNTERS_TESTS_SUPPORT_GRAMMAR_CASES_H_

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "perfcounters/attr.h"
#include "support/fake_sysfs.h"

namespace perfcounters::testing {

// Prints the fields an event spec's attr sets, for failure messages.
inline std::string Describe(const Attr& a) {
  std::string s = "type=" + std::to_string(a.type) +
                  " config=" + std::to_string(a.config) +
                  " config1=" + std::to_string(a.config1) +
                  " config2=" + std::to_string(a.config2) +
                  " bp_type=" + std::to_string(a.bp_type) +
                  " period=" + std::to_string(a.sample_period) +
                  " precise=" + std::to_string(a.precise_ip);
  const std::pair<const char*, bool> bits[] = {
      {"exclude_user", a.exclude_user},
      {"exclude_kernel", a.exclude_kernel},
      {"exclude_hv", a.exclude_hv},
      {"exclude_idle", a.exclude_idle},
      {"exclude_host", a.exclude_host},
      {"exclude_guest", a.exclude_guest},
      {"pinned", a.pinned},
      {"exclusive", a.exclusive},
      {"freq", a.freq}};
  for (const auto& [name, on] : bits) {
    if (on) s += std::string(" ") + name;
  }
  return s;
}

struct Case {
  std::string text;
  uint32_t type;
  uint64_t config;
  std::function<void(Attr&)> more;  // further expected fields
  std::string label;
  std::string pmu;
};

inline Attr Expected(const Case& c) {
  Attr a;
  a.type = c.type;
  a.config = c.config;
  if (c.more) c.more(a);
  return a;
}

inline constexpr uint32_t kHw = PERF_TYPE_HARDWARE;
inline constexpr uint32_t kSw = PERF_TYPE_SOFTWARE;
inline constexpr uint32_t kCache = PERF_TYPE_HW_CACHE;
inline constexpr uint32_t kRaw = PERF_TYPE_RAW;
inline constexpr uint32_t kBp = PERF_TYPE_BREAKPOINT;
inline constexpr uint32_t kTp = PERF_TYPE_TRACEPOINT;

inline void U(Attr& a) {
  a.exclude_kernel = true;
  a.exclude_hv = true;
}
inline void K(Attr& a) {
  a.exclude_user = true;
  a.exclude_hv = true;
}

inline uint64_t CacheConfig(uint64_t cache, uint64_t op, uint64_t result) {
  return cache | op << 8 | result << 16;
}

inline std::vector<Case> ValidCases() {
  using C = Case;
  const uint64_t kL1d = PERF_COUNT_HW_CACHE_L1D;
  const uint64_t kRead = PERF_COUNT_HW_CACHE_OP_READ;
  const uint64_t kWrite = PERF_COUNT_HW_CACHE_OP_WRITE;
  const uint64_t kPrefetch = PERF_COUNT_HW_CACHE_OP_PREFETCH;
  const uint64_t kAccess = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
  const uint64_t kMiss = PERF_COUNT_HW_CACHE_RESULT_MISS;
  return {
      // Generic hardware events and aliases, any case.
      C{"cycles", kHw, PERF_COUNT_HW_CPU_CYCLES, nullptr, "cycles", "cpu"},
      C{"cpu-cycles", kHw, PERF_COUNT_HW_CPU_CYCLES, nullptr, "cycles", "cpu"},
      C{"CYCLES", kHw, PERF_COUNT_HW_CPU_CYCLES, nullptr, "cycles", "cpu"},
      C{"Cpu-Cycles", kHw, PERF_COUNT_HW_CPU_CYCLES, nullptr, "cycles", "cpu"},
      C{"instructions", kHw, PERF_COUNT_HW_INSTRUCTIONS, nullptr,
        "instructions", "cpu"},
      C{"cache-references", kHw, PERF_COUNT_HW_CACHE_REFERENCES, nullptr,
        "cache-references", "cpu"},
      C{"cache-misses", kHw, PERF_COUNT_HW_CACHE_MISSES, nullptr,
        "cache-misses", "cpu"},
      C{"branches", kHw, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, nullptr, "branches",
        "cpu"},
      C{"branch-instructions", kHw, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, nullptr,
        "branches", "cpu"},
      C{"branch-misses", kHw, PERF_COUNT_HW_BRANCH_MISSES, nullptr,
        "branch-misses", "cpu"},
      C{"bus-cycles", kHw, PERF_COUNT_HW_BUS_CYCLES, nullptr, "bus-cycles",
        "cpu"},
      C{"stalled-cycles-frontend", kHw, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
        nullptr, "stalled-cycles-frontend", "cpu"},
      C{"idle-cycles-frontend", kHw, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
        nullptr, "stalled-cycles-frontend", "cpu"},
      C{"stalled-cycles-backend", kHw, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
        nullptr, "stalled-cycles-backend", "cpu"},
      C{"idle-cycles-backend", kHw, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
        nullptr, "stalled-cycles-backend", "cpu"},
      C{"ref-cycles", kHw, PERF_COUNT_HW_REF_CPU_CYCLES, nullptr, "ref-cycles",
        "cpu"},
      // Software events.
      C{"cpu-clock", kSw, PERF_COUNT_SW_CPU_CLOCK, nullptr, "cpu-clock",
        "software"},
      C{"task-clock", kSw, PERF_COUNT_SW_TASK_CLOCK, nullptr, "task-clock",
        "software"},
      C{"page-faults", kSw, PERF_COUNT_SW_PAGE_FAULTS, nullptr, "page-faults",
        "software"},
      C{"faults", kSw, PERF_COUNT_SW_PAGE_FAULTS, nullptr, "page-faults",
        "software"},
      C{"context-switches", kSw, PERF_COUNT_SW_CONTEXT_SWITCHES, nullptr,
        "context-switches", "software"},
      C{"cs", kSw, PERF_COUNT_SW_CONTEXT_SWITCHES, nullptr, "context-switches",
        "software"},
      C{"CS", kSw, PERF_COUNT_SW_CONTEXT_SWITCHES, nullptr, "context-switches",
        "software"},
      C{"cpu-migrations", kSw, PERF_COUNT_SW_CPU_MIGRATIONS, nullptr,
        "cpu-migrations", "software"},
      C{"migrations", kSw, PERF_COUNT_SW_CPU_MIGRATIONS, nullptr,
        "cpu-migrations", "software"},
      C{"minor-faults", kSw, PERF_COUNT_SW_PAGE_FAULTS_MIN, nullptr,
        "minor-faults", "software"},
      C{"major-faults", kSw, PERF_COUNT_SW_PAGE_FAULTS_MAJ, nullptr,
        "major-faults", "software"},
      C{"alignment-faults", kSw, PERF_COUNT_SW_ALIGNMENT_FAULTS, nullptr,
        "alignment-faults", "software"},
      C{"emulation-faults", kSw, PERF_COUNT_SW_EMULATION_FAULTS, nullptr,
        "emulation-faults", "software"},
      C{"dummy", kSw, PERF_COUNT_SW_DUMMY, nullptr, "dummy", "software"},
      C{"bpf-output", kSw, PERF_COUNT_SW_BPF_OUTPUT, nullptr, "bpf-output",
        "software"},
      C{"cgroup-switches", kSw, PERF_COUNT_SW_CGROUP_SWITCHES, nullptr,
        "cgroup-switches", "software"},
      // Hardware cache events.
      C{"L1-dcache-load-misses", kCache, CacheConfig(kL1d, kRead, kMiss),
        nullptr, "L1-dcache-load-misses", "cpu"},
      C{"L1-dcache-loads", kCache, CacheConfig(kL1d, kRead, kAccess), nullptr,
        "L1-dcache-loads", "cpu"},
      C{"l1d-loads", kCache, 0, nullptr, "L1-dcache-loads", "cpu"},
      C{"L1-dcache", kCache, 0, nullptr, "L1-dcache-loads", "cpu"},
      C{"L1-dcache-misses", kCache, CacheConfig(kL1d, kRead, kMiss), nullptr,
        "L1-dcache-load-misses", "cpu"},
      C{"L1-data-write-access", kCache, CacheConfig(kL1d, kWrite, kAccess),
        nullptr, "L1-dcache-stores", "cpu"},
      C{"L1-dcache-speculative-read-miss", kCache,
        CacheConfig(kL1d, kPrefetch, kMiss), nullptr,
        "L1-dcache-prefetch-misses", "cpu"},
      C{"L1-icache-prefetches", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_L1I, kPrefetch, kAccess), nullptr,
        "L1-icache-prefetches", "cpu"},
      C{"LLC-loads", kCache, CacheConfig(PERF_COUNT_HW_CACHE_LL, kRead, 0),
        nullptr, "LLC-loads", "cpu"},
      C{"llc-load-misses", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_LL, kRead, kMiss), nullptr,
        "LLC-load-misses", "cpu"},
      C{"L2-misses", kCache, CacheConfig(PERF_COUNT_HW_CACHE_LL, kRead, kMiss),
        nullptr, "LLC-load-misses", "cpu"},
      C{"dTLB-load-misses", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_DTLB, kRead, kMiss), nullptr,
        "dTLB-load-misses", "cpu"},
      C{"dTLB-store-misses", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_DTLB, kWrite, kMiss), nullptr,
        "dTLB-store-misses", "cpu"},
      C{"iTLB-loads", kCache, CacheConfig(PERF_COUNT_HW_CACHE_ITLB, kRead, 0),
        nullptr, "iTLB-loads", "cpu"},
      C{"branch-loads", kCache, CacheConfig(PERF_COUNT_HW_CACHE_BPU, kRead, 0),
        nullptr, "branch-loads", "cpu"},
      C{"branch-load-misses", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_BPU, kRead, kMiss), nullptr,
        "branch-load-misses", "cpu"},
      C{"node-stores", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_NODE, kWrite, kAccess), nullptr,
        "node-stores", "cpu"},
      // Modifiers with perf's meaning.
      C{"cycles:u", kHw, 0, U, "cycles:u", "cpu"},
      C{"cycles:k", kHw, 0, K, "cycles:k", "cpu"},
      C{"cycles:h", kHw, 0,
        [](Attr& a) { a.exclude_user = a.exclude_kernel = true; }, "cycles:h",
        "cpu"},
      C{"cycles:uk", kHw, 0, [](Attr& a) { a.exclude_hv = true; }, "cycles:uk",
        "cpu"},
      C{"cycles:ukh", kHw, 0, nullptr, "cycles:ukh", "cpu"},
      C{"cycles:G", kHw, 0, [](Attr& a) { a.exclude_host = true; }, "cycles:G",
        "cpu"},
      C{"cycles:H", kHw, 0, [](Attr& a) { a.exclude_guest = true; }, "cycles:H",
        "cpu"},
      C{"cycles:GH", kHw, 0, nullptr, "cycles:GH", "cpu"},
      C{"cycles:I", kHw, 0, [](Attr& a) { a.exclude_idle = true; }, "cycles:I",
        "cpu"},
      C{"cycles:p", kHw, 0,
        [](Attr& a) {
          a.precise_ip = 1;
          a.exclude_guest = true;
        },
        "cycles:p", "cpu"},
      C{"cycles:pp", kHw, 0,
        [](Attr& a) {
          a.precise_ip = 2;
          a.exclude_guest = true;
        },
        "cycles:pp", "cpu"},
      C{"cycles:ppp", kHw, 0,
        [](Attr& a) {
          a.precise_ip = 3;
          a.exclude_guest = true;
        },
        "cycles:ppp", "cpu"},
      C{"cycles:ppG", kHw, 0,
        [](Attr& a) {
          a.precise_ip = 2;
          a.exclude_host = true;
        },
        "cycles:ppG", "cpu"},
      C{"cycles:Gp", kHw, 0,
        [](Attr& a) {
          a.precise_ip = 1;
          a.exclude_host = true;
        },
        "cycles:Gp", "cpu"},
      C{"cycles:upp", kHw, 0,
        [](Attr& a) {
          U(a);
          a.precise_ip = 2;
          a.exclude_guest = true;
        },
        "cycles:upp", "cpu"},
      C{"cycles:D", kHw, 0, [](Attr& a) { a.pinned = true; }, "cycles:D",
        "cpu"},
      C{"cycles:e", kHw, 0, [](Attr& a) { a.exclusive = true; }, "cycles:e",
        "cpu"},
      C{"INSTRUCTIONS:kI", kHw, PERF_COUNT_HW_INSTRUCTIONS,
        [](Attr& a) {
          K(a);
          a.exclude_idle = true;
        },
        "instructions:kI", "cpu"},
      C{"cs:u", kSw, PERF_COUNT_SW_CONTEXT_SWITCHES, U, "context-switches:u",
        "software"},
      C{"L1-dcache-load-misses:k", kCache, CacheConfig(kL1d, kRead, kMiss), K,
        "L1-dcache-load-misses:k", "cpu"},
      // Raw events.
      C{"r01c2", kRaw, 0x1c2, nullptr, "r01c2", "cpu"},
      C{"R1a", kRaw, 0x1a, nullptr, "R1a", "cpu"},
      C{"rFFFFFFFFFFFFFFFF", kRaw, ~uint64_t{0}, nullptr, "rFFFFFFFFFFFFFFFF",
        "cpu"},
      C{"r00000000000000000001", kRaw, 1, nullptr, "r00000000000000000001",
        "cpu"},
      C{"r1:u", kRaw, 1, U, "r1:u", "cpu"},
      C{"rc0:ppp", kRaw, 0xc0,
        [](Attr& a) {
          a.precise_ip = 3;
          a.exclude_guest = true;
        },
        "rc0:ppp", "cpu"},
      // Breakpoints.
      C{"mem:0x1000", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_RW;
          a.config1 = 0x1000;
          a.config2 = 4;
        },
        "mem:0x1000", "breakpoint"},
      C{"mem:0x1000/8", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_RW;
          a.config1 = 0x1000;
          a.config2 = 8;
        },
        "mem:0x1000/8", "breakpoint"},
      C{"mem:0x1000/2:w", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_W;
          a.config1 = 0x1000;
          a.config2 = 2;
        },
        "mem:0x1000/2:w", "breakpoint"},
      C{"mem:0x400000:x", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_X;
          a.config1 = 0x400000;
          a.config2 = sizeof(long);
        },
        "mem:0x400000:x", "breakpoint"},
      C{"mem:4096:rw", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_RW;
          a.config1 = 4096;
          a.config2 = 4;
        },
        "mem:4096:rw", "breakpoint"},
      C{"mem:0x1000:wr", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_RW;
          a.config1 = 0x1000;
          a.config2 = 4;
        },
        "mem:0x1000:wr", "breakpoint"},
      C{"mem:0x1000:r:u", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_R;
          a.config1 = 0x1000;
          a.config2 = 4;
          U(a);
        },
        "mem:0x1000:r:u", "breakpoint"},
      C{"mem:0x1000:u", kBp, 0,
        [](Attr& a) {
          a.bp_type = HW_BREAKPOINT_RW;
          a.config1 = 0x1000;
          a.config2 = 4;
          U(a);
        },
        "mem:0x1000:u", "breakpoint"},
      // Tracepoints (fake tracefs).
      C{"sched:sched_switch", kTp, 316, nullptr, "sched:sched_switch",
        "tracepoint"},
      C{"sched:sched_wakeup:u", kTp, 318, U, "sched:sched_wakeup:u",
        "tracepoint"},
      // A category named like an event: a modifier string after a known
      // event is a modifier; anything else is a tracepoint.
      C{"cycles:u", kHw, 0, U, "cycles:u", "cpu"},
      C{"cycles:foo", kTp, 9, nullptr, "cycles:foo", "tracepoint"},
      // sysfs PMUs (fake sysfs).
      C{"cpu/event=0x3c,umask=0/", 4, 0x3c, nullptr, "cpu/event=0x3c,umask=0/",
        "cpu"},
      C{"cpu/event=0xc0,umask=0x01,cmask=2,inv,edge/", 4,
        0xc0 | 1 << 8 | uint64_t{2} << 24 | 1 << 23 | 1 << 18, nullptr,
        "cpu/event=0xc0,umask=0x01,cmask=2,inv,edge/", "cpu"},
      C{"cpu/event=255,in_tx=1/", 4, 0xff | uint64_t{1} << 32, nullptr,
        "cpu/event=255,in_tx=1/", "cpu"},
      C{"cpu/cpu-cycles/", 4, 0x3c, nullptr, "cpu/cpu-cycles/", "cpu"},
      C{"cpu/CPU-CYCLES/u", 4, 0x3c, U, "cpu/CPU-CYCLES/:u", "cpu"},
      C{"cpu/cpu-cycles/:k", 4, 0x3c, K, "cpu/cpu-cycles/:k", "cpu"},
      C{"cpu/ref-cycles/", 4, 0x300, nullptr, "cpu/ref-cycles/", "cpu"},
      // The user's terms OR with the alias's (perf): umask 0x3 | 0x5.
      C{"cpu/ref-cycles,umask=0x5/", 4, 0x700, nullptr,
        "cpu/ref-cycles,umask=0x5/", "cpu"},
      C{"cpu/mem-loads/", 4, 0x1cd, [](Attr& a) { a.config1 = 3; },
        "cpu/mem-loads/", "cpu"},
      C{"cpu/mem-loads,ldlat=10/", 4, 0x1cd,
        [](Attr& a) { a.config1 = 3 | 10; }, "cpu/mem-loads,ldlat=10/", "cpu"},
      C{"cpu/config=0x1234,config1=5,config2=7/", 4, 0x1234,
        [](Attr& a) {
          a.config1 = 5;
          a.config2 = 7;
        },
        "cpu/config=0x1234,config1=5,config2=7/", "cpu"},
      C{"cpu/frontend=0x123/", 4, 0, [](Attr& a) { a.config2 = 0x123; },
        "cpu/frontend=0x123/", "cpu"},
      C{"cpu/event=0x3c,name=my_cycles/", 4, 0x3c, nullptr, "my_cycles", "cpu"},
      C{"cpu/event=0x3c,period=1000/", 4, 0x3c,
        [](Attr& a) { a.sample_period = 1000; }, "cpu/event=0x3c,period=1000/",
        "cpu"},
      C{"cpu/event=0x3c,freq=99/", 4, 0x3c,
        [](Attr& a) {
          a.sample_period = 99;
          a.freq = true;
        },
        "cpu/event=0x3c,freq=99/", "cpu"},
      C{"amd_like/event=0x129/", 11, 0x29 | uint64_t{1} << 32, nullptr,
        "amd_like/event=0x129/", "amd_like"},
      C{"amd_like/event=0xfff/", 11, 0xff | uint64_t{0xf} << 32, nullptr,
        "amd_like/event=0xfff/", "amd_like"},
      C{"amd_like/ls_dispatch/", 11, 0x729 | uint64_t{1} << 32, nullptr,
        "amd_like/ls_dispatch/", "amd_like"},
      C{"armv8_pmuv3_0/event=0x11/", 10, 0x11, nullptr,
        "armv8_pmuv3_0/event=0x11/", "armv8_pmuv3_0"},
      C{"armv8_pmuv3_0/event=0x11,long/", 10, 0x11,
        [](Attr& a) { a.config1 = 1; }, "armv8_pmuv3_0/event=0x11,long/",
        "armv8_pmuv3_0"},
      C{"armv8_pmuv3/inst_retired/", 10, 0x8, nullptr,
        "armv8_pmuv3/inst_retired/", "armv8_pmuv3_0"},
      // perf's generic names on a core PMU.
      C{"cpu/cycles/", kHw, PERF_COUNT_HW_CPU_CYCLES, nullptr, "cpu/cycles/",
        "cpu"},
      C{"cpu/cycles,name=c/u", kHw, PERF_COUNT_HW_CPU_CYCLES, U, "c", "cpu"},
      C{"cpu/LLC-load-misses/", kCache,
        CacheConfig(PERF_COUNT_HW_CACHE_LL, kRead, kMiss), nullptr,
        "cpu/LLC-load-misses/", "cpu"},
      C{"cpu_core/branch-misses/", kHw,
        PERF_COUNT_HW_BRANCH_MISSES | uint64_t{8} << 32, nullptr,
        "cpu_core/branch-misses/", "cpu_core"},
      C{"armv8_pmuv3_0/instructions/", kHw, PERF_COUNT_HW_INSTRUCTIONS, nullptr,
        "armv8_pmuv3_0/instructions/", "armv8_pmuv3_0"},
      C{"uncore_fake/chip-reads,chip=3/", 21, 0x1,
        [](Attr& a) { a.config1 = 3; }, "uncore_fake/chip-reads,chip=3/",
        "uncore_fake"},
  };
}

// The tree of GrammarTest.
inline void WriteGrammarTree(FakeTree& tree) {
  tree.AddX86Cpu();
  tree.AddSplitRangePmu();
  tree.AddArmPmu();
  tree.AddUncorePmus();
  tree.AddTracefs();
  tree.Pmu("cpu_core", "type", "8");  // a hybrid core PMU
  tree.Pmu("cpu_core", "format/event", "config:0-7");
  tree.Pmu("cpu_core", "format/thresh", "config3:0-3");
}

struct BadCase {
  std::string text;
  absl::StatusCode code;
  std::vector<std::string> mentions;
};

inline std::vector<BadCase> MalformedCases() {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const auto kNotFound = absl::StatusCode::kNotFound;
  return {
      {"cycles:q",
       kInvalid,
       {"'q'", "offset 7", "valid modifiers", "u (user)"}},
      {"cycles:", kInvalid, {"no modifier", "offset 7"}},
      {"cycles:uu", kInvalid, {"'u' given twice", "offset 8"}},
      {"cycles:pppp", kInvalid, {"three 'p'"}},
      {"cycles:u:k", kNotFound, {"cycles:u"}},
      {"cpu/event=/", kInvalid, {"'event'", "no value", "offset 4"}},
      {"cpu/event=0x100/", kInvalid, {"0x100", "'event'", "8-bit", "0xff"}},
      {"amd_like/event=0x1000/", kInvalid, {"0x1000", "12-bit", "0xfff"}},
      {"cpu/event=0x3c", kInvalid, {"never closed", "offset 3"}},
      {"cpu/bogus=1/", kInvalid, {"'bogus'", "valid terms are", "umask"}},
      {"cpu/evnt=1/", kInvalid, {"'evnt'", "did you mean event"}},
      {"cpu/no-such-alias/", kNotFound, {"'no-such-alias'", "offset 4"}},
      {"cpu/cpu-cycles,instructions/",
       kInvalid,
       {"'instructions'", "at most one"}},
      {"cpu/event=zz/", kInvalid, {"'zz'", "event"}},
      {"cpu/event=0x1ffffffffffffffff/", kInvalid, {"64 bits"}},
      {"cpu/event=99999999999999999999/", kInvalid, {"64 bits"}},
      {"cpu//", kInvalid, {"empty term"}},
      {"cpu/event=1,,umask=1/", kInvalid, {"empty term", "offset 12"}},
      {"cpu/name/", kInvalid, {"'name'", "name=<label>"}},
      {"cpu/event=1/x", kInvalid, {"'x'", "valid modifiers"}},
      {"/event=1/", kInvalid, {"missing PMU name"}},
      {"uncore_fake/chip-reads/", kInvalid, {"chip=", "chip-reads"}},
      {"cpu/cycles,event=1/", kInvalid, {"'event'", "cannot be combined"}},
      {"cpu/cycles,instructions/", kInvalid, {"'instructions'", "at most one"}},
      {"power/cycles/", kNotFound, {"'cycles'", "power"}},
      {"cpu_core/event=1,thresh=1/",
       absl::StatusCode::kUnimplemented,
       {"'thresh'", "config3", "offset 17"}},
      {"nosuchpmu/x/", kNotFound, {"'nosuchpmu'", "cpu"}},
      {"r", kInvalid, {"'r'", "hex digits"}},
      {"rzz", kNotFound, {"'rzz'", "hex digits"}},
      {"r1ffffffffffffffff", kInvalid, {"r1ffffffffffffffff", "64 bits"}},
      {"cyclez", kNotFound, {"'cyclez'", "did you mean cycles"}},
      {"cyclez:u", kNotFound, {"'cyclez'", "did you mean cycles"}},
      {"L1-icache-stores", kInvalid, {"'store'", "L1-icache"}},
      {"iTLB-store-misses", kInvalid, {"iTLB", "load"}},
      {"L1-dcache-load-bogus", kInvalid, {"'bogus'", "result"}},
      {"L1-dcache-", kInvalid, {"ends with '-'"}},
      {"{cycles,instructions", kInvalid, {"unbalanced '{'", "offset 0"}},
      {"cycles}", kInvalid, {"unbalanced '}'", "offset 6"}},
      {"cycles,,instructions", kInvalid, {"empty event", "offset 7"}},
      {"cycles,", kInvalid, {"trailing ','", "offset 6"}},
      {"", kInvalid, {"empty event list"}},
      {"   ", kInvalid, {"empty event list"}},
      {"{}", kInvalid, {"empty event", "offset 1"}},
      {"{{cycles}}", kInvalid, {"'{'", "nested"}},
      {"{cycles}x", kInvalid, {"'x'", "after '}'"}},
      {"{cycles}:q", kInvalid, {"'q'", "offset 9"}},
      {"{cycles:pp}:pp", kInvalid, {"precise_ip would exceed 3", "cycles:pp"}},
      {":u", kInvalid, {"missing event name"}},
      {"mem:", kInvalid, {"breakpoint address", "mem:ADDR"}},
      {"mem:zz", kInvalid, {"'zz'", "breakpoint address"}},
      {"mem:0x1000/3", kInvalid, {"'3'", "1, 2, 4 or 8"}},
      {"mem:0x1000:rr", kInvalid, {"'r' given twice"}},
      {"mem:0x1000:q", kInvalid, {"'q'", "valid modifiers"}},
      {"mem:0x1000:rw:u:k", kInvalid, {"too many ':'"}},
      {"sched:nosuch", kNotFound, {"sched:nosuch"}},
      {"sched:sched_swich", kNotFound, {"did you mean sched:sched_switch"}},
      {"schde:sched_switch", kNotFound, {"'schde'", "did you mean sched"}},
      {"sched:nothing_*", kNotFound, {"no tracepoint matches"}},
      {"sched:", kInvalid, {"missing tracepoint name"}},
  };
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_GRAMMAR_CASES_H_
