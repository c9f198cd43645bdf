// grammar_internal.h (internal): the pieces of the perf event grammar
// (grammar.h) shared by its source files: one parsed event before list-level
// processing, the parse context, modifier handling, and the parsers of the
// single-event forms.
#ifndef PERFCOUNTERS_SRC_GRAMMAR_INTERNAL_H_
#define PERFCOUNTERS_SRC_GRAMMAR_INTERNAL_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "event_sources.h"
#include "perfcounters/attr.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/grammar.h"

namespace perfcounters::internal {

// What every error needs: the whole input (errors quote it and give offsets
// into it) and the options; and where sysfs and tracefs answers come from
// (the options' catalog, else fresh reads of options.paths).
struct ParseContext {
  std::string_view input;
  const ParseOptions& options;
  const EventSources& sources;
};

// Calls f(sources) with the options' catalog, or else with fresh reads of
// options.paths, and returns what f returns.
template <typename F>
auto WithSources(const ParseOptions& options, F f) {
  if (options.catalog != nullptr) return f(SourcesOf(*options.catalog));
  const LiveEventSources live(options.paths);
  return f(live);
}

// `text` in single quotes for an error message: control bytes, DEL and
// bytes that are not valid UTF-8 written as \xNN, whole UTF-8 characters
// kept, and, when longer than `max` bytes, shortened around byte `center`
// with "..." (never cutting a character).
std::string Quote(std::string_view text, size_t center = 0, size_t max = 64);

// " at offset N in '<input>'", appended to error messages (the input
// quoted once, shortened around N when long).
std::string At(const ParseContext& ctx, size_t offset);

// "at offset N in '<input>': ", to prefix messages that come from
// elsewhere (PMU, tracefs and cache lookups).
std::string AtPrefix(const ParseContext& ctx, size_t offset);

// One event as parsed from its text, before group modifiers and
// default_user_only.
struct ParsedEvent {
  EventSpec spec;
  // The label without modifiers: the canonical name or the user's text.
  std::string base_label;
  // Modifiers the user wrote (own, then the group's).
  std::string modifiers;
  // A name= term chose the label; modifiers are not appended to it.
  bool label_from_name_term = false;
  // perf's evsel->exclude_GH: a G or H modifier was given.
  bool exclude_gh = false;
  // Whether ParseOptions::default_user_only may apply (CPU PMU events).
  bool cpu_pmu = false;

  // base_label plus ":modifiers", or the name= label.
  std::string Label() const;
};

// Checks a modifier string (`mods` starts at `offset` in the input): only
// u k h G H I p D e, p at most three times, no other letter twice. The
// error names the bad letter and lists the valid ones.
absl::Status CheckModifiers(const ParseContext& ctx, std::string_view mods,
                            size_t offset);

// True when CheckModifiers would accept `mods`.
bool IsModifierString(std::string_view mods);

// Applies checked modifiers with perf's semantics (parse-events.c):
//   u/k/h: the first of them sets exclude_user, exclude_kernel, exclude_hv;
//          each then clears its own (":u" counts user space only, ":uk"
//          user and kernel).
//   G/H:   the first sets exclude_guest and exclude_host; G clears
//          exclude_guest, H clears exclude_host.
//   I: exclude_idle.  p: precise_ip + 1 (and exclude_guest unless G/H
//   given).  D: pinned.  e: exclusive.
// The starting state is the event's attr, so group modifiers combine with
// a member's own. Errors when precise_ip would exceed 3.
absl::Status ApplyModifiers(const ParseContext& ctx, std::string_view mods,
                            size_t offset, ParsedEvent& event);

// Parses one event's text (no top-level commas or braces) that starts at
// `offset` in the input, own modifiers applied.
absl::StatusOr<ParsedEvent> ParseSingleEvent(const ParseContext& ctx,
                                             std::string_view text,
                                             size_t offset);

// Parses one list item: a tracepoint glob (`sched:*`, `*:sched_switch`)
// gives every matching tracepoint, anything else one ParseSingleEvent.
absl::StatusOr<std::vector<ParsedEvent>> ParseItemEvents(
    const ParseContext& ctx, std::string_view text, size_t offset);

// A generic, cache or software event `event` (already parsed from its
// name) with perf's built-in terms from `name/terms/`: name, period, freq,
// config, config1, config2.
absl::StatusOr<ParsedEvent> ParseSymbolWithTerms(const ParseContext& ctx,
                                                 ParsedEvent event,
                                                 std::string_view terms_text,
                                                 size_t terms_offset);

// The sysfs form pmu/terms/[mods] (text contains '/').
absl::StatusOr<ParsedEvent> ParsePmuEvent(const ParseContext& ctx,
                                          std::string_view text, size_t offset);

// Vendor names through libpfm4 (grammar_vendor.cc): EVENT:UMASK,
// table::EVENT:UMASK, perf's dotted event.umask, with libpfm's modifiers
// and perf's (:u :k :h :p :D :G :H :I with perf's meaning).
// True when `text` can only be a vendor name ("::", a '.' in the name, or
// more ':' parts than perf's forms have).
bool IsVendorSyntax(std::string_view text);
absl::StatusOr<ParsedEvent> ParseVendorEvent(const ParseContext& ctx,
                                             std::string_view text,
                                             size_t offset);
// `perf_error` is why `text` is none of perf's forms: returns the vendor
// event `text` names, else the error that explains best (perf_error
// itself when libpfm4 knows no such event, or this build lacks it).
absl::StatusOr<ParsedEvent> VendorFallback(const ParseContext& ctx,
                                           std::string_view text, size_t offset,
                                           const absl::Status& perf_error);

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_GRAMMAR_INTERNAL_H_
