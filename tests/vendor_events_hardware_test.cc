// vendor_events_hardware_test.cc: vendor event names through libpfm4 on a
// hardware PMU, the emulated arm64 machine's (skipped natively): libpfm4's
// names count exactly what the generic names count, and the emulated CPU's
// table is the one libpfm4 detects (tests/arm64: QEMU's -cpu max has no
// MIDR libpfm knows, so the runner also boots a cortex-a57 for this test,
// arm64.vendor_events_hardware_test.a57). The encodings:
// vendor_events_test.cc.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "perfcounters/vendor_events.h"
#include "support/hw.h"
#include "support/loops.h"
#include "support/status_matchers.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::IsOk;

constexpr bool kX86 =
#if defined(__x86_64__)
    true;
#else
    false;
#endif

TEST(VendorEventsHardware, LibpfmNamesCountExactlyWhatGenericNamesCount) {
  PERFCOUNTERS_REQUIRE_HW_PMU();
  if (!HaveLibpfm()) {
    if (testing::HardwareRequired()) FAIL() << "this build lacks libpfm4";
    GTEST_SKIP() << "this build lacks libpfm4";
  }
  absl::StatusOr<std::vector<std::string>> tables = VendorTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  bool forced = false;
  if (tables->empty()) {
    // QEMU's -cpu max: libpfm4 knows no table for its MIDR. Its PMU has
    // the architected events, so the Cortex-A57 table encodes them.
    if (kX86 || !testing::HardwareRequired()) {
      GTEST_SKIP() << "libpfm4 knows no table for this CPU";
    }
    ASSERT_THAT(UseVendorTable("arm_ac57"), IsOk());
    forced = true;
  }
  absl::StatusOr<std::vector<GroupSpec>> groups = ParseEventList(
      kX86 ? "{instructions:u,INST_RETIRED:ANY_P:u,cycles:u,"
             "CPU_CLK_UNHALTED:THREAD_P:u}"
           : "{instructions:u,INST_RETIRED:u,cycles:u,CPU_CYCLES:u}");
  ASSERT_TRUE(groups.ok()) << groups.status();
  GroupOptions options;
  absl::StatusOr<Group> group = Group::Open(groups->front(), options);
  ASSERT_TRUE(group.ok()) << group.status();
  for (uint64_t n : {uint64_t{100000}, uint64_t{1000000}}) {
    absl::StatusOr<GroupReading> r =
        group->CountCall([n] { testing::TwoInstructionLoop(n); });
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->values.size(), 4u);
    ASSERT_GT(r->running, 0u);
    EXPECT_GE(r->values[0].value, 2 * n);
    EXPECT_EQ(r->values[1].value, r->values[0].value) << "instructions";
    EXPECT_EQ(r->values[3].value, r->values[2].value) << "cycles";
  }
  if (forced) {
    EXPECT_THAT(UseVendorTable(""), IsOk());
  }
}

// What libpfm4 sees in the emulated machine: under -cpu max (MIDR
// implementer 0, which no table claims) nothing; under --cpu cortex-a57
// (MIDR 0x411fd070) its Cortex-A57 table.
TEST(VendorEventsHardware, DetectsTheEmulatedCpusTable) {
  if (kX86 || !testing::HardwareRequired()) {
    GTEST_SKIP() << "only in the emulated arm64 machine";
  }
  ASSERT_TRUE(HaveLibpfm()) << "this build lacks libpfm4";
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string part;
  std::string implementer;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("CPU part", 0) == 0) part = line.substr(line.find(':') + 2);
    if (line.rfind("CPU implementer", 0) == 0) {
      implementer = line.substr(line.find(':') + 2);
    }
  }
  absl::StatusOr<std::vector<std::string>> tables = VendorTables();
  ASSERT_TRUE(tables.ok()) << tables.status();
  std::printf("CPU implementer %s part %s: libpfm4 tables [%s]\n",
              implementer.c_str(), part.c_str(),
              absl::StrJoin(*tables, ",").c_str());
  if (part == "0xd07") {
    EXPECT_EQ(*tables, std::vector<std::string>{"arm_ac57"});
  } else {
    EXPECT_EQ(*tables, std::vector<std::string>{}) << "CPU part " << part;
  }
}

}  // namespace
}  // namespace perfcounters
