// errno_text.cc: errno names and descriptions for error messages.
#include "errno_text.h"

#include <string.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perfcounters::internal {

std::string ErrnoName(int err) {
  const char* name = strerrorname_np(err);
  return name == nullptr ? absl::StrCat("errno ", err) : std::string(name);
}

std::string ErrnoText(int err) {
  const char* name = strerrorname_np(err);
  const char* desc = strerrordesc_np(err);
  if (name == nullptr) return absl::StrCat("errno ", err);
  if (desc == nullptr) return name;
  return absl::StrCat(name, " (", desc, ")");
}

absl::Status ErrnoError(int err, absl::string_view what) {
  return absl::Status(absl::ErrnoToStatusCode(err),
                      absl::StrCat(what, ": ", ErrnoText(err)));
}

}  // namespace perfcounters::internal
