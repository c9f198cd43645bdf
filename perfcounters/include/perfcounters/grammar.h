// grammar.h: the perf event grammar, as `perf stat -e` takes it.
//
// ParseEvent("cycles:u") and ParseEventList("cycles,{instructions,branches}")
// turn text into EventSpec / GroupSpec values. Supported forms:
//   - generic names and perf's aliases, case-insensitive: cycles,
//     cpu-cycles, instructions, branches, cs, faults, task-clock, ...
//   - hardware cache events: L1-dcache-load-misses, LLC-loads,
//     dTLB-load-misses, branch-loads, ...
//   - modifiers after ':' — u k h G H I p pp ppp D e (perf's meaning):
//     the first of u/k/h excludes user, kernel and hv, then each u/k/h
//     includes its own level again (":u" = exclude_kernel + exclude_hv,
//     ":uk" = exclude_hv); the first of G/H excludes guest and host, then
//     G/H include theirs; I = exclude_idle; each p raises precise_ip (max 3)
//     and sets exclude_guest unless G/H were given; D = pinned;
//     e = exclusive. Letters other than p may appear once.
//   - raw events rNNNN (1 to 16 hex digits), e.g. r01c2
//   - sysfs PMUs: pmu/term=value,.../ using format/ bit ranges (bare term =
//     1; built-in terms config, config1, config2, name (sets the label),
//     period, freq), pmu/alias/ or pmu/alias,term=v/ from events/ (with
//     .scale/.unit), and perf's generic names on a core PMU (cpu/cycles/).
//     Modifiers follow the closing slash: cpu/event=0x3c/u or .../:u.
//     As in perf, config= terms set their word first, then format terms
//     OR their bits in (the alias's terms, then the user's).
//   - generic, cache and software events with built-in terms:
//     cycles/period=1000/, page-faults/name=pf/
//   - duration_time, perf's tool event, with ParseOptions::tool_events
//   - tracepoints category:name[:modifiers]; `x:y` is a modifier when x is
//     a known event and y a valid modifier string, else a tracepoint;
//     globs in the category or name (sched:*) give every match
//   - breakpoints mem:ADDR[/LEN][:rwx][:modifiers]; access defaults to rw,
//     LEN to 4 for data and sizeof(long) for x (perf's defaults)
//   - groups {a,b} with optional group modifiers {a,b}:u, applied to each
//     member on top of its own modifiers (perf's rule)
// Errors are absl::InvalidArgumentError / NotFoundError naming the bad part,
// its byte offset in the input (quoted once, shortened around the offset,
// control bytes escaped), and what would be right (valid modifiers, valid
// terms, close names). perf's S W P b modifiers are refused with the reason.
#ifndef PERFCOUNTERS_GRAMMAR_H_
#define PERFCOUNTERS_GRAMMAR_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The offset of the first '[' in the glob `pattern` that is never closed,
// or npos when every set is closed. A set is [abc], [!abc], [^abc] or
// [a-z]; a ']' first in a set is a member ([]a], [!]a]). The grammar's
// tracepoint globs and `perfcounters list`'s patterns are checked with it.
size_t UnclosedGlobBracket(std::string_view pattern);

// How to resolve names that depend on the machine.
struct ParseOptions {
  // Where sysfs PMUs and tracefs live (injectable for tests). Every call
  // reads them afresh, so PMUs that appear later are seen. Ignored when
  // `catalog` is set.
  SystemPaths paths;
  // When set, PMUs and tracepoints come from this snapshot (and its paths)
  // instead of fresh reads: the same results, much faster, but blind to
  // changes made after the catalog read them (event_catalog.h). May be
  // shared by options on many threads.
  std::shared_ptr<const EventCatalog> catalog;
  // When true, an event written without u/k/h modifiers (own or group)
  // counts user space only (exclude_kernel and exclude_hv set), as Google
  // Benchmark does. When false (perf's default), such an event counts
  // everything it may. Applies to CPU PMU events (generic hardware, cache,
  // raw and core sysfs PMUs such as cpu, cpu_core, armv8_pmuv3_0) and to
  // the software faults and clocks (page-faults, minor-faults,
  // major-faults, alignment-faults, emulation-faults, task-clock,
  // cpu-clock), which count user-mode work with exclude_kernel and so open
  // for unprivileged users at perf_event_paranoid 2. Other software events
  // (context-switches, cpu-migrations, ...), tracepoints, breakpoints and
  // uncore events happen in the kernel or would be refused with
  // exclude_kernel, so they are left as written.
  bool default_user_only = false;
  // When true, perf's tool event `duration_time` parses to an EventSpec
  // with pmu "tool" (attr: the software dummy event, as perf opens it):
  // it has no kernel counter, and its value, the run's wall-clock time in
  // ns, is the caller's to supply (`perfcounters stat` does). When false it
  // is an error saying so, so that no consumer reports a dummy's 0.
  bool tool_events = false;
};

// Parses a single event (no commas, no braces). On a hybrid CPU (sysfs has
// cpu_core and cpu_atom) a generic hardware/cache event must name its core
// PMU (cpu_core/cycles/): a bare `cycles` is InvalidArgument (hybrid.h).
absl::StatusOr<EventSpec> ParseEvent(std::string_view text,
                                     const ParseOptions& options = {});

// Parses a comma-separated list with optional {} groups. Every plain event
// becomes its own GroupSpec; braces make one GroupSpec with user_group set.
absl::StatusOr<std::vector<GroupSpec>> ParseEventList(
    std::string_view text, const ParseOptions& options = {});

// Names close to `unknown` (by case-insensitive edit distance), nearest
// first, at most `max` of them: generic and cache event names, and, when
// `unknown` contains '/', the pmu/alias/ names of the sysfs PMUs in
// `options.paths` (or `options.catalog`). Empty when nothing is close. Used for
// "did you mean" hints in errors.
std::vector<std::string> SuggestEventNames(std::string_view unknown,
                                           const ParseOptions& options = {},
                                           size_t max = 3);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_GRAMMAR_H_
