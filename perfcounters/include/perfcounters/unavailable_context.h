// unavailable_context.h: the `perfcounters.unavailable` context entry that
// the benchmark integration writes into Google Benchmark's output (why
// requested events were not counted) and the tools read back.
#ifndef PERFCOUNTERS_UNAVAILABLE_CONTEXT_H_
#define PERFCOUNTERS_UNAVAILABLE_CONTEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace perfcounters {

// Unavailable events that share one reason.
struct UnavailableGroup {
  std::vector<std::string> keys;
  std::string reason;
};

// The entry's text: "a, b: reason; c: reason". A backslash escapes the
// separators ("; " anywhere, ", " and ": " in a key) and itself, so that
// any key and reason round-trip through ParseUnavailableContext.
std::string FormatUnavailableContext(
    const std::vector<UnavailableGroup>& groups);

// Reads that text back (also files written before separators were escaped).
// An entry without ": " has keys and no reason.
std::vector<UnavailableGroup> ParseUnavailableContext(std::string_view text);

}  // namespace perfcounters

#endif  // PERFCOUNTERS_UNAVAILABLE_CONTEXT_H_
