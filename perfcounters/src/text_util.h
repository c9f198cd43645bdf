// text_util.h (internal): string helpers that accept std::string_view.
//
// Debian 12's abseil is built with its own absl::string_view (not an alias of
// std::string_view), so absl::StrCat and friends do not take
// std::string_view. These wrappers convert at the boundary.
#ifndef PERFCOUNTERS_SRC_TEXT_UTIL_H_
#define PERFCOUNTERS_SRC_TEXT_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace perfcounters::internal {

// std::string_view as absl::string_view.
inline absl::string_view Sv(std::string_view s) { return {s.data(), s.size()}; }

// Passes every StrCat argument through unchanged except std::string_view.
template <typename T>
const T& CatArg(const T& x) {
  return x;
}
inline absl::string_view CatArg(std::string_view s) { return Sv(s); }

// absl::StrCat that also accepts std::string_view arguments.
template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(CatArg(args)...);
}

// Case-insensitive comparisons on std::string_view.
inline bool IEquals(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(Sv(a), Sv(b));
}
inline bool IStartsWith(std::string_view text, std::string_view prefix) {
  return absl::StartsWithIgnoreCase(Sv(text), Sv(prefix));
}

// `s` without leading and trailing ASCII whitespace.
inline std::string_view Trim(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Splits at every `sep` (empty pieces kept; "" gives one empty piece).
inline std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// Joins strings or string_views with `sep`.
template <typename Container>
std::string Join(const Container& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    first = false;
    out.append(std::string_view(item));
  }
  return out;
}

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_TEXT_UTIL_H_
