// metrics_test.cc: the derived-metric table, metrics asked for by name
// (with modifiers) bringing in their inputs, metrics found among planned
// events with the same modifiers, and the top-down group on a fake sysfs.
#include "perfcounters/metrics.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/counters.h"
#include "perfcounters/grammar.h"
#include "perfcounters/plan.h"
#include "support/fake_sysfs.h"

namespace perfcounters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Counters' parse options: plain names count user space only.
ParseOptions UserOnly() { return CountersOptions().parse; }

std::vector<std::string> Labels(const Request& r) {
  std::vector<std::string> labels;
  for (const GroupSpec& g : r.groups) {
    for (const EventSpec& e : g.events) labels.push_back(e.label);
  }
  return labels;
}

// Every event opens: planning then only groups and keys.
Plan PlanAll(const std::string& list, const ParseOptions& options) {
  absl::StatusOr<Request> r = ParseRequest(list, options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return Plan();
  return MakePlan(
      *r, [](const std::vector<EventSpec>&) { return absl::OkStatus(); });
}

std::vector<std::string> Derived(const Plan& plan) {
  std::vector<std::string> out;
  for (const DerivedMetric& d : plan.derived) {
    out.push_back(d.name + "=" + d.numerator + "/" + d.denominator);
  }
  return out;
}

TEST(Metrics, TheTableHasTheIssuesMetricsWithFormulaAndUnit) {
  std::vector<std::string> rows;
  for (const Metric& m : Metrics()) {
    EXPECT_FALSE(m.unit.empty()) << m.name;
    rows.push_back(std::string(m.name) + " = " + MetricFormula(m));
  }
  EXPECT_THAT(rows,
              ::testing::IsSupersetOf({
                  "ipc = instructions / cycles",
                  "cpi = cycles / instructions",
                  "branch-miss-rate = branch-misses / branches",
                  "cache-miss-rate = cache-misses / cache-references",
                  "L1-dcache-load-miss-rate = L1-dcache-load-misses / "
                  "L1-dcache-loads",
                  "frontend-stall-ratio = stalled-cycles-frontend / cycles",
                  "backend-stall-ratio = stalled-cycles-backend / cycles",
                  "retiring = topdown-retiring / slots",
                  "backend-bound = topdown-be-bound / slots",
              }));
  ASSERT_NE(FindMetric("IPC"), nullptr);
  EXPECT_EQ(FindMetric("IPC")->name, "ipc");
  EXPECT_EQ(FindMetric("instructions"), nullptr);
  EXPECT_TRUE(IsMetricGroup("topdown"));
  EXPECT_FALSE(IsMetricGroup("ipc"));
}

TEST(Metrics, EveryNonSysfsInputIsAnEventOurGrammarKnows) {
  for (const Metric& m : Metrics()) {
    if (m.sysfs_inputs) continue;
    for (std::string_view input : {m.numerator, m.denominator}) {
      EXPECT_TRUE(ParseEvent(input).ok()) << m.name << ": " << input;
    }
  }
}

TEST(SplitLabel, SeparatesModifiersOnly) {
  EXPECT_EQ(SplitLabel("instructions:u").event, "instructions");
  EXPECT_EQ(SplitLabel("instructions:u").modifiers, "u");
  EXPECT_EQ(SplitLabel("cycles").modifiers, "");
  EXPECT_EQ(SplitLabel("cpu/slots/:uk").event, "cpu/slots/");
  EXPECT_EQ(SplitLabel("cpu/slots/:uk").modifiers, "uk");
  EXPECT_EQ(SplitLabel("sched:sched_switch").event, "sched:sched_switch");
  EXPECT_EQ(SplitLabel("sched:sched_switch").modifiers, "");
  EXPECT_EQ(SplitLabel("instructions#2").event, "instructions#2");
}

TEST(MetricRequest, AMetricWithModifiersBringsInItsInputsWithThem) {
  absl::StatusOr<Request> r = ParseRequest("ipc:u,cpi:k", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Labels(*r), ElementsAre("instructions:u", "cycles:u", "cycles:k",
                                      "instructions:k"));
  ASSERT_EQ(r->groups.size(), 2u);
  EXPECT_TRUE(r->groups[0].user_group);
  ASSERT_EQ(r->derived.size(), 2u);
  EXPECT_EQ(r->derived[0].name, "ipc:u");
  EXPECT_EQ(r->derived[1].name, "cpi:k");
  // :k means kernel only, exactly as on the event itself.
  EXPECT_TRUE(r->groups[1].events[0].attr.exclude_user);
}

TEST(MetricRequest, StallRatiosShareTheirCyclesInput) {
  absl::StatusOr<Request> r =
      ParseRequest("frontend-stall-ratio,backend-stall-ratio", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Labels(*r), ElementsAre("stalled-cycles-frontend", "cycles",
                                      "stalled-cycles-backend"));
}

TEST(MetricRequest, AMetricWithBadModifiersIsAnEventError) {
  absl::StatusOr<Request> r = ParseRequest("ipc:q", UserOnly());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("ipc:q"));
}

TEST(MetricPlan, InputsMatchWithTheSameModifiers) {
  Plan plan = PlanAll("instructions:u,cycles:u,instructions,cycles:k,cycles",
                      UserOnly());
  EXPECT_THAT(
      Derived(plan),
      ElementsAre("ipc:u=instructions:u/cycles:u", "ipc=instructions/cycles",
                  "cpi:u=cycles:u/instructions:u", "cpi=cycles/instructions"));
}

TEST(MetricPlan, RepeatedLabelsTakeNoPart) {
  Plan plan = PlanAll("instructions,instructions,cycles", UserOnly());
  EXPECT_THAT(Derived(plan), ElementsAre("ipc=instructions/cycles",
                                         "cpi=cycles/instructions"));
}

// An Ice Lake-like core PMU with the top-down events in sysfs.
void AddTopdown(testing::FakeTree& tree, const std::string& pmu) {
  tree.Pmu(pmu, "events/slots", "event=0x00,umask=0x4");
  tree.Pmu(pmu, "events/topdown-retiring", "event=0x00,umask=0x80");
  tree.Pmu(pmu, "events/topdown-bad-spec", "event=0x00,umask=0x81");
  tree.Pmu(pmu, "events/topdown-fe-bound", "event=0x00,umask=0x82");
  tree.Pmu(pmu, "events/topdown-be-bound", "event=0x00,umask=0x83");
}

// The metrics found among counted labels (what the tools derive from a
// file's counters): names as the grammar resolves them, same modifiers,
// sysfs inputs on one PMU, each metric once.
std::vector<std::string> Matched(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const DerivedMetric& d : MatchMetrics(labels)) {
    out.push_back(d.name + "=" + d.numerator + "/" + d.denominator);
  }
  return out;
}

TEST(MatchMetrics, NamesMatchAsTheGrammarResolvesThem) {
  EXPECT_THAT(
      Matched({"INSTRUCTIONS", "CYCLES"}),
      ElementsAre("ipc=INSTRUCTIONS/CYCLES", "cpi=CYCLES/INSTRUCTIONS"));
  EXPECT_THAT(
      Matched({"cpu-cycles", "instructions", "branch-instructions",
               "branch-misses"}),
      ElementsAre("ipc=instructions/cpu-cycles", "cpi=cpu-cycles/instructions",
                  "branch-miss-rate=branch-misses/branch-instructions"));
  EXPECT_THAT(Matched({"l1d-loads", "L1-dcache-load-misses"}),
              ElementsAre("L1-dcache-load-miss-rate=L1-dcache-load-misses/"
                          "l1d-loads"));
  // Modifiers must agree; the first of two spellings wins.
  EXPECT_THAT(Matched({"instructions:u", "cycles", "cycles:u", "cpu-cycles:u"}),
              ElementsAre("ipc:u=instructions:u/cycles:u",
                          "cpi:u=cycles:u/instructions:u"));
  EXPECT_THAT(Matched({"instructions", "cycles:k", "cycles#2"}), ElementsAre());
  // Sysfs inputs on one PMU.
  EXPECT_THAT(Matched({"cpu/slots/", "cpu/topdown-retiring/",
                       "cpu_core/topdown-fe-bound/"}),
              ElementsAre("retiring=cpu/topdown-retiring//cpu/slots/"));
}

TEST(Topdown, TheGroupBringsInSlotsAndItsEventsAsOneGroupLedBySlots) {
  testing::FakeTree tree;
  tree.AddX86Cpu();
  AddTopdown(tree, "cpu");
  ParseOptions options = UserOnly();
  options.paths = tree.Paths();
  ASSERT_EQ(*TopdownPmu(tree.Paths()), "cpu");
  absl::StatusOr<Request> r = ParseRequest("topdown", options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_TRUE(r->groups[0].user_group);
  EXPECT_THAT(Labels(*r),
              ElementsAre("cpu/slots/", "cpu/topdown-retiring/",
                          "cpu/topdown-bad-spec/", "cpu/topdown-fe-bound/",
                          "cpu/topdown-be-bound/"));
  const Attr& retiring = r->groups[0].events[1].attr;
  EXPECT_EQ(retiring.type, 4u);
  EXPECT_EQ(retiring.config, 0x8000u);
  Plan plan = PlanAll("topdown", options);
  EXPECT_THAT(Derived(plan),
              ElementsAre("retiring=cpu/topdown-retiring//cpu/slots/",
                          "bad-speculation=cpu/topdown-bad-spec//cpu/slots/",
                          "frontend-bound=cpu/topdown-fe-bound//cpu/slots/",
                          "backend-bound=cpu/topdown-be-bound//cpu/slots/"));
  // With modifiers, every input and metric carries them.
  EXPECT_THAT(Derived(PlanAll("topdown:u", options)),
              ::testing::Contains("retiring:u=cpu/topdown-retiring/:u/"
                                  "cpu/slots/:u"));
}

TEST(Topdown, AHybridCpuUsesItsCorePmu) {
  testing::FakeTree tree;
  tree.AddHybridCorePmus();
  AddTopdown(tree, "cpu_core");
  EXPECT_EQ(*TopdownPmu(tree.Paths()), "cpu_core");
}

TEST(Topdown, ACpuWithoutTopdownEventsSaysSo) {
  testing::FakeTree tree;
  tree.AddX86Cpu();
  ParseOptions options = UserOnly();
  options.paths = tree.Paths();
  absl::StatusOr<Request> r = ParseRequest("cycles,topdown", options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("no top-down events"));
  EXPECT_THAT(r.status().message(), HasSubstr("topdown-retiring"));
}

}  // namespace
}  // namespace perfcounters
