// fault_hybrid_test.cc: hybrid-CPU sysfs trees (cpu_core + cpu_atom, no
// "cpu" PMU) in a fake sysfs: a generic event resolves per named core PMU
// (the PMU type in config bits 32-63, PERF_PMU_TYPE_SHIFT), a bare generic
// hardware/cache event is a clear error naming the PMUs and what to write,
// and software events and non-hybrid machines are unaffected (hybrid.h).
#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/grammar.h"
#include "perfcounters/hybrid.h"
#include "support/fake_sysfs.h"

namespace perfcounters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FaultHybridTest : public ::testing::Test {
 protected:
  FaultHybridTest() {
    // An Alder Lake-like machine: cpu_core is type 4 (PERF_TYPE_RAW), as
    // the kernel registers it; cpu_atom type 10.
    tree_.Pmu("cpu_core", "type", "4");
    tree_.Pmu("cpu_core", "cpus", "0-7");
    tree_.Pmu("cpu_core", "format/event", "config:0-7");
    tree_.Pmu("cpu_core", "format/umask", "config:8-15");
    tree_.Pmu("cpu_atom", "type", "10");
    tree_.Pmu("cpu_atom", "cpus", "8-15");
    tree_.Pmu("cpu_atom", "format/event", "config:0-7");
    tree_.Pmu("software", "type", "1");
    options_.paths = tree_.Paths();
  }
  testing::FakeTree tree_;
  ParseOptions options_;
};

TEST_F(FaultHybridTest, ListsTheCorePmus) {
  EXPECT_THAT(HybridCorePmus(options_.paths),
              ElementsAre(HybridPmu{"cpu_atom", 10}, HybridPmu{"cpu_core", 4}));
}

TEST_F(FaultHybridTest, GenericEventsResolvePerNamedPmu) {
  struct Case {
    const char* text;
    uint32_t type;
    uint64_t config;
  };
  for (const Case& c : {
           Case{"cpu_core/cycles/", PERF_TYPE_HARDWARE,
                (uint64_t{4} << 32) | PERF_COUNT_HW_CPU_CYCLES},
           Case{"cpu_atom/cycles/", PERF_TYPE_HARDWARE,
                (uint64_t{10} << 32) | PERF_COUNT_HW_CPU_CYCLES},
           Case{"cpu_atom/instructions/u", PERF_TYPE_HARDWARE,
                (uint64_t{10} << 32) | PERF_COUNT_HW_INSTRUCTIONS},
           Case{"cpu_core/LLC-loads/", PERF_TYPE_HW_CACHE,
                (uint64_t{4} << 32) | PERF_COUNT_HW_CACHE_LL |
                    (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                    (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16)},
           Case{"cpu_core/event=0x3c/", 4, 0x3c},
       }) {
    SCOPED_TRACE(c.text);
    absl::StatusOr<EventSpec> spec = ParseEvent(c.text, options_);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->attr.type, c.type);
    EXPECT_EQ(spec->attr.config, c.config);
  }
}

TEST_F(FaultHybridTest, BareGenericEventIsAClearError) {
  for (const std::string text : {"cycles", "instructions:u", "LLC-loads"}) {
    SCOPED_TRACE(text);
    absl::StatusOr<EventSpec> spec = ParseEvent(text, options_);
    ASSERT_FALSE(spec.ok());
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string m(spec.status().message());
    EXPECT_THAT(m, HasSubstr("hybrid CPU with core PMUs cpu_atom, cpu_core"));
    EXPECT_THAT(m, HasSubstr("at offset 0 in '" + text + "'"));
  }
  absl::StatusOr<EventSpec> spec = ParseEvent("instructions:u", options_);
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("write cpu_atom/instructions/u or "
                        "cpu_core/instructions/u"));
  // In a list too, naming the item.
  absl::StatusOr<std::vector<GroupSpec>> list =
      ParseEventList("task-clock,cycles", options_);
  ASSERT_FALSE(list.ok());
  EXPECT_THAT(std::string(list.status().message()), HasSubstr("offset 11"));
  // The suggested events parse.
  absl::StatusOr<std::vector<GroupSpec>> fixed = ParseEventList(
      "cpu_atom/instructions/u,cpu_core/instructions/u", options_);
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  ASSERT_EQ(fixed->size(), 2u);
}

TEST_F(FaultHybridTest, SoftwareAndRawEventsAreUnaffected) {
  absl::StatusOr<EventSpec> spec = ParseEvent("task-clock", options_);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->attr.type, uint32_t{PERF_TYPE_SOFTWARE});
  spec = ParseEvent("page-faults:u", options_);
  EXPECT_TRUE(spec.ok()) << spec.status();
}

TEST(FaultHybridNonHybridTest, OneCorePmuIsNotHybrid) {
  testing::FakeTree tree;
  tree.AddX86Cpu();
  tree.Pmu("cpu_core", "type", "8");  // one cpu_* PMU alone: not hybrid
  ParseOptions options;
  options.paths = tree.Paths();
  EXPECT_EQ(HybridCorePmus(options.paths).size(), 1u);
  absl::StatusOr<EventSpec> spec = ParseEvent("cycles", options);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->attr.config, uint64_t{PERF_COUNT_HW_CPU_CYCLES});
}

}  // namespace
}  // namespace perfcounters
