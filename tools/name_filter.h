// name_filter.h: NameFilter, the benchmark-name filter of `perfcounters
// compare` (`--filter` and the FILTER part of a gate). A regular expression
// searched anywhere in the name, like --benchmark_filter, matched by RE2 in
// time linear in the name: a hostile or careless pattern cannot make a CI
// job backtrack for minutes (std::regex took ~95 s on a 59-byte pattern).
//
// The syntax is RE2's (https://github.com/google/re2/wiki/Syntax): the
// ECMAScript/Perl syntax without back-references and lookaround, which are
// rejected with an error saying so.
#ifndef PERFCOUNTERS_TOOLS_NAME_FILTER_H_
#define PERFCOUNTERS_TOOLS_NAME_FILTER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace perfcounters::tools {

// A compiled benchmark-name filter. Cheap to copy (the compiled expression
// is shared and immutable) and safe to use from several threads.
class NameFilter {
 public:
  // Compiles `pattern`. An error names the pattern and what is wrong with it
  // (RE2's message, plus a hint for Perl-only syntax).
  static absl::StatusOr<NameFilter> Create(absl::string_view pattern);

  // Whether the pattern occurs anywhere in `name`.
  bool Matches(absl::string_view name) const;

  // The pattern as given.
  const std::string& pattern() const { return pattern_; }

 private:
  NameFilter(std::string pattern, std::shared_ptr<const re2::RE2> re)
      : pattern_(std::move(pattern)), re_(std::move(re)) {}

  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_NAME_FILTER_H_
