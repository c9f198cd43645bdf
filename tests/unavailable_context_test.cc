// unavailable_context_test.cc: the `perfcounters.unavailable` context entry
// (unavailable_context.h): what FormatUnavailableContext writes,
// ParseUnavailableContext reads back, whatever the keys and reasons hold.
#include "perfcounters/internal/unavailable_context.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perfcounters {
namespace {

using ::testing::ElementsAre;

void ExpectRoundTrip(const std::vector<UnavailableGroup>& groups) {
  const std::string text = FormatUnavailableContext(groups);
  const std::vector<UnavailableGroup> back = ParseUnavailableContext(text);
  ASSERT_EQ(back.size(), groups.size()) << text;
  for (size_t i = 0; i < groups.size(); ++i) {
    EXPECT_EQ(back[i].keys, groups[i].keys) << text;
    EXPECT_EQ(back[i].reason, groups[i].reason) << text;
  }
}

TEST(UnavailableContext, ReadsWhatTheBenchmarkIntegrationWrites) {
  const std::vector<UnavailableGroup> groups = {
      {{"instructions", "cycles"},
       "not supported by this machine's PMU (ENOENT): no hardware PMU"},
      {{"sched:sched_switch"}, "permission denied (EACCES): ask root"}};
  const std::string text = FormatUnavailableContext(groups);
  EXPECT_EQ(text,
            "instructions, cycles: not supported by this machine's PMU "
            "(ENOENT): no hardware PMU; sched:sched_switch: permission "
            "denied (EACCES): ask root");
  ExpectRoundTrip(groups);
}

TEST(UnavailableContext, SeparatorsInKeysAndReasonsRoundTrip) {
  ExpectRoundTrip({{{"cpu/event=0x3c,umask=0/", "cycles:u", "a, b: c; d\\"},
                    "x; y: z, w\\; "},
                   {{"k;"}, "ends with a semicolon;"},
                   {{"k:"}, ""},
                   {{"k,"}, "\\"}});
}

TEST(UnavailableContext, ReadsFilesWrittenBeforeEscaping) {
  const std::vector<UnavailableGroup> groups =
      ParseUnavailableContext("cycles:u, instructions:u: no PMU; c: r");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_THAT(groups[0].keys, ElementsAre("cycles:u", "instructions:u"));
  EXPECT_EQ(groups[0].reason, "no PMU");
  EXPECT_THAT(groups[1].keys, ElementsAre("c"));
  EXPECT_TRUE(ParseUnavailableContext("").empty());
}

}  // namespace
}  // namespace perfcounters
