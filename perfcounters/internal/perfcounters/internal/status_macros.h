// status_macros.h (internal): early returns on an error absl::Status, in the
// style of abseil's status_macros.h (which Debian 12's abseil does not
// ship). For .cc files of the library, benchmark_ext and the command; no
// public header includes it.
//
//   RETURN_IF_ERROR(WriteHeader(out));
//     // returns the absl::Status of the call when it is not OK
//   ASSIGN_OR_RETURN(Group group, Group::Open(specs, options));
//   ASSIGN_OR_RETURN(plan_, MakePlanFor(list));
//     // evaluates the absl::StatusOr once; returns its status when not OK,
//     // else moves its value into the left-hand side (a declaration or an
//     // lvalue)
//
// Both return from the enclosing function, whose return type must be
// constructible from an absl::Status (absl::Status, absl::StatusOr<T>).
// RETURN_IF_ERROR's status is not const, so that returning it moves it.
#ifndef PERFCOUNTERS_INTERNAL_STATUS_MACROS_H_
#define PERFCOUNTERS_INTERNAL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RETURN_IF_ERROR(expr)                                 \
  do {                                                        \
    ::absl::Status perfcounters_status_macro_status = (expr); \
    if (!perfcounters_status_macro_status.ok()) {             \
      return perfcounters_status_macro_status;                \
    }                                                         \
  } while (false)

#define ASSIGN_OR_RETURN(lhs, rexpr)                                        \
  PERFCOUNTERS_ASSIGN_OR_RETURN_IMPL_(                                      \
      PERFCOUNTERS_STATUS_MACROS_CONCAT_(perfcounters_statusor_, __LINE__), \
      lhs, rexpr)

// Implementation details. `statusor` is a name and `lhs` may be a
// declaration: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PERFCOUNTERS_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                        \
  if (!statusor.ok()) return std::move(statusor).status();        \
  lhs = *std::move(statusor)
// NOLINTEND(bugprone-macro-parentheses)
#define PERFCOUNTERS_STATUS_MACROS_CONCAT_INNER_(x, y) x##y
#define PERFCOUNTERS_STATUS_MACROS_CONCAT_(x, y) \
  PERFCOUNTERS_STATUS_MACROS_CONCAT_INNER_(x, y)

#endif  // PERFCOUNTERS_INTERNAL_STATUS_MACROS_H_
