// status_macros_test.cc: RETURN_IF_ERROR and ASSIGN_OR_RETURN (the
// internal perfcounters/internal/status_macros.h) return the first error,
// evaluate their argument once, and move values (move-only ones too) into
// declarations and existing variables.
#include "perfcounters/internal/status_macros.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace {

absl::Status Step(int* calls, absl::Status result) {
  ++*calls;
  return result;
}

absl::Status TwoSteps(int* calls, absl::Status first, absl::Status second) {
  RETURN_IF_ERROR(Step(calls, first));
  RETURN_IF_ERROR(Step(calls, second));
  return absl::OkStatus();
}

TEST(ReturnIfError, ReturnsTheFirstErrorAndStopsThere) {
  int calls = 0;
  EXPECT_TRUE(TwoSteps(&calls, absl::OkStatus(), absl::OkStatus()).ok());
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
absl::StatusOr<std::string> Join(int* calls, absl::StatusOr<int> a,
                                 absl::StatusOr<int> b) {
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

}  // namespace
