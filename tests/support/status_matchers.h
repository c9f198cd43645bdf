// status_matchers.h: gMock matchers for absl::Status and absl::StatusOr<T>,
// as abseil's absl/status/status_matchers.h (which Debian 12's abseil,
// 20220623, does not have yet). A failure prints the status, not "false":
//
//   EXPECT_THAT(event->Disable(), IsOk());
//   ASSERT_THAT(ParseEventList("cycles"), IsOkAndHolds(SizeIs(1)));
//   EXPECT_THAT(Open("nope"), StatusIs(absl::StatusCode::kNotFound));
//   EXPECT_THAT(Open("nope"), StatusIs(absl::StatusCode::kNotFound,
//                                      HasSubstr("did you mean")));
//
// Not inside a counted window: a matcher runs gMock's code (and may
// allocate, touching fresh heap pages), which the events would count. A
// call that starts counting (Enable, Reset, Refresh, Start, Resume) is
// checked with ASSERT_TRUE(x.ok()).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_STATUS_MATCHERS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace perfcounters::testing {
namespace status_internal {

inline const absl::Status& StatusOf(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace status_internal

// The status (of a Status or a StatusOr) is OK.
MATCHER(IsOk, negation ? "is not OK" : "is OK") {
  const absl::Status& status = status_internal::StatusOf(arg);
  if (!status.ok()) *result_listener << "whose status is " << status;
  return status.ok();
}

// A StatusOr is OK and its value matches `matcher`.
MATCHER_P(IsOkAndHolds, matcher,
          negation ? "is not OK or holds no matching value"
                   : "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "whose status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(matcher, *arg, result_listener);
}

// The status has `code` (and a message that matches `message`).
MATCHER_P(StatusIs, code,
          std::string(negation ? "has no status " : "has status ") +
              absl::StatusCodeToString(code)) {
  const absl::Status& status = status_internal::StatusOf(arg);
  *result_listener << "whose status is " << status;
  return status.code() == code;
}
MATCHER_P2(StatusIs, code, message,
           std::string(negation ? "has no status " : "has status ") +
               absl::StatusCodeToString(code) + " with a matching message") {
  const absl::Status& status = status_internal::StatusOf(arg);
  *result_listener << "whose status is " << status;
  if (status.code() != code) return false;
  return ::testing::ExplainMatchResult(message, std::string(status.message()),
                                       result_listener);
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_STATUS_MATCHERS_H_
