// vendor_events_test.cc: vendor event names through libpfm4
// (vendor_events.h and the grammar's last resort). Each CPU model's table is
// chosen with UseVendorTable (LIBPFM_FORCE_PMU), so the encodings of
// Skylake, Ice Lake and Zen 3 are checked on every x86-64 machine, and an
// Arm core's in the emulated arm64 machine (libpfm4's tables are per
// architecture). The expected codes are the vendors' published ones
// (Intel's perfmon event files and SDM, AMD's PPR for family 19h, Arm's
// Cortex-A57 TRM), not libpfm's output. On a hardware PMU:
// vendor_events_hardware_test.cc.
#include "perfcounters/vendor_events.h"

#include <linux/perf_event.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

#if PERFCOUNTERS_TEST_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

namespace perfcounters {
namespace {

using ::testing::HasSubstr;

struct Code {
  const char* name;  // as the vendor writes it (perf's dotted form)
  uint64_t config;
  uint64_t config1 = 0;
};

struct Model {
  const char* table;
  bool x86;  // else arm64
  std::vector<Code> codes;
};

// Intel: config = event | umask << 8 | edge << 18 | inv << 23 | cmask << 24.
const Model kSkylake{
    "skl",
    true,
    {
        {"INST_RETIRED.ANY_P", 0xc0},
        {"MEM_LOAD_RETIRED.L3_MISS", 0x20d1},
        {"BR_MISP_RETIRED.ALL_BRANCHES", 0xc5},
        {"BR_INST_RETIRED.ALL_BRANCHES", 0xc4},
        {"BR_INST_RETIRED.CONDITIONAL", 0x01c4},
        {"CPU_CLK_UNHALTED.THREAD_P", 0x3c},
        {"MEM_LOAD_RETIRED.L1_HIT", 0x01d1},
        {"MEM_LOAD_RETIRED.L1_MISS", 0x08d1},
        {"MEM_LOAD_RETIRED.L2_MISS", 0x10d1},
        {"MEM_INST_RETIRED.ALL_LOADS", 0x81d0},
        {"CYCLE_ACTIVITY.STALLS_TOTAL", 0x040004a3},
        {"CYCLE_ACTIVITY.STALLS_L3_MISS", 0x060006a3},
        {"UOPS_ISSUED.ANY", 0x010e},
        {"UOPS_RETIRED.RETIRE_SLOTS", 0x02c2},
        {"L2_RQSTS.MISS", 0x3f24},
        {"L2_RQSTS.REFERENCES", 0xff24},
        {"LONGEST_LAT_CACHE.MISS", 0x412e},
        {"LONGEST_LAT_CACHE.REFERENCE", 0x4f2e},
        {"DTLB_LOAD_MISSES.WALK_COMPLETED", 0x0e08},
        {"ITLB_MISSES.WALK_COMPLETED", 0x0e85},
        {"MACHINE_CLEARS.COUNT", 0x010401c3},
        {"RESOURCE_STALLS.ANY", 0x01a2},
        {"IDQ_UOPS_NOT_DELIVERED.CORE", 0x019c},
        // OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_MISS_LOCAL_DRAM.ANY_SNOOP:
        // event 0xb7 umask 0x01, MSR_OFFCORE_RSP_0 = 0x3f84000001.
        {"OFFCORE_RESPONSE_0.DMND_DATA_RD:L3_MISS_LOCAL:SNP_ANY", 0x01b7,
         0x3f84000001},
    }};

const Model kIceLake{"icl",
                     true,
                     {
                         {"INST_RETIRED.ANY_P", 0xc0},
                         {"BR_MISP_RETIRED.ALL_BRANCHES", 0xc5},
                         {"BR_INST_RETIRED.ALL_BRANCHES", 0xc4},
                         {"MEM_LOAD_RETIRED.L3_MISS", 0x20d1},
                         {"MEM_INST_RETIRED.ALL_LOADS", 0x81d0},
                         {"CYCLE_ACTIVITY.STALLS_L3_MISS", 0x060006a3},
                         {"TOPDOWN.SLOTS_P", 0x01a4},
                         {"UOPS_RETIRED.SLOTS", 0x02c2},
                         {"LONGEST_LAT_CACHE.MISS", 0x412e},
                         {"DTLB_LOAD_MISSES.WALK_COMPLETED", 0x0e08},
                         {"CPU_CLK_UNHALTED.THREAD_P", 0x3c},
                     }};

// AMD: config = event[7:0] | umask << 8 | event[11:8] << 32.
const Model kZen3{"amd64_fam19h_zen3",
                  true,
                  {
                      {"RETIRED_INSTRUCTIONS", 0xc0},
                      {"CYCLES_NOT_IN_HALT", 0x76},
                      {"RETIRED_OPS", 0xc1},
                      {"RETIRED_BRANCH_INSTRUCTIONS", 0xc2},
                      {"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 0xc3},
                      {"RETIRED_TAKEN_BRANCH_INSTRUCTIONS", 0xc4},
                      {"LS_DISPATCH.LD_DISPATCH", 0x0129},
                  }};

// Arm: the PMUv3 event numbers of the Cortex-A57 TRM (libpfm4's names;
// Arm's architected names in comments where they differ).
const Model kCortexA57{"arm_ac57",
                       false,
                       {
                           {"INST_RETIRED", 0x08},
                           {"CPU_CYCLES", 0x11},
                           {"L1I_CACHE_REFILL", 0x01},
                           {"L1I_TLB_REFILL", 0x02},
                           {"L1D_CACHE_REFILL", 0x03},
                           {"L1D_CACHE_ACCESS", 0x04},  // L1D_CACHE
                           {"L1D_TLB_REFILL", 0x05},
                           {"EXCEPTION_TAKEN", 0x09},   // EXC_TAKEN
                           {"BRANCH_MISPRED", 0x10},    // BR_MIS_PRED
                           {"BRANCH_PRED", 0x12},       // BR_PRED
                           {"DATA_MEM_ACCESS", 0x13},   // MEM_ACCESS
                           {"L2D_CACHE_ACCESS", 0x16},  // L2D_CACHE
                           {"L2D_CACHE_REFILL", 0x17},
                           {"BUS_ACCESS", 0x19},
                           {"INST_SPEC_EXEC", 0x1b},   // INST_SPEC
                           {"L1D_READ_ACCESS", 0x40},  // L1D_CACHE_RD
                       }};

constexpr bool kX86 =
#if defined(__x86_64__)
    true;
#else
    false;
#endif

// Selects `model`'s table for the test and goes back to detection after.
// libpfm4's tables are per architecture: the other architecture's models
// skip, this architecture's must be there.
class VendorModel : public ::testing::TestWithParam<Model> {
 protected:
  void SetUp() override {
    if (!HaveLibpfm()) GTEST_SKIP() << "this build lacks libpfm4";
    if (GetParam().x86 != kX86) {
      GTEST_SKIP() << "libpfm4's tables are per architecture: this build "
                   << "has no " << GetParam().table << " table";
    }
    const absl::Status status = UseVendorTable(GetParam().table);
    ASSERT_TRUE(status.ok()) << status;
  }
  void TearDown() override {
    if (HaveLibpfm()) {
      EXPECT_THAT(UseVendorTable(""), IsOk());
    }
  }
};

std::string Lower(const char* s) { return absl::AsciiStrToLower(s); }

// libpfm's spelling: the first '.' becomes ':' and names are upper case.
std::string LibpfmSpelling(const char* s) {
  std::string out = absl::AsciiStrToUpper(s);
  for (char& c : out) {
    if (c == '.') {
      c = ':';
      break;
    }
  }
  return out;
}

TEST_P(VendorModel, PublishedCodesInEverySpelling) {
  const Model& m = GetParam();
  for (const Code& c : m.codes) {
    for (const std::string& name :
         {std::string(c.name), Lower(c.name), LibpfmSpelling(c.name),
          std::string(m.table) + "::" + LibpfmSpelling(c.name)}) {
      SCOPED_TRACE(name);
      absl::StatusOr<EventSpec> spec = ParseEvent(name);
      ASSERT_TRUE(spec.ok()) << spec.status();
      EXPECT_EQ(spec->attr.type, uint32_t{PERF_TYPE_RAW});
      EXPECT_EQ(spec->attr.config, c.config)
          << std::hex << spec->attr.config << " != " << c.config;
      EXPECT_EQ(spec->attr.config1, c.config1)
          << std::hex << spec->attr.config1;
      EXPECT_EQ(spec->attr.config2, 0u);
      EXPECT_EQ(spec->vendor_table, m.table);
      EXPECT_EQ(spec->label, name);
      EXPECT_EQ(spec->text, name);
      EXPECT_EQ(spec->pmu, "cpu");
      // Counts everything, as a generic event written without modifiers.
      EXPECT_FALSE(spec->attr.exclude_user || spec->attr.exclude_kernel ||
                   spec->attr.exclude_hv || spec->attr.exclude_guest ||
                   spec->attr.exclude_host);
    }
  }
}

TEST_P(VendorModel, PrivilegeLevelsMeanWhatTheyMeanForGenericEvents) {
  const std::string name = LibpfmSpelling(GetParam().codes[0].name);
  ParseOptions user_only;
  user_only.default_user_only = true;
  for (const char* mods : {"", ":u", ":k", ":uk", ":h", ":u=1", ":k=1"}) {
    ParseOptions plain;
    for (const ParseOptions* options : {&plain, &user_only}) {
      SCOPED_TRACE(name + mods);
      absl::StatusOr<EventSpec> vendor = ParseEvent(name + mods, *options);
      std::string generic_mods = mods;
      if (generic_mods.size() == 4) generic_mods.resize(2);  // ":u=1" -> ":u"
      absl::StatusOr<EventSpec> generic =
          ParseEvent("cycles" + generic_mods, *options);
      ASSERT_TRUE(vendor.ok()) << vendor.status();
      ASSERT_TRUE(generic.ok()) << generic.status();
      EXPECT_EQ(vendor->attr.exclude_user, generic->attr.exclude_user);
      EXPECT_EQ(vendor->attr.exclude_kernel, generic->attr.exclude_kernel);
      EXPECT_EQ(vendor->attr.exclude_hv, generic->attr.exclude_hv);
      EXPECT_EQ(vendor->attr.exclude_guest, generic->attr.exclude_guest);
      EXPECT_EQ(vendor->label, name + mods);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, VendorModel,
                         ::testing::Values(kSkylake, kIceLake, kZen3,
                                           kCortexA57),
                         [](const ::testing::TestParamInfo<Model>& info) {
                           std::string name = info.param.table;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) {
                               c = '_';
                             }
                           }
                           return name;
                         });

// Skylake's table for the modifier and error cases.
class Skylake : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveLibpfm()) GTEST_SKIP() << "this build lacks libpfm4";
    if (!kX86) GTEST_SKIP() << "libpfm4 for arm64 has no Skylake table";
    const absl::Status status = UseVendorTable("skl");
    ASSERT_TRUE(status.ok()) << status;
  }
  void TearDown() override {
    if (HaveLibpfm()) {
      EXPECT_THAT(UseVendorTable(""), IsOk());
    }
  }

  static EventSpec Parse(const std::string& text,
                         const ParseOptions& options = {}) {
    absl::StatusOr<EventSpec> spec = ParseEvent(text, options);
    EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
    return spec.ok() ? *spec : EventSpec{};
  }
  static absl::Status Error(const std::string& text) {
    absl::StatusOr<std::vector<GroupSpec>> groups = ParseEventList(text);
    EXPECT_FALSE(groups.ok()) << text << " parsed";
    return groups.status();
  }
};

TEST_F(Skylake, LibpfmModifiersSetTheirBits) {
  // c= is cmask (bits 24-31), i invert (23), e edge (18).
  EXPECT_EQ(Parse("INST_RETIRED:ANY_P:c=1:i").attr.config, 0x018000c0u);
  EXPECT_EQ(Parse("skl::INST_RETIRED:ANY_P:c=1:e").attr.config, 0x010400c0u);
  EXPECT_EQ(Parse("inst_retired.any_p:c=3").attr.config, 0x030000c0u);
  EXPECT_EQ(Parse("INST_RETIRED:ANY_P:precise=2").attr.precise_ip, 2);
  // With a privilege level in between: libpfm's c= and perf's :k.
  const EventSpec k = Parse("inst_retired.any_p:k:c=1");
  EXPECT_EQ(k.attr.config, 0x010000c0u);
  EXPECT_TRUE(k.attr.exclude_user);
  EXPECT_FALSE(k.attr.exclude_kernel);
  EXPECT_EQ(k.label, "inst_retired.any_p:k:c=1");
}

TEST_F(Skylake, PerfModifiersAfterAVendorName) {
  const EventSpec pp = Parse("INST_RETIRED:ANY_P:u:pp");
  EXPECT_EQ(pp.attr.precise_ip, 2);
  EXPECT_TRUE(pp.attr.exclude_kernel);
  EXPECT_TRUE(pp.attr.exclude_guest);  // perf: precise requires it
  EXPECT_TRUE(Parse("MEM_LOAD_RETIRED.L3_MISS:D").attr.pinned);
  EXPECT_EQ(Parse("MEM_LOAD_RETIRED.L3_MISS:upp").attr.precise_ip, 2);
}

TEST_F(Skylake, GroupModifiersApplyAndAppendToTheLabel) {
  absl::StatusOr<std::vector<GroupSpec>> groups =
      ParseEventList("{INST_RETIRED:ANY_P,mem_load_retired.l3_miss:k}:u");
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ(groups->size(), 1u);
  const std::vector<EventSpec>& e = groups->front().events;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].label, "INST_RETIRED:ANY_P:u");
  EXPECT_TRUE(e[0].attr.exclude_kernel);
  EXPECT_EQ(e[1].label, "mem_load_retired.l3_miss:ku");
  EXPECT_FALSE(e[1].attr.exclude_kernel);  // k, then u: both levels
  EXPECT_FALSE(e[1].attr.exclude_user);
}

TEST_F(Skylake, PerfsNamesComeFirst) {
  // Generic names (and gbench's spellings of them) are perf's, never a
  // table's: libpfm's own CYCLES is the same event, but we say so.
  for (const char* name : {"cycles", "CYCLES", "INSTRUCTIONS", "BRANCH-MISSES",
                           "LLC-load-misses", "r00c0"}) {
    SCOPED_TRACE(name);
    const EventSpec spec = Parse(name);
    EXPECT_TRUE(spec.vendor_table.empty()) << spec.vendor_table;
  }
  EXPECT_EQ(Parse("INSTRUCTIONS").attr.type, uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(Parse("BRANCH-MISSES").attr.config,
            uint64_t{PERF_COUNT_HW_BRANCH_MISSES});
  // A raw code and the vendor name are the same attr.
  EXPECT_EQ(Parse("r20d1").attr, Parse("MEM_LOAD_RETIRED.L3_MISS").attr);
}

TEST_F(Skylake, UnknownUmaskNamesTheEventsUmasks) {
  const absl::Status s = Error("INST_RETIRED:BOGUS");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("'BOGUS' is not a umask or modifier of "
                                     "skl::INST_RETIRED"));
  EXPECT_THAT(s.message(), HasSubstr("its umasks: ANY_P, ALL"));
  const absl::Status close = Error("mem_load_retired.l3_mis");
  EXPECT_THAT(close.message(), HasSubstr("did you mean L3_MISS"));
}

TEST_F(Skylake, UnknownEventSuggestsCloseNames) {
  const absl::Status s = Error("INST_RETIRD:ANY_P");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("no vendor event 'INST_RETIRD'"));
  EXPECT_THAT(s.message(), HasSubstr("(skl)"));
  EXPECT_THAT(s.message(), HasSubstr("did you mean INST_RETIRED"));
  const absl::Status dotted = Error("br_misp_retird.all_branches");
  EXPECT_THAT(dotted.message(), HasSubstr("did you mean BR_MISP_RETIRED"));
  // A plain unknown name: perf's hint first, then libpfm's.
  const absl::Status plain = Error("INST_RETIRD");
  EXPECT_THAT(plain.message(), HasSubstr("unknown event 'INST_RETIRD'"));
  EXPECT_THAT(plain.message(), HasSubstr("did you mean INST_RETIRED"));
}

TEST_F(Skylake, OtherErrors) {
  const absl::Status other = Error("icl::INST_RETIRED:ANY_P");
  EXPECT_TRUE(absl::IsNotFound(other)) << other;
  EXPECT_THAT(other.message(), HasSubstr("table 'icl'"));
  EXPECT_THAT(other.message(), HasSubstr("tables in use: skl"));
  const absl::Status u0 = Error("INST_RETIRED:ANY_P:u=0");
  EXPECT_THAT(u0.message(), HasSubstr("name the levels to count instead"));
  const absl::Status mods = Error("INST_RETIRED:ANY_P:upppp");
  EXPECT_TRUE(absl::IsInvalidArgument(mods)) << mods;
  const absl::Status cmask = Error("INST_RETIRED:ANY_P:c=256");
  EXPECT_TRUE(absl::IsInvalidArgument(cmask)) << cmask;
  EXPECT_THAT(cmask.message(), HasSubstr("INST_RETIRED"));
  EXPECT_THAT(cmask.message(), HasSubstr("value is missing or out of range"));
  const absl::Status no_value = Error("INST_RETIRED:ANY_P:c");
  EXPECT_TRUE(absl::IsInvalidArgument(no_value)) << no_value;
  EXPECT_THAT(no_value.message(),
              HasSubstr("value is missing or out of range"));
  // Intel's edge detect counts transitions of the count mask's condition.
  const absl::Status edge = Error("INST_RETIRED:ANY_P:e");
  EXPECT_TRUE(absl::IsInvalidArgument(edge)) << edge;
  EXPECT_THAT(edge.message(), HasSubstr("needs a count mask c=N"));
  const absl::Status no_table = UseVendorTable("no_such_cpu");
  EXPECT_TRUE(absl::IsNotFound(no_table)) << no_table;
  EXPECT_THAT(no_table.message(), HasSubstr("skl, "));
}

TEST_F(Skylake, ListsTheTableWithUmasks) {
  absl::StatusOr<std::vector<std::string>> tables = VendorTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  EXPECT_EQ(*tables, std::vector<std::string>{"skl"});
  absl::StatusOr<std::vector<VendorEventInfo>> events = ListVendorEvents();
  ASSERT_TRUE(events.ok()) << events.status();
  const VendorEventInfo* found = nullptr;
  for (const VendorEventInfo& e : *events) {
    if (e.name == "MEM_LOAD_RETIRED") found = &e;
  }
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->code, 0xd1u);
  EXPECT_FALSE(found->description.empty());
  bool l3_miss = false;
  for (const VendorUmask& u : found->umasks) {
    if (u.name == "L3_MISS") l3_miss = !u.is_modifier && u.code == 0x20;
  }
  EXPECT_TRUE(l3_miss);
}

// libpfm4's state is process-wide and not thread-safe (pfm_initialize,
// pfm_terminate): every call of ours holds one lock. Threads parse a vendor
// name and list the table while another switches between two models'
// tables 200 times (pfm_terminate + pfm_initialize each time): every parse
// gives the code both tables have (INST_RETIRED.ANY_P = 0xc0 in Skylake's
// and Ice Lake's, INST_RETIRED = 0x08 in the Cortex-A57's and A53's),
// every listing is one whole table, and under TSan (scripts/ci-hardening
// tsan) no access to our table state races.
TEST(VendorEventsThreads, ParsesListingsAndTableSwitchesAreSerialized) {
  if (!HaveLibpfm()) GTEST_SKIP() << "this build lacks libpfm4";
  const std::string tables[2] = {kX86 ? "skl" : "arm_ac57",
                                 kX86 ? "icl" : "arm_ac53"};
  const std::string name = kX86 ? "inst_retired.any_p:u" : "inst_retired:u";
  const uint64_t code = kX86 ? 0xc0 : 0x08;
  ASSERT_THAT(UseVendorTable(tables[0]), IsOk());
  std::atomic<bool> stop{false};
  std::atomic<int> parses{0};
  std::atomic<int> listings{0};
  std::vector<std::string> failures[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      do {
        absl::StatusOr<EventSpec> spec = ParseEvent(name);
        if (!spec.ok()) {
          failures[t].push_back(std::string(spec.status().message()));
        } else if (spec->attr.type != PERF_TYPE_RAW ||
                   spec->attr.config != code || !spec->attr.exclude_kernel ||
                   (spec->vendor_table != tables[0] &&
                    spec->vendor_table != tables[1])) {
          failures[t].push_back(spec->vendor_table + " encoded " +
                                std::to_string(spec->attr.config));
        }
        ++parses;
      } while (!stop.load());
    });
  }
  threads.emplace_back([&] {
    do {
      absl::StatusOr<std::vector<VendorEventInfo>> events = ListVendorEvents();
      if (!events.ok() || events->empty()) {
        failures[3].push_back(events.ok()
                                  ? "empty listing"
                                  : std::string(events.status().message()));
      } else {
        for (const VendorEventInfo& e : *events) {
          if (e.table != events->front().table) {
            failures[3].push_back("one listing mixes " + e.table + " and " +
                                  events->front().table);
            break;
          }
        }
      }
      ++listings;
    } while (!stop.load());
  });
  int switches = 0;
  for (int i = 0; i < 200; ++i) {
    const absl::Status status = UseVendorTable(tables[(i + 1) % 2]);
    EXPECT_TRUE(status.ok()) << status;
    switches += status.ok();
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(UseVendorTable(""), IsOk());
  EXPECT_EQ(switches, 200);
  EXPECT_GE(parses.load(), 3);
  EXPECT_GE(listings.load(), 1);
  for (const std::vector<std::string>& f : failures) {
    EXPECT_EQ(f.size(), 0u) << (f.empty() ? "" : f.front());
  }
}

// Built with -DPERFCOUNTERS_WITH_LIBPFM=OFF: names only libpfm4 could
// resolve say so, and perf's names are unaffected.
TEST(WithoutLibpfm, VendorNamesSayThisBuildLacksLibpfm) {
  if (HaveLibpfm()) GTEST_SKIP() << "this build has libpfm4";
  for (const char* name : {"INST_RETIRED:ANY_P", "inst_retired.any_p",
                           "skl::INST_RETIRED", "INST_RETIRED"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<EventSpec> spec = ParseEvent(name);
    ASSERT_FALSE(spec.ok());
    EXPECT_THAT(spec.status().message(), HasSubstr("this build lacks libpfm4"));
  }
  EXPECT_TRUE(absl::IsUnavailable(UseVendorTable("skl")));
  EXPECT_THAT(ParseEvent("cycles:u"), IsOk());
}

#if PERFCOUNTERS_TEST_LIBPFM
// What Google Benchmark's own PerfCounters (built with libpfm) opens for a
// name: pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT).
perf_event_attr GbenchEncoding(const std::string& name) {
  perf_event_attr attr{};
  pfm_perf_encode_arg_t arg{};
  arg.attr = &attr;
  arg.size = sizeof(arg);
  EXPECT_EQ(pfm_initialize(), PFM_SUCCESS);
  const int ret = pfm_get_os_event_encoding(name.c_str(), PFM_PLM3,
                                            PFM_OS_PERF_EVENT, &arg);
  EXPECT_EQ(ret, PFM_SUCCESS) << name << ": " << pfm_strerror(ret);
  return attr;
}

// gbench's spellings mean the same event through our
// --benchmark_perf_counters (default_user_only, as benchmark_ext parses).
TEST_F(Skylake, GbenchSpellingsOpenTheEventGbenchOpens) {
  ParseOptions user_only;
  user_only.default_user_only = true;
  for (const char* name :
       {"INST_RETIRED:ANY_P", "MEM_LOAD_RETIRED:L3_MISS",
        "BR_MISP_RETIRED:ALL_BRANCHES", "skl::CYCLE_ACTIVITY:STALLS_L3_MISS",
        "OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL:SNP_ANY"}) {
    SCOPED_TRACE(name);
    const EventSpec ours = Parse(name, user_only);
    const perf_event_attr theirs = GbenchEncoding(name);
    EXPECT_EQ(ours.attr.type, theirs.type);
    EXPECT_EQ(ours.attr.config, theirs.config);
    EXPECT_EQ(ours.attr.config1, theirs.config1);
    // Both count user space only. (libpfm leaves exclude_hv clear on Intel,
    // which has no hypervisor level to count; we set it as for cycles:u.)
    EXPECT_EQ(ours.attr.exclude_user, bool(theirs.exclude_user));
    EXPECT_EQ(ours.attr.exclude_kernel, bool(theirs.exclude_kernel));
    EXPECT_TRUE(ours.attr.exclude_kernel);
  }
}
#endif

}  // namespace
}  // namespace perfcounters
