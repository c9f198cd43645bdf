// grammar_parity_test.cc: the grammar's parity with perf 6.1 on
// a fake sysfs/tracefs tree: PMU terms OR into their fields, built-in terms
// on generic, cache and software events, duration_time, tracepoint globs,
// perf's S W P b modifiers refused with the reason; and its error messages:
// the input quoted once and shortened, UTF-8 kept whole, control bytes
// escaped, only plausible suggestions. (tools_events_test compares `encode`
// with the real `perf stat -vv`.)
#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/grammar.h"
#include "testdata/fake_sysfs.h"

namespace perfcounters {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The parameter: parse through an EventCatalog (true) or fresh reads.
class GrammarParityTest : public ::testing::TestWithParam<bool> {
 protected:
  GrammarParityTest() {
    tree_.AddX86Cpu();
    tree_.AddUncorePmus();
    tree_.AddTracefs();
    tree_.Tracepoint("sched", "sched_process_exec", "320");
    tree_.Tracepoint("irq", "irq_handler_entry", "40");
    tree_.Pmu("msr", "type", "9");
    tree_.Pmu("msr", "format/event", "config:0-63");
    tree_.Pmu("msr", "events/tsc", "event=0x00");
    options_.paths = tree_.Paths();
    if (GetParam()) options_.catalog = EventCatalog::Create(options_.paths);
  }

  EventSpec Parse(const std::string& text) {
    absl::StatusOr<EventSpec> spec = ParseEvent(text, options_);
    EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
    return spec.ok() ? *spec : EventSpec{};
  }

  std::string Error(const std::string& text) {
    absl::StatusOr<std::vector<GroupSpec>> list =
        ParseEventList(text, options_);
    EXPECT_FALSE(list.ok()) << text;
    return list.ok() ? "" : std::string(list.status().message());
  }

  testing::FakeTree tree_;
  ParseOptions options_;
};

INSTANTIATE_TEST_SUITE_P(FreshAndCatalog, GrammarParityTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Catalog" : "Fresh";
                         });

// perf: config= sets the word first, then every format term ORs its bits
// in, whatever the order (checked against perf 6.1 on the msr PMU).
TEST_P(GrammarParityTest, PmuTermsOrIntoTheirFieldsAsPerfDoes) {
  EXPECT_EQ(Parse("msr/event=0x1,config=0x2/").attr.config, 0x3u);
  EXPECT_EQ(Parse("msr/config=0x2,event=0x1/").attr.config, 0x3u);
  EXPECT_EQ(Parse("msr/event=0x1,event=0x2/").attr.config, 0x3u);
  EXPECT_EQ(Parse("msr/config=0x4,config=0x2/").attr.config, 0x2u);
  EXPECT_EQ(Parse("msr/tsc,event=0x2/").attr.config, 0x2u);
  // An alias's own terms OR with the user's: ldlat=3 | 0x10.
  const EventSpec mem = Parse("cpu/mem-loads,ldlat=0x10/");
  EXPECT_EQ(mem.attr.config, 0x1cdu);
  EXPECT_EQ(mem.attr.config1, 0x13u);
}

TEST_P(GrammarParityTest, GenericCacheAndSoftwareEventsTakeBuiltinTerms) {
  EventSpec e = Parse("cycles/period=1000/");
  EXPECT_EQ(e.attr.type, uint32_t{PERF_TYPE_HARDWARE});
  EXPECT_EQ(e.attr.config, uint64_t{PERF_COUNT_HW_CPU_CYCLES});
  EXPECT_EQ(e.attr.sample_period, 1000u);
  EXPECT_EQ(e.label, "cycles");

  e = Parse("page-faults/name=pf/");
  EXPECT_EQ(e.attr.type, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(e.attr.config, uint64_t{PERF_COUNT_SW_PAGE_FAULTS});
  EXPECT_EQ(e.label, "pf");

  e = Parse("LLC-loads/freq=100/u");
  EXPECT_EQ(e.attr.type, uint32_t{PERF_TYPE_HW_CACHE});
  EXPECT_TRUE(e.attr.freq);
  EXPECT_EQ(e.attr.sample_period, 100u);
  EXPECT_TRUE(e.attr.exclude_kernel);
  EXPECT_EQ(e.label, "LLC-loads:u");

  EXPECT_THAT(Error("page-faults/umask=1/"),
              HasSubstr("unknown term 'umask' for 'page-faults'"));
  // A PMU of that name still wins: cpu/... is the PMU.
  EXPECT_EQ(Parse("cpu/event=0x3c/").attr.type, 4u);
}

TEST_P(GrammarParityTest, DurationTimeIsAToolEventForThoseWhoAskForIt) {
  EXPECT_THAT(Error("duration_time"), HasSubstr("perf's tool event"));
  options_.tool_events = true;
  const EventSpec e = Parse("duration_time");
  EXPECT_EQ(e.pmu, "tool");
  EXPECT_EQ(e.label, "duration_time");
  // perf opens it as the dummy software event.
  EXPECT_EQ(e.attr.type, uint32_t{PERF_TYPE_SOFTWARE});
  EXPECT_EQ(e.attr.config, uint64_t{PERF_COUNT_SW_DUMMY});
}

TEST_P(GrammarParityTest, TracepointGlobsExpandInTracefsOrder) {
  absl::StatusOr<std::vector<GroupSpec>> list =
      ParseEventList("sched:sched_s*,irq:*:u", options_);
  ASSERT_TRUE(list.ok()) << list.status();
  std::vector<std::string> labels;
  for (const GroupSpec& g : *list) {
    EXPECT_FALSE(g.user_group);
    for (const EventSpec& e : g.events) labels.push_back(e.label);
  }
  EXPECT_THAT(labels, ::testing::UnorderedElementsAre(
                          "sched:sched_switch", "irq:irq_handler_entry:u"));
  ASSERT_EQ(list->size(), 2u);
  const EventSpec& irq =
      list->back().events[0].label == "irq:irq_handler_entry:u"
          ? list->back().events[0]
          : list->front().events[0];
  EXPECT_EQ(irq.attr.config, 40u);
  EXPECT_TRUE(irq.attr.exclude_kernel);

  // In braces, every match joins the group.
  list = ParseEventList("{sched:*}", options_);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->front().events.size(), 3u);  // switch, wakeup, exec

  EXPECT_THAT(Error("sched:nothing*"),
              HasSubstr("no tracepoint matches 'sched:nothing*'"));
  EXPECT_THAT(Error("sched:[abc"), HasSubstr("'[' never closed"));
}

TEST_P(GrammarParityTest, PerfModifiersNotSupportedSayWhy) {
  EXPECT_THAT(Error("{cycles,instructions}:S"),
              HasSubstr("modifier 'S' (sample read"));
  EXPECT_THAT(Error("{cycles,instructions}:W"),
              HasSubstr("modifier 'W' (weak group"));
  EXPECT_THAT(Error("cycles:P"),
              HasSubstr("modifier 'P' (the highest precise level"));
  EXPECT_THAT(Error("cycles:P"), HasSubstr("write the level: p, pp or ppp"));
  EXPECT_THAT(Error("cycles:b"), HasSubstr("modifier 'b' (count with BPF"));
}

TEST_P(GrammarParityTest, ALongInputIsQuotedOnceAndShortened) {
  const std::string text = "cycles," + std::string(5000, 'x');
  const std::string error = Error(text);
  EXPECT_LT(error.size(), 600u) << error;
  EXPECT_THAT(error, HasSubstr("unknown event 'xxxxxxxx"));
  EXPECT_THAT(error, HasSubstr("at offset 7 in '"));
  EXPECT_THAT(error, HasSubstr("...'"));
}

TEST_P(GrammarParityTest, ErrorsKeepUtf8WholeAndEscapeControlBytes) {
  std::string error = Error("cycles:\xc3\xbc");  // cycles:ü
  EXPECT_THAT(error, HasSubstr("invalid modifier '\xc3\xbc'")) << error;
  // A lone continuation byte (not UTF-8) is escaped.
  error = Error("cycles:\xbc");
  EXPECT_THAT(error, HasSubstr("invalid modifier '\\xbc'")) << error;
  // A long input shortened around a multi-byte character never cuts it.
  std::string long_text;
  for (int i = 0; i < 200; ++i) long_text += "\xc3\xbc";
  error = Error("task-clock:" + long_text);
  for (size_t i = 0; i + 1 < error.size(); ++i) {
    const auto b = static_cast<unsigned char>(error[i]);
    if (b == 0xc3) {
      EXPECT_EQ(static_cast<unsigned char>(error[i + 1]), 0xbc) << error;
    }
    if (b == 0xbc) {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(static_cast<unsigned char>(error[i - 1]), 0xc3) << error;
    }
  }
  // A control byte is refused by itself, escaped, with its offset.
  error = Error(std::string("task-clock\x01"));
  EXPECT_EQ(error,
            "control byte '\\x01' at offset 10 in 'task-clock\\x01'; event "
            "lists are printable text");
  EXPECT_THAT(error, Not(HasSubstr("did you mean")));
}

TEST_P(GrammarParityTest, OnlyPlausibleNamesAreSuggested) {
  EXPECT_THAT(Error("rG"), Not(HasSubstr("did you mean")));
  EXPECT_THAT(Error("cyclse"), HasSubstr("did you mean cycles"));
  EXPECT_THAT(Error("pagefaults"), HasSubstr("did you mean page-faults"));
  EXPECT_THAT(Error("cs:q"), Not(HasSubstr("did you mean")));
}

}  // namespace
}  // namespace perfcounters
