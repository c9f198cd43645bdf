// plan_test.cc: parsing event lists, derived metrics, and group planning
// (with a fake PMU and with the real kernel).
#include "perfcounters/plan.h"

#include <linux/perf_event.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/grammar.h"
#include "perfcounters/internal/plan_internal.h"
#include "support/hw.h"
#include "support/paranoid.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ParseOptions UserOnly() {
  ParseOptions options;
  options.default_user_only = true;
  return options;
}

std::vector<std::string> Keys(const PlannedGroup& g) {
  std::vector<std::string> keys;
  for (const PlannedEvent& e : g.events) keys.push_back(e.key);
  return keys;
}

TEST(SplitTopLevel, CommasInsideBracesAndPmuTermsStay) {
  EXPECT_THAT(SplitTopLevel("cycles,{instructions,branches},ipc"),
              ElementsAre("cycles", "{instructions,branches}", "ipc"));
  EXPECT_THAT(SplitTopLevel("cpu/event=0x3c,umask=0/u,task-clock"),
              ElementsAre("cpu/event=0x3c,umask=0/u", "task-clock"));
  EXPECT_THAT(SplitTopLevel("{cpu/event=1,umask=2/,cycles}:u,faults"),
              ElementsAre("{cpu/event=1,umask=2/,cycles}:u", "faults"));
  // mem:ADDR/LEN has a slash that opens no term list.
  EXPECT_THAT(SplitTopLevel("mem:0x1000/8:w,cycles"),
              ElementsAre("mem:0x1000/8:w", "cycles"));
  EXPECT_THAT(SplitTopLevel(""), ElementsAre());
  EXPECT_THAT(SplitTopLevel("a,,b"), ElementsAre("a", "", "b"));
}

TEST(ParseRequest, PlainNamesCountUserSpaceOnly) {
  absl::StatusOr<Request> r = ParseRequest("cycles,task-clock", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->groups.size(), 2u);
  const Attr& cycles = r->groups[0].events[0].attr;
  EXPECT_EQ(cycles.type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(cycles.config, PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_TRUE(cycles.exclude_kernel);
  EXPECT_TRUE(cycles.exclude_hv);
  EXPECT_FALSE(cycles.exclude_user);
}

TEST(ParseRequest, ModifiersDoWhatTheySay) {
  absl::StatusOr<Request> r =
      ParseRequest("instructions:k,instructions:uk", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->groups.size(), 2u);
  const Attr& k = r->groups[0].events[0].attr;
  EXPECT_TRUE(k.exclude_user);
  EXPECT_FALSE(k.exclude_kernel);
  const Attr& uk = r->groups[1].events[0].attr;
  EXPECT_FALSE(uk.exclude_user);
  EXPECT_FALSE(uk.exclude_kernel);
  EXPECT_NE(r->groups[0].events[0].label, r->groups[1].events[0].label);
}

TEST(ParseRequest, IpcAloneBringsInItsInputsAsAGroup) {
  absl::StatusOr<Request> r = ParseRequest("IPC", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_TRUE(r->groups[0].user_group);
  ASSERT_EQ(r->groups[0].events.size(), 2u);
  EXPECT_EQ(r->groups[0].events[0].label, "instructions");
  EXPECT_EQ(r->groups[0].events[1].label, "cycles");
  ASSERT_EQ(r->derived.size(), 1u);
  EXPECT_EQ(r->derived[0].name, "ipc");
}

TEST(ParseRequest, DerivedInputsAlreadyRequestedAreNotAddedTwice) {
  absl::StatusOr<Request> r = ParseRequest("cycles,ipc", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> labels;
  for (const GroupSpec& g : r->groups) {
    for (const EventSpec& e : g.events) labels.push_back(e.label);
  }
  EXPECT_THAT(labels, ElementsAre("cycles", "instructions"));
}

TEST(ParseRequest, UnknownNameIsAnErrorNamingIt) {
  absl::StatusOr<Request> r = ParseRequest("cycles,instructionz", UserOnly());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("instructionz"));
  EXPECT_THAT(r.status().message(), HasSubstr("did you mean instructions"));
}

TEST(ParseRequest, EmptyItemIsAnError) {
  absl::StatusOr<Request> r = ParseRequest("cycles,,instructions", UserOnly());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("empty item"));
}

TEST(ParseRequest, EmptyListRequestsNothing) {
  absl::StatusOr<Request> r = ParseRequest("", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->groups.empty());
}

// A fake PMU: `counters` hardware counters, events named in `missing` fail
// like ENOENT, software events always fit. Records every probe.
struct FakePmu {
  int counters = 6;
  std::vector<std::string> missing;
  std::vector<std::string> probes;

  absl::Status operator()(const std::vector<EventSpec>& events) {
    probes.push_back(absl::StrJoin(
        events, ",",
        [](std::string* out, const EventSpec& e) { out->append(e.label); }));
    int hardware = 0;
    for (const EventSpec& e : events) {
      for (const std::string& m : missing) {
        if (e.label == m) {
          return absl::UnimplementedError(e.label + " is not supported");
        }
      }
      if (e.attr.type != PERF_TYPE_SOFTWARE) ++hardware;
    }
    if (hardware > counters) {
      return absl::FailedPreconditionError("the group never counts");
    }
    return absl::OkStatus();
  }
};

Plan PlanWith(const std::string& list, FakePmu& pmu) {
  absl::StatusOr<Request> r = ParseRequest(list, UserOnly());
  EXPECT_TRUE(r.ok()) << r.status();
  return MakePlan(*r,
                  [&pmu](const std::vector<EventSpec>& e) { return pmu(e); });
}

TEST(MakePlan, PacksEventsIntoGroupsThatFit) {
  FakePmu pmu;
  pmu.counters = 2;
  Plan plan = PlanWith(
      "cycles,instructions,branches,page-faults,branch-misses,"
      "context-switches",
      pmu);
  EXPECT_TRUE(plan.unavailable.empty());
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("cycles", "instructions"));
  EXPECT_THAT(Keys(plan.groups[1]), ElementsAre("branches", "branch-misses"));
  EXPECT_THAT(Keys(plan.groups[2]),
              ElementsAre("page-faults", "context-switches"));
  EXPECT_EQ(plan.event_count(), 6u);
}

TEST(MakePlan, SoftwareClocksAreNeverPacked) {
  FakePmu pmu;
  Plan plan = PlanWith("task-clock,page-faults,cpu-clock,minor-faults", pmu);
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("task-clock"));
  EXPECT_THAT(Keys(plan.groups[1]), ElementsAre("page-faults", "minor-faults"));
  EXPECT_THAT(Keys(plan.groups[2]), ElementsAre("cpu-clock"));
}

TEST(MakePlan, UnavailableEventsAreListedWithTheReasonAndTheRestGoesOn) {
  FakePmu pmu;
  pmu.missing = {"cycles"};
  Plan plan = PlanWith("cycles,instructions,task-clock", pmu);
  ASSERT_EQ(plan.unavailable.size(), 1u);  // and the rest is planned
  EXPECT_EQ(plan.unavailable[0].key, "cycles");
  EXPECT_THAT(plan.unavailable[0].reason, HasSubstr("not supported"));
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("instructions"));
  EXPECT_THAT(Keys(plan.groups[1]), ElementsAre("task-clock"));
  // ipc needs cycles, which is not planned.
  EXPECT_TRUE(plan.derived.empty());
  EXPECT_THAT(plan.requested_keys,
              ElementsAre("cycles", "instructions", "task-clock"));
}

TEST(MakePlan, UserGroupsStayTogether) {
  FakePmu pmu;
  pmu.counters = 3;
  Plan plan = PlanWith("cycles,{instructions,branches},branch-misses", pmu);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_TRUE(plan.groups[0].user_group);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("instructions", "branches"));
  EXPECT_FALSE(plan.groups[1].user_group);
  EXPECT_THAT(Keys(plan.groups[1]), ElementsAre("cycles", "branch-misses"));
}

TEST(MakePlan, AUserGroupThatNeverFitsIsUnavailableNotSplit) {
  FakePmu pmu;
  pmu.counters = 1;
  Plan plan = PlanWith("{cycles,instructions},task-clock", pmu);
  ASSERT_EQ(plan.unavailable.size(), 2u);
  EXPECT_THAT(plan.unavailable[0].reason,
              HasSubstr("cannot be scheduled together"));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("task-clock"));
}

TEST(MakePlan, AUserGroupLosesOnlyItsUnsupportedMembers) {
  FakePmu pmu;
  pmu.missing = {"branches"};
  Plan plan = PlanWith("{cycles,branches,instructions}", pmu);
  ASSERT_EQ(plan.unavailable.size(), 1u);
  EXPECT_EQ(plan.unavailable[0].key, "branches");
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("cycles", "instructions"));
}

TEST(MakePlan, RepeatedEventsGetNumberedKeysAndMultiplexGroups) {
  FakePmu pmu;
  std::string list = "instructions";
  for (int i = 2; i <= 12; ++i) list += ",instructions";
  Plan plan = PlanWith(list, pmu);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].events.size(), 6u);
  EXPECT_EQ(plan.groups[1].events.size(), 6u);
  EXPECT_EQ(plan.groups[0].events[0].key, "instructions");
  EXPECT_EQ(plan.groups[0].events[1].key, "instructions#2");
  EXPECT_EQ(plan.groups[1].events[5].key, "instructions#12");
}

TEST(MakePlan, DerivedMetricsNeedBothInputsPlanned) {
  FakePmu pmu;
  Plan plan = PlanWith("ipc,branches,branch-misses", pmu);
  std::vector<std::string> names;
  for (const DerivedMetric& m : plan.derived) names.push_back(m.name);
  // In the table's order; cpi has the same inputs as ipc.
  EXPECT_THAT(names, ElementsAre("ipc", "cpi", "branch-miss-rate"));
}

// The real kernel: software events open and count here.
TEST(OpenAndVerify, SoftwareEventsCountOnThisMachine) {
  PERFCOUNTERS_REQUIRE_KERNEL_COUNTING();
  absl::StatusOr<Request> r =
      ParseRequest("page-faults,context-switches,task-clock", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  Plan plan = MakePlan(*r, OpenAndVerify);
  EXPECT_TRUE(plan.unavailable.empty());
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_THAT(Keys(plan.groups[0]),
              ElementsAre("page-faults", "context-switches"));
  EXPECT_THAT(Keys(plan.groups[1]), ElementsAre("task-clock"));
}

TEST(OpenAndVerify, UnavailableHardwareEventCarriesTheKernelsReason) {
  const std::string why = testing::WhyEventUnavailable("cycles:u");
  if (why.empty()) GTEST_SKIP() << "cycles opens on this machine";
  absl::StatusOr<Request> r = ParseRequest("cycles,task-clock", UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  Plan plan = MakePlan(*r, OpenAndVerify);
  ASSERT_EQ(plan.unavailable.size(), 1u);
  EXPECT_EQ(plan.unavailable[0].key, "cycles");
  EXPECT_FALSE(plan.unavailable[0].reason.empty());
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_THAT(Keys(plan.groups[0]), ElementsAre("task-clock"));
}

// Hardware: 12 instructions events cannot share one group on a PMU with
// fewer counters; the planner must split them into groups that all count.
TEST(OpenAndVerify, HardwareGroupsAreSplitToFitThePmu) {
  PERFCOUNTERS_REQUIRE_EVENT("instructions:u");
  std::string list = "instructions";
  for (int i = 2; i <= 12; ++i) list += ",instructions";
  absl::StatusOr<Request> r = ParseRequest(list, UserOnly());
  ASSERT_TRUE(r.ok()) << r.status();
  Plan plan = MakePlan(*r, OpenAndVerify);
  EXPECT_TRUE(plan.unavailable.empty());
  EXPECT_EQ(plan.event_count(), 12u);
  EXPECT_GE(plan.groups.size(), 2u);
  for (const PlannedGroup& g : plan.groups) {
    std::vector<EventSpec> specs;
    for (const PlannedEvent& e : g.events) specs.push_back(e.spec);
    EXPECT_THAT(OpenAndVerify(specs), IsOk());
  }
}

}  // namespace
}  // namespace perfcounters
