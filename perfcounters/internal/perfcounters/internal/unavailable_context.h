// unavailable_context.h (internal): the wire format between benchmark_ext
// and tools: the `perfcounters.unavailable` context entry that
// the benchmark integration writes into Google Benchmark's output (why
// requested events were not counted) and the tools read back.
#ifndef PERFCOUNTERS_INTERNAL_UNAVAILABLE_CONTEXT_H_
#define PERFCOUNTERS_INTERNAL_UNAVAILABLE_CONTEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
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
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_UNAVAILABLE_CONTEXT_H_
