// grammar.h: the perf event grammar, as `perf stat -e` takes it.
//
// ParseEvent("cycles:u") and ParseEventList("cycles,{instructions,branches}")
// turn text into EventSpec / GroupSpec values. Supported forms:
//   - generic names and perf's aliases, case-insensitive: cycles,
//     cpu-cycles, instructions, branches, cs, faults, task-clock, ...
//   - hardware cache events: L1-dcache-load-misses, LLC-loads,
//     dTLB-load-misses, branch-loads, ...
//   - modifiers after ':' — u k h G H I p pp ppp D e (perf's meaning)
//   - raw events rNNNN (hex)
//   - sysfs PMUs: pmu/term=value,.../ using format/ bit ranges, and
//     pmu/alias/ or pmu/alias,term=v/ from events/ (with .scale/.unit)
//   - tracepoints category:name
//   - breakpoints mem:ADDR[/LEN][:rwx]
//   - groups {a,b} with optional group modifiers {a,b}:u
// Errors are absl::InvalidArgumentError / NotFoundError naming the bad part
// and saying what would be right.
#ifndef PERFCOUNTERS_GRAMMAR_H_
#define PERFCOUNTERS_GRAMMAR_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/paths.h"

namespace perfcounters {

// How to resolve names that depend on the machine.
struct ParseOptions {
  // Where sysfs PMUs and tracefs live (injectable for tests).
  SystemPaths paths;
  // When true, an event written without u/k/h modifiers counts user space
  // only (exclude_kernel and exclude_hv set), as Google Benchmark does. When
  // false (perf's default), such an event counts everything it may.
  bool default_user_only = false;
};

// Parses a single event (no commas, no braces).
absl::StatusOr<EventSpec> ParseEvent(std::string_view text,
                                     const ParseOptions& options = {});

// Parses a comma-separated list with optional {} groups. Every plain event
// becomes its own GroupSpec; braces make one GroupSpec with user_group set.
absl::StatusOr<std::vector<GroupSpec>> ParseEventList(
    std::string_view text, const ParseOptions& options = {});

// Names close to `unknown` (by case-insensitive edit distance), nearest
// first, at most `max` of them: generic and cache event names, and, when
// `unknown` contains '/', the pmu/alias/ names of the sysfs PMUs in
// `options.paths`. Empty when nothing is close. Used for "did you mean"
// hints in errors.
std::vector<std::string> SuggestEventNames(std::string_view unknown,
                                           const ParseOptions& options = {},
                                           size_t max = 3);

}  // namespace perfcounters

#endif  // PERFCOUNTERS_GRAMMAR_H_
