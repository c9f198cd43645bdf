// grammar_test.cc: the perf event grammar (grammar.h), table-driven: every
// form parses to exactly the expected attr fields, label and PMU; every
// malformed input gives an error that names the bad part; nothing crashes.
// sysfs PMUs and tracepoints come from a fake tree written by the test, read
// afresh on every parse (GrammarTest/Fresh) or through an EventCatalog
// (GrammarTest/Catalog). The tables are support/grammar_cases.h;
// grammar_catalog_test checks that a catalog gives exactly what fresh reads
// give, and the suggestions; grammar_kernel_test opens parsed events.
#include "perfcounters/grammar.h"

#include <linux/perf_event.h>

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/pmu.h"
#include "support/fake_sysfs.h"
#include "support/grammar_cases.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::BadCase;
using ::perfcounters::testing::Case;
using ::perfcounters::testing::Describe;
using ::perfcounters::testing::Expected;
using ::perfcounters::testing::kCache;
using ::perfcounters::testing::kSw;
using ::perfcounters::testing::MalformedCases;
using ::perfcounters::testing::U;
using ::perfcounters::testing::ValidCases;
using ::perfcounters::testing::WriteGrammarTree;
using ::testing::HasSubstr;

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

}  // namespace
}  // namespace perfcounters
