// grammar_test.cc: the perf event grammar (grammar.h), table-driven: every
// form parses to exactly the expected attr fields, label and PMU; every
// malformed input gives an error that names the bad part; nothing crashes.
// sysfs PMUs and tracepoints come from a fake tree written by the test, read
// afresh on every parse (GrammarTest/Fresh) or through an EventCatalog
// (GrammarTest/Catalog), which must give exactly the same results.
#include "perfcounters/grammar.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/pmu.h"
#include "support/event_helpers.h"
#include "support/fake_sysfs.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/paranoid.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::FreshPages;
using ::testing::HasSubstr;

// Prints the fields an event spec's attr sets, for failure messages.
std::string Describe(const Attr& a) {
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

Attr Expected(const Case& c) {
  Attr a;
  a.type = c.type;
  a.config = c.config;
  if (c.more) c.more(a);
  return a;
}

constexpr uint32_t kHw = PERF_TYPE_HARDWARE;
constexpr uint32_t kSw = PERF_TYPE_SOFTWARE;
constexpr uint32_t kCache = PERF_TYPE_HW_CACHE;
constexpr uint32_t kRaw = PERF_TYPE_RAW;
constexpr uint32_t kBp = PERF_TYPE_BREAKPOINT;
constexpr uint32_t kTp = PERF_TYPE_TRACEPOINT;

void U(Attr& a) {
  a.exclude_kernel = true;
  a.exclude_hv = true;
}
void K(Attr& a) {
  a.exclude_user = true;
  a.exclude_hv = true;
}

uint64_t CacheConfig(uint64_t cache, uint64_t op, uint64_t result) {
  return cache | op << 8 | result << 16;
}

std::vector<Case> ValidCases() {
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
void WriteGrammarTree(testing::FakeTree& tree) {
  tree.AddX86Cpu();
  tree.AddSplitRangePmu();
  tree.AddArmPmu();
  tree.AddUncorePmus();
  tree.AddTracefs();
  tree.Pmu("cpu_core", "type", "8");  // a hybrid core PMU
  tree.Pmu("cpu_core", "format/event", "config:0-7");
  tree.Pmu("cpu_core", "format/thresh", "config3:0-3");
}

// The parameter: parse through an EventCatalog of the tree (true) or with
// fresh reads (false).
class GrammarTest : public ::testing::TestWithParam<bool> {
 protected:
  GrammarTest() {
    WriteGrammarTree(tree_);
    options_.paths = tree_.Paths();
    UsePaths();
  }
  // Call after changing options_.paths: a catalog reads its own paths.
  void UsePaths() {
    if (GetParam()) options_.catalog = EventCatalog::Create(options_.paths);
  }
  testing::FakeTree tree_;
  ParseOptions options_;
};

INSTANTIATE_TEST_SUITE_P(FreshAndCatalog, GrammarTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Catalog" : "Fresh";
                         });

TEST_P(GrammarTest, EveryFormParsesToTheExpectedAttr) {
  for (const Case& c : ValidCases()) {
    SCOPED_TRACE(c.text);
    absl::StatusOr<EventSpec> spec = ParseEvent(c.text, options_);
    ASSERT_TRUE(spec.ok()) << spec.status();
    const Attr want = Expected(c);
    EXPECT_EQ(spec->attr, want)
        << "got  " << Describe(spec->attr) << "\nwant " << Describe(want);
    EXPECT_EQ(spec->label, c.label);
    EXPECT_EQ(spec->pmu, c.pmu);
    EXPECT_EQ(spec->text, c.text);
  }
}

TEST_P(GrammarTest, EveryGenericEventParsesBySymbolAliasAndUpperCase) {
  for (auto table : {HardwareEvents(), SoftwareEvents()}) {
    for (const GenericEvent& e : table) {
      std::vector<std::string> names = {std::string(e.symbol)};
      if (!e.alias.empty()) names.emplace_back(e.alias);
      std::string upper(e.symbol);
      for (char& ch : upper) ch = static_cast<char>(toupper(ch));
      names.push_back(upper);
      for (const std::string& name : names) {
        absl::StatusOr<EventSpec> spec = ParseEvent(name, options_);
        ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
        EXPECT_EQ(spec->attr.type, e.type) << name;
        EXPECT_EQ(spec->attr.config, e.config) << name;
        EXPECT_EQ(spec->label, e.canonical) << name;
      }
    }
  }
}

TEST_P(GrammarTest, EveryListedCacheEventRoundTripsThroughItsName) {
  const std::vector<HwCacheEvent> all = AllHwCacheEvents();
  // perf lists 7 caches: L1-dcache, LLC, dTLB and node with 3 ops, L1-icache
  // with 2, iTLB and branch with 1; each with access and miss.
  EXPECT_EQ(all.size(), size_t{(4 * 3 + 2 + 1 + 1) * 2});
  for (const HwCacheEvent& e : all) {
    const std::string name = e.CanonicalName();
    absl::StatusOr<EventSpec> spec = ParseEvent(name, options_);
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
    EXPECT_EQ(spec->attr.type, kCache) << name;
    EXPECT_EQ(spec->attr.config, uint64_t{e.cache} | uint64_t{e.op} << 8 |
                                     uint64_t{e.result} << 16)
        << name;
    EXPECT_EQ(spec->label, name);
  }
}

TEST_P(GrammarTest, SysfsAliasCarriesScaleAndUnit) {
  absl::StatusOr<EventSpec> spec = ParseEvent("power/energy-pkg/", options_);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->attr.type, 20u);
  EXPECT_EQ(spec->attr.config, 2u);
  EXPECT_DOUBLE_EQ(spec->scale, 2.3283064365386962890625e-10);
  EXPECT_EQ(spec->unit, "Joules");
  absl::StatusOr<EventSpec> plain = ParseEvent("power/event=2/", options_);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->scale, 1.0);
  EXPECT_EQ(plain->unit, "");
}

TEST_P(GrammarTest, ListsAndGroups) {
  absl::StatusOr<std::vector<GroupSpec>> list = ParseEventList(
      " cycles , {instructions,branches},cs,"
      "{cpu/event=0x3c,umask=0/,cpu/event=0xc0/}",
      options_);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 4u);
  EXPECT_FALSE((*list)[0].user_group);
  ASSERT_EQ((*list)[0].events.size(), 1u);
  EXPECT_EQ((*list)[0].events[0].label, "cycles");
  EXPECT_TRUE((*list)[1].user_group);
  ASSERT_EQ((*list)[1].events.size(), 2u);
  EXPECT_EQ((*list)[1].events[0].attr.config, PERF_COUNT_HW_INSTRUCTIONS);
  EXPECT_EQ((*list)[1].events[1].attr.config,
            PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
  EXPECT_FALSE((*list)[2].user_group);
  EXPECT_EQ((*list)[2].events[0].attr.type, kSw);
  ASSERT_EQ((*list)[3].events.size(), 2u);
  EXPECT_EQ((*list)[3].events[0].attr.config, 0x3cu);
  EXPECT_EQ((*list)[3].events[1].attr.config, 0xc0u);
  EXPECT_EQ((*list)[3].events[0].attr.type, 4u);
}

TEST_P(GrammarTest, GroupModifiersApplyToEachMemberWithPerfSemantics) {
  absl::StatusOr<std::vector<GroupSpec>> list =
      ParseEventList("{cycles:k,instructions}:u", options_);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  const GroupSpec& group = (*list)[0];
  EXPECT_TRUE(group.user_group);
  EXPECT_EQ(group.modifiers, "u");
  ASSERT_EQ(group.events.size(), 2u);
  // cycles:k then u: perf keeps the exclusion state and clears
  // exclude_user, so cycles counts user and kernel but not hv.
  Attr cycles;
  cycles.exclude_hv = true;
  EXPECT_EQ(group.events[0].attr, cycles) << Describe(group.events[0].attr);
  EXPECT_EQ(group.events[0].label, "cycles:ku");
  Attr instructions;
  instructions.config = PERF_COUNT_HW_INSTRUCTIONS;
  U(instructions);
  EXPECT_EQ(group.events[1].attr, instructions)
      << Describe(group.events[1].attr);
  EXPECT_EQ(group.events[1].label, "instructions:u");
}

TEST_P(GrammarTest, DefaultUserOnlyAppliesToCpuEventsWithoutUkh) {
  options_.default_user_only = true;
  struct Want {
    std::string text;
    bool exclude_user, exclude_kernel, exclude_hv;
  };
  const Want wants[] = {
      {"cycles", false, true, true},
      {"cycles:k", true, false, true},
      {"cycles:p", false, true, true},
      {"L1-dcache-load-misses", false, true, true},
      {"r1c2", false, true, true},
      {"cpu/event=0x3c/", false, true, true},
      {"armv8_pmuv3_0/event=0x11/", false, true, true},
      // Faults and clocks count user-mode work with exclude_kernel.
      {"page-faults", false, true, true},
      {"major-faults", false, true, true},
      {"task-clock", false, true, true},
      {"cpu-clock", false, true, true},
      {"page-faults:uk", false, false, true},
      // Other software, tracepoint, breakpoint and uncore events would
      // count nothing (or be refused) with exclude_kernel: left alone.
      {"cs", false, false, false},
      {"cpu-migrations", false, false, false},
      {"sched:sched_switch", false, false, false},
      {"mem:0x1000", false, false, false},
      {"power/energy-pkg/", false, false, false},
  };
  for (const Want& w : wants) {
    absl::StatusOr<EventSpec> spec = ParseEvent(w.text, options_);
    ASSERT_TRUE(spec.ok()) << w.text << ": " << spec.status();
    EXPECT_EQ(spec->attr.exclude_user, w.exclude_user) << w.text;
    EXPECT_EQ(spec->attr.exclude_kernel, w.exclude_kernel) << w.text;
    EXPECT_EQ(spec->attr.exclude_hv, w.exclude_hv) << w.text;
  }
  absl::StatusOr<std::vector<GroupSpec>> list =
      ParseEventList("{cycles,instructions}:k", options_);
  ASSERT_TRUE(list.ok()) << list.status();
  for (const EventSpec& e : (*list)[0].events) {
    EXPECT_TRUE(e.attr.exclude_user) << e.label;
    EXPECT_FALSE(e.attr.exclude_kernel) << e.label;
  }
}

struct BadCase {
  std::string text;
  absl::StatusCode code;
  std::vector<std::string> mentions;
};

std::vector<BadCase> MalformedCases() {
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

TEST_P(GrammarTest, MalformedInputNamesTheBadPart) {
  for (const BadCase& c : MalformedCases()) {
    absl::StatusOr<std::vector<GroupSpec>> result =
        ParseEventList(c.text, options_);
    ASSERT_FALSE(result.ok()) << "'" << c.text << "' parsed";
    EXPECT_EQ(result.status().code(), c.code)
        << c.text << ": " << result.status();
    for (const std::string& part : c.mentions) {
      EXPECT_THAT(std::string(result.status().message()), HasSubstr(part))
          << "input: '" << c.text << "'";
    }
  }
}

TEST_P(GrammarTest, ParseEventRejectsListsAndGroups) {
  for (const char* text : {"cycles,instructions", "{cycles}"}) {
    absl::StatusOr<EventSpec> spec = ParseEvent(text, options_);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_THAT(std::string(spec.status().message()),
                HasSubstr("single event"));
  }
}

TEST_P(GrammarTest, TracepointWithoutTracefsSaysHowToMountIt) {
  options_.paths.tracefs = {tree_.root() + "/nothing_here"};
  UsePaths();
  absl::StatusOr<EventSpec> spec = ParseEvent("sched:sched_switch", options_);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("mount -t tracefs nodev /sys/kernel/tracing"));
}

TEST_P(GrammarTest, SuggestsCloseNames) {
  EXPECT_EQ(SuggestEventNames("cyclse", options_).at(0), "cycles");
  EXPECT_EQ(SuggestEventNames("instructons", options_).at(0), "instructions");
  EXPECT_EQ(SuggestEventNames("L1-dcache-load-mises", options_).at(0),
            "L1-dcache-load-misses");
  EXPECT_EQ(SuggestEventNames("cpu/cpu-cycle/", options_).at(0),
            "cpu/cpu-cycles/");
  EXPECT_TRUE(SuggestEventNames("qqqqqqqqqqqq", options_).empty());
  EXPECT_LE(SuggestEventNames("c", options_, 2).size(), 2u);
}

// Every prefix and a few mutations of valid inputs either parse or fail
// with a message; nothing crashes or hangs.
TEST_P(GrammarTest, NeverCrashesOnPrefixesAndMutations) {
  std::vector<std::string> seeds;
  for (const Case& c : ValidCases()) seeds.push_back(c.text);
  seeds.push_back("{cycles:k,instructions}:u,cs,{cpu/event=1,umask=2/,r1}");
  int parsed = 0;
  int failed = 0;
  const std::string noise = ",{}/:=x0-";
  for (const std::string& seed : seeds) {
    for (size_t n = 0; n <= seed.size(); ++n) {
      for (int m = -1; m < static_cast<int>(noise.size()); ++m) {
        std::string text = seed.substr(0, n);
        if (m >= 0) text += noise[m];
        absl::StatusOr<std::vector<GroupSpec>> r =
            ParseEventList(text, options_);
        if (r.ok()) {
          ++parsed;
          for (const GroupSpec& g : *r) ASSERT_FALSE(g.events.empty()) << text;
        } else {
          ++failed;
          EXPECT_FALSE(r.status().message().empty()) << text;
        }
      }
    }
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(failed, 100);
}

// Regression (grammar_fuzzer): a NUL byte in a name cut the sysfs or tracefs
// path short, so "sched\0:sched_switch" read the directory events/sched as
// an id file and "cpu\0" loaded the PMU cpu. A NUL (like every control
// byte) is now refused before any name is looked up, escaped in the message.
TEST_P(GrammarTest, NulBytesInNamesNameNoFile) {
  using namespace std::string_literals;
  const std::pair<std::string, std::string> cases[] = {
      {"sched\0:sched_switch"s,
       "control byte '\\x00' at offset 5 in 'sched\\x00:sched_switch'"},
      {"\0cycles:G"s, "control byte '\\x00' at offset 0"},
      {"cpu\0/event=1/"s, "control byte '\\x00' at offset 3"},
  };
  for (const auto& [text, says] : cases) {
    absl::StatusOr<EventSpec> spec = ParseEvent(text, options_);
    ASSERT_FALSE(spec.ok());
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument)
        << spec.status();
    EXPECT_THAT(std::string(spec.status().message()), HasSubstr(says));
  }
}

// Every input of the tests above, and their prefixes and mutations, parse to
// exactly the same EventSpecs (or the same error code and message) through
// one catalog as with fresh reads, and get the same suggestions.
TEST(GrammarCatalogTest, CatalogGivesExactlyWhatFreshReadsGive) {
  testing::FakeTree tree;
  WriteGrammarTree(tree);
  // Broken PMUs and tracepoints: their errors must be the same too.
  tree.Pmu("odd", "type", "30");
  tree.Pmu("odd", "format/event", "config:9-3");
  tree.Pmu("odd_alias", "type", "31");
  tree.Pmu("odd_alias", "events/a", "event=");
  tree.Pmu("no_type", "format/event", "config:0-7");
  tree.Tracepoint("broken", "bad_id", "x12");
  tree.Write("tracing/events/broken/not_a_dir", "1");
  ParseOptions fresh;
  fresh.paths = tree.Paths();
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(tree.Paths());

  std::vector<std::string> texts;
  for (const Case& c : ValidCases()) texts.push_back(c.text);
  for (const BadCase& c : MalformedCases()) texts.push_back(c.text);
  for (const char* extra :
       {"odd/event=1/", "odd_alias/a/", "no_type/event=1/", "broken:bad_id",
        "broken:not_a_dir", "broken:nosuch", "nosuchcategory:x",
        "cpu/cpu-cycle/", "power/energy-pk/", "{cycles,odd/event=1/}:u"}) {
    texts.push_back(extra);
  }
  const size_t whole = texts.size();
  const std::string noise = ",{}/:=x0-";
  for (size_t i = 0; i < whole; ++i) {
    const std::string seed = texts[i];
    for (size_t n = 0; n < seed.size(); ++n) {
      texts.push_back(seed.substr(0, n));
      texts.push_back(seed.substr(0, n) + noise[n % noise.size()]);
    }
  }
  for (const std::string& text : texts) {
    for (bool user_only : {false, true}) {
      fresh.default_user_only = cached.default_user_only = user_only;
      const absl::StatusOr<EventSpec> want_one = ParseEvent(text, fresh);
      const absl::StatusOr<EventSpec> got_one = ParseEvent(text, cached);
      EXPECT_EQ(got_one.status(), want_one.status()) << text;
      if (want_one.ok() && got_one.ok()) {
        EXPECT_EQ(*got_one, *want_one) << text;
      }
      const absl::StatusOr<std::vector<GroupSpec>> want_list =
          ParseEventList(text, fresh);
      const absl::StatusOr<std::vector<GroupSpec>> got_list =
          ParseEventList(text, cached);
      EXPECT_EQ(got_list.status(), want_list.status()) << text;
      if (want_list.ok() && got_list.ok()) {
        EXPECT_EQ(*got_list, *want_list) << text;
      }
    }
    EXPECT_EQ(SuggestEventNames(text, cached), SuggestEventNames(text, fresh))
        << text;
  }
}

// The suggestions skip candidates by cheap lower bounds of the edit distance;
// they must be exactly those of the plain definition (grammar.h): nearest
// first, ties in table order, within max(2, |word| / 3) edits or starting
// with a word of 3+ characters, no duplicates.
size_t PlainEditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = tolower(static_cast<unsigned char>(a[i - 1])) ==
                        tolower(static_cast<unsigned char>(b[j - 1]));
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1)});
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> PlainSuggestions(const std::string& word,
                                          const std::vector<std::string>& all,
                                          size_t max) {
  const size_t limit = std::max<size_t>(1, (word.size() + 1) / 3);
  std::vector<std::pair<size_t, size_t>> scored;  // distance, index
  for (size_t i = 0; i < all.size(); ++i) {
    std::string lower_word = word;
    std::string lower_name = all[i].substr(0, word.size());
    for (char& c : lower_word) c = static_cast<char>(tolower(c));
    for (char& c : lower_name) c = static_cast<char>(tolower(c));
    const bool prefix = word.size() >= 3 && lower_name == lower_word;
    size_t d = PlainEditDistance(word, all[i]);
    if (d > limit && !prefix) continue;
    if (prefix) d = std::min(d, limit);
    scored.push_back({d, i});
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, i] : scored) {
    if (out.size() >= max) break;
    if (std::find(out.begin(), out.end(), all[i]) == out.end()) {
      out.push_back(all[i]);
    }
  }
  return out;
}

TEST(SuggestionsTest, MatchThePlainEditDistanceDefinition) {
  std::vector<std::string> all;
  for (auto table : {HardwareEvents(), SoftwareEvents()}) {
    for (const GenericEvent& e : table) {
      all.emplace_back(e.symbol);
      if (!e.alias.empty()) all.emplace_back(e.alias);
    }
  }
  for (const HwCacheEvent& e : AllHwCacheEvents()) {
    all.push_back(e.CanonicalName());
  }
  std::vector<std::string> words = {"", "c", "cs", "CYC", "xyzzy"};
  for (const std::string& name : all) {
    words.push_back(name);
    for (size_t i = 0; i < name.size(); ++i) {
      words.push_back(name.substr(0, i));
      words.push_back(name.substr(0, i) + name.substr(i + 1));
      std::string changed = name;
      changed[i] = changed[i] == 'x' ? 'y' : 'x';
      words.push_back(changed);
      words.push_back(name.substr(0, i) + "QQ" + name.substr(i));
    }
  }
  std::mt19937 random(1);
  const std::string letters = "abcdeilmnorstuyBCDLT-";
  for (int n = 0; n < 1000; ++n) {
    std::string word(1 + random() % 40, ' ');
    for (char& c : word) c = letters[random() % letters.size()];
    words.push_back(word);
  }
  // Every word natively, in every build type. In the emulated arm64 machine
  // (QEMU, instruction by instruction: 80-100 s for this binary when
  // optimized; a Debug build ran past the runner's 270 s) every 5th word:
  // the same kinds of words (names, prefixes, one letter deleted, changed
  // or doubled, random) in a fifth of the time.
  const size_t stride = perfcounters::testing::ExactUserInstructions() ? 5 : 1;
  for (size_t w = 0; w < words.size(); w += stride) {
    const std::string& word = words[w];
    const std::vector<std::string> plain = PlainSuggestions(word, all, 1000);
    for (size_t max : {size_t{1}, size_t{3}, size_t{1000}}) {
      const std::vector<std::string> want(
          plain.begin(), plain.begin() + std::min(max, plain.size()));
      EXPECT_EQ(SuggestEventNames(word, {}, max), want)
          << "'" << word << "' max " << max;
    }
  }
}

// --- Parsed events open on the real kernel and count what they say.

absl::StatusOr<Event> OpenForCounting(EventSpec spec) {
  spec.attr.disabled = true;
  spec.attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return Event::Open(spec);
}

uint64_t g_watched = 0;

TEST(GrammarOnRealKernelTest, ParsedWriteBreakpointCountsEveryWrite) {
  char text[64];
  snprintf(text, sizeof(text), "mem:%p/8:w", static_cast<void*>(&g_watched));
  absl::StatusOr<EventSpec> spec = ParseEvent(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->attr.config1, reinterpret_cast<uintptr_t>(&g_watched));
  PERFCOUNTERS_REQUIRE_BREAKPOINTS();
  absl::StatusOr<Event> event = OpenForCounting(*spec);
  ASSERT_TRUE(event.ok()) << event.status();
  constexpr int kWrites = 1000;
  absl::StatusOr<Count> count = event->Measure([] {
    for (int i = 0; i < kWrites; ++i) {
      *static_cast<volatile uint64_t*>(&g_watched) = i;
    }
  });
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->value, uint64_t{kWrites});
}

TEST(GrammarOnRealKernelTest, ParsedSoftwareEventsOpenAndCount) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<std::vector<GroupSpec>> list =
      ParseEventList("task-clock,faults:u,cs");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 3u);
  absl::StatusOr<Event> clock = OpenForCounting((*list)[0].events[0]);
  ASSERT_TRUE(clock.ok()) << clock.status();
  absl::StatusOr<Event> faults = OpenForCounting((*list)[1].events[0]);
  ASSERT_TRUE(faults.ok()) << faults.status();
  constexpr size_t kPages = 64;
  absl::StatusOr<Count> fault_count = faults->Measure([&] {
    // Fresh pages from mmap: a heap block of this size may be carved from
    // pages that earlier tests already touched (glibc raises its mmap
    // threshold after large frees), which fault no more; transparent huge
    // pages off, or one fault may map them all.
    FreshPages memory(kPages);
    if (memory.ok()) memory.Touch();
  });
  ASSERT_TRUE(fault_count.ok()) << fault_count.status();
  EXPECT_GE(fault_count->value, kPages);
  absl::StatusOr<Count> clock_count = clock->Measure([] {
    volatile uint64_t x = 0;
    for (int i = 0; i < 1000000; ++i) x = x + i;
  });
  ASSERT_TRUE(clock_count.ok()) << clock_count.status();
  EXPECT_GT(clock_count->value, 0u);
}

// Instructions counted by every grammar form that names them: the generic
// event, a raw event, a sysfs format term, a sysfs alias and the generic
// name on the core PMU. A wrong bit placement counts something else (or
// nothing). In the emulated arm64 machine instructions:u is exact.
TEST(GrammarOnRealKernelTest, EveryFormOfInstructionsCountsTheSameLoop) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  absl::StatusOr<std::vector<std::string>> pmus = ListPmus();
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  std::string core;
  for (const std::string& name : *pmus) {
    if (name == "cpu" || name.rfind("armv8_pmuv3", 0) == 0) core = name;
  }
  if (core.empty()) GTEST_SKIP() << "no cpu or armv8_pmuv3 PMU in sysfs";
#if defined(__aarch64__)
  // Armv8 INST_RETIRED is event 0x08.
  const std::vector<std::string> forms = {
      "instructions:u", "r08:u", core + "/event=0x08/u",
      core + "/inst_retired/u", core + "/instructions/u"};
#elif defined(__x86_64__)
  // INST_RETIRED.ANY_P is event 0xc0 (Intel and AMD).
  const std::vector<std::string> forms = {"instructions:u", "r00c0:u",
                                          core + "/event=0xc0/u",
                                          core + "/instructions/u"};
#else
  GTEST_SKIP() << "no known raw encoding for instructions here";
#endif
  constexpr uint64_t kLoops = 100000;
  for (const std::string& form : forms) {
    absl::StatusOr<EventSpec> spec = ParseEvent(form);
    ASSERT_TRUE(spec.ok()) << form << ": " << spec.status();
    absl::StatusOr<Event> event = OpenForCounting(*spec);
    ASSERT_TRUE(event.ok()) << form << ": " << event.status();
    absl::StatusOr<Count> once =
        event->Measure([] { testing::TwoInstructionLoop(kLoops); });
    absl::StatusOr<Count> twice =
        event->Measure([] { testing::TwoInstructionLoop(2 * kLoops); });
    ASSERT_TRUE(once.ok() && twice.ok()) << form;
    ASSERT_GT(once->running, 0u) << form << " was not counted";
    ASSERT_GT(twice->running, 0u) << form << " was not counted";
    // The extra kLoops iterations retire exactly 2 * kLoops instructions.
    const double extra = static_cast<double>(twice->value) - once->value;
    if (testing::HardwareRequired()) {
      EXPECT_EQ(extra, 2.0 * kLoops) << form;  // exact under emulation
    } else {
      EXPECT_NEAR(extra, 2.0 * kLoops, 2.0 * kLoops / 1000) << form;
    }
    std::printf("%s: %.0f extra instructions for %llu extra iterations\n",
                form.c_str(), extra, static_cast<unsigned long long>(kLoops));
  }
}

}  // namespace
}  // namespace perfcounters
