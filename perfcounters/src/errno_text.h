// errno_text.h (internal): spelling errno values in error messages as
// "EINVAL (Invalid argument)", and turning them into absl::Status codes.
#ifndef PERFCOUNTERS_SRC_ERRNO_TEXT_H_
#define PERFCOUNTERS_SRC_ERRNO_TEXT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace perfcounters::internal {

// "EINVAL"; "errno 1234" for values libc cannot name.
std::string ErrnoName(int err);

// "EINVAL (Invalid argument)"; "errno 1234" for values libc cannot name.
std::string ErrnoText(int err);

// A status with the code that follows `err` and the message
// "<what>: EINVAL (Invalid argument)".
absl::Status ErrnoError(int err, absl::string_view what);

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_ERRNO_TEXT_H_
