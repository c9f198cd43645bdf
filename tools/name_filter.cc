// name_filter.cc: NameFilter over RE2.
#include "name_filter.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "input_text.h"
#include "re2/re2.h"

namespace perfcounters::tools {

absl::StatusOr<NameFilter> NameFilter::Create(absl::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // the error goes into the status instead
  // A filter is a short name pattern; 1 MiB of automaton is plenty and keeps
  // a pathological repetition ({1000}{1000}) a clear error, not a stall.
  options.set_max_mem(1 << 20);
  auto re = std::make_shared<const RE2>(
      re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    std::string hint;
    switch (re->error_code()) {
      case RE2::ErrorBadPerlOp:
      case RE2::ErrorBadEscape:
        hint =
            "; back-references (\\1) and lookaround ((?=, (?!, (?<=) are not "
            "supported: the filter syntax is RE2's";
        break;
      case RE2::ErrorPatternTooLarge:
      case RE2::ErrorRepeatSize:
        hint = "; use a shorter pattern or smaller repetition counts";
        break;
      default:
        break;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "'", ShortForMessage(pattern), "' is not a valid regular expression (",
        ShortForMessage(re->error()), ")", hint));
  }
  return NameFilter(std::string(pattern), std::move(re));
}

bool NameFilter::Matches(absl::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

}  // namespace perfcounters::tools
