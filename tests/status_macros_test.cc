// status_macros_test.cc: RETURN_IF_ERROR and ASSIGN_OR_RETURN (the
// internal perfcounters/internal/status_macros.h) return the first error,
// evaluate their argument once, and move values (move-only ones too) into
// declarations and existing variables; the tests' status matchers
// (support/status_matchers.h) match what they say and print the status.
#include "perfcounters/internal/status_macros.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;
using ::perfcounters::testing::IsOkAndHolds;
using ::perfcounters::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

absl::Status Step(int* calls, absl::Status result) {
  ++*calls;
  return result;
}

absl::Status TwoSteps(int* calls, const absl::Status& first,
                      const absl::Status& second) {
  RETURN_IF_ERROR(Step(calls, first));
  RETURN_IF_ERROR(Step(calls, second));
  return absl::OkStatus();
}

TEST(ReturnIfError, ReturnsTheFirstErrorAndStopsThere) {
  int calls = 0;
  EXPECT_THAT(TwoSteps(&calls, absl::OkStatus(), absl::OkStatus()), IsOk());
  EXPECT_EQ(calls, 2);

  calls = 0;
  const absl::Status s = TwoSteps(&calls, absl::NotFoundError("first"),
                                  absl::InternalError("second"));
  EXPECT_EQ(s, absl::NotFoundError("first"));
  EXPECT_EQ(calls, 1);

  calls = 0;
  EXPECT_EQ(TwoSteps(&calls, absl::OkStatus(), absl::InternalError("second")),
            absl::InternalError("second"));
  EXPECT_EQ(calls, 2);
}

absl::StatusOr<std::unique_ptr<std::string>> Make(int* calls,
                                                  absl::StatusOr<int> n) {
  ++*calls;
  if (!n.ok()) return n.status();
  return std::make_unique<std::string>(static_cast<size_t>(*n), 'x');
}

// Two ASSIGN_OR_RETURN on consecutive lines of one scope: one declares, one
// assigns to an existing variable.
absl::StatusOr<std::string> Join(int* calls, const absl::StatusOr<int>& a,
                                 const absl::StatusOr<int>& b) {
  ASSIGN_OR_RETURN(std::unique_ptr<std::string> first, Make(calls, a));
  std::unique_ptr<std::string> second;
  ASSIGN_OR_RETURN(second, Make(calls, b));
  return *first + "|" + *second;
}

TEST(AssignOrReturn, MovesTheValueOrReturnsTheStatus) {
  int calls = 0;
  absl::StatusOr<std::string> joined = Join(&calls, 2, 3);
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(*joined, "xx|xxx");
  EXPECT_EQ(calls, 2);

  calls = 0;
  joined = Join(&calls, absl::InvalidArgumentError("bad a"), 3);
  EXPECT_EQ(joined.status(), absl::InvalidArgumentError("bad a"));
  EXPECT_EQ(calls, 1);

  calls = 0;
  joined = Join(&calls, 1, absl::OutOfRangeError("bad b"));
  EXPECT_EQ(joined.status(), absl::OutOfRangeError("bad b"));
  EXPECT_EQ(calls, 2);
}

TEST(StatusMatchers, MatchStatusAndStatusOr) {
  const absl::StatusOr<int> seven = 7;
  const absl::StatusOr<int> missing = absl::NotFoundError("no cycles here");
  EXPECT_THAT(absl::OkStatus(), IsOk());
  EXPECT_THAT(seven, IsOk());
  EXPECT_THAT(seven, IsOkAndHolds(7));
  EXPECT_THAT(seven, Not(IsOkAndHolds(8)));
  EXPECT_THAT(missing, Not(IsOk()));
  EXPECT_THAT(missing, Not(IsOkAndHolds(7)));
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(missing.status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cycles")));
  EXPECT_THAT(missing, Not(StatusIs(absl::StatusCode::kNotFound,
                                    HasSubstr("instructions"))));
  EXPECT_THAT(missing, Not(StatusIs(absl::StatusCode::kInternal)));
}

// A failed match says what the status was, not "false".
TEST(StatusMatchers, AFailurePrintsTheStatus) {
  const absl::StatusOr<int> missing = absl::NotFoundError("no cycles here");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(missing, IsOk()),
                          "whose status is NOT_FOUND: no cycles here");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(missing, IsOkAndHolds(7)),
                          "whose status is NOT_FOUND: no cycles here");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(absl::InternalError("broken"),
                                      StatusIs(absl::StatusCode::kNotFound)),
                          "whose status is INTERNAL: broken");
}

}  // namespace
