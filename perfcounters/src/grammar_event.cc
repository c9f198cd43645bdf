// grammar_event.cc: the single-event forms of the perf event grammar:
// generic and cache names, raw rNNNN, tracepoints category:name and
// breakpoints mem:ADDR[/LEN][:rwx]. The sysfs form is in grammar_pmu.cc.
#include <fnmatch.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "grammar_internal.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/pmu.h"
#include "text_util.h"

namespace perfcounters::internal {
namespace {

constexpr std::string_view kRawHelp =
    "raw events are 'r' followed by 1 to 16 hex digits, e.g. r01c2";

// A generic, cache or raw event name. NotFound when `name` is none of them;
// InvalidArgument when it is one but malformed.
absl::StatusOr<ParsedEvent> ParseSymbol(const ParseContext& ctx,
                                        std::string_view name, size_t offset) {
  ParsedEvent event;
  event.spec.text = std::string(name);
  if (IEquals(name, "duration_time")) {
    if (!ctx.options.tool_events) {
      return absl::InvalidArgumentError(
          Cat("duration_time", At(ctx, offset),
              " is perf's tool event (the wall-clock time of a run, no "
              "kernel counter): `perfcounters stat` counts it, other "
              "consumers measure time themselves"));
    }
    // perf opens it as the software dummy event and fills in the time.
    event.spec.attr.type = PERF_TYPE_SOFTWARE;
    event.spec.attr.config = PERF_COUNT_SW_DUMMY;
    event.spec.pmu = "tool";
    event.base_label = "duration_time";
    return event;
  }
  if (const GenericEvent* generic = FindGenericEvent(name)) {
    event.spec.attr.type = generic->type;
    event.spec.attr.config = generic->config;
    event.spec.pmu = generic->type == PERF_TYPE_HARDWARE ? "cpu" : "software";
    event.base_label = std::string(generic->canonical);
    event.cpu_pmu = generic->type == PERF_TYPE_HARDWARE;
    return event;
  }
  absl::StatusOr<HwCacheEvent> cache = ParseHwCacheName(name);
  if (cache.ok()) {
    event.spec.attr.type = PERF_TYPE_HW_CACHE;
    event.spec.attr.config = cache->config();
    event.spec.pmu = "cpu";
    event.base_label = cache->CanonicalName();
    event.cpu_pmu = true;
    return event;
  }
  if (!absl::IsNotFound(cache.status())) {
    return absl::InvalidArgumentError(
        Cat(AtPrefix(ctx, offset), cache.status().message()));
  }
  if (!name.empty() && (name[0] == 'r' || name[0] == 'R')) {
    std::string_view hex = name.substr(1);
    if (hex.empty()) {
      return absl::InvalidArgumentError(Cat("raw event 'r' has no hex digits",
                                            At(ctx, offset), "; ", kRawHelp));
    }
    if (std::all_of(hex.begin(), hex.end(), absl::ascii_isxdigit)) {
      const size_t first = hex.find_first_not_of('0');
      if (first != std::string_view::npos && hex.size() - first > 16) {
        return absl::InvalidArgumentError(Cat("raw event ", Quote(name),
                                              " does not fit in 64 bits",
                                              At(ctx, offset), "; ", kRawHelp));
      }
      ASSIGN_OR_RETURN(uint64_t config, ParseTermValue(Cat("0x", hex)));
      event.spec.attr.type = PERF_TYPE_RAW;
      event.spec.attr.config = config;
      event.spec.pmu = "cpu";
      event.base_label = std::string(name);
      event.cpu_pmu = true;
      return event;
    }
  }
  return absl::NotFoundError(Cat("unknown event ", Quote(name)));
}

// The last resolution step for a name that is no generic, cache, raw or
// tool event, no pmu/.../ and no tracepoint: "unknown event 'x' at offset
// N in '...'; did you mean ...?". Further name sources (vendor event
// tables) belong here, before the error.
absl::Status UnknownEvent(const ParseContext& ctx, std::string_view name,
                          size_t offset) {
  std::string hint;
  const std::vector<std::string> close =
      SuggestEventNames(name, ctx.sources, 3);
  if (!close.empty()) hint = Cat("; did you mean ", Join(close, ", "), "?");
  std::string raw;
  if (!name.empty() && (name[0] == 'r' || name[0] == 'R')) {
    raw = Cat("; ", kRawHelp);
  }
  return absl::NotFoundError(
      Cat("unknown event ", Quote(name), At(ctx, offset), hint, raw,
          "; `perfcounters list` shows the known events, and "
          "tracepoints are written category:name"));
}

absl::StatusOr<ParsedEvent> ParseTracepoint(const ParseContext& ctx,
                                            std::string_view category,
                                            std::string_view name,
                                            size_t offset) {
  const std::string full = Cat(category, ":", name);
  absl::StatusOr<uint64_t> id = TracepointId(ctx.sources, category, name);
  if (!id.ok()) {
    return absl::Status(id.status().code(),
                        Cat(AtPrefix(ctx, offset), id.status().message()));
  }
  ParsedEvent event;
  event.spec.text = full;
  event.spec.attr.type = PERF_TYPE_TRACEPOINT;
  event.spec.attr.config = *id;
  event.spec.pmu = "tracepoint";
  event.base_label = full;
  return event;
}

// True when tracefs holds the category `name` (so `name:x` may be a
// tracepoint even though `name` is also an event name).
bool IsTracepointCategory(const ParseContext& ctx, std::string_view name) {
  return ctx.sources.IsTracepointCategory(name);
}

// mem:ADDR[/LEN][:rwx][:modifiers]
absl::StatusOr<ParsedEvent> ParseBreakpoint(const ParseContext& ctx,
                                            std::string_view text,
                                            size_t offset) {
  constexpr std::string_view kHelp =
      "breakpoints are mem:ADDR[/LEN][:rwx], e.g. mem:0x601040/8:w "
      "(ADDR decimal or 0x hex, LEN 1, 2, 4 or 8, access r, w and/or x; "
      "default rw)";
  const std::vector<std::string_view> parts = Split(text.substr(4), ':');
  if (parts.size() > 3) {
    return absl::InvalidArgumentError(
        Cat("too many ':' in breakpoint", At(ctx, offset), "; ", kHelp));
  }
  size_t pos = offset + 4;
  const std::string_view addr_len = parts[0];
  const size_t slash = addr_len.find('/');
  const std::string_view addr_text = addr_len.substr(0, slash);
  absl::StatusOr<uint64_t> addr = ParseTermValue(addr_text);
  if (!addr.ok()) {
    return absl::InvalidArgumentError(
        Cat(AtPrefix(ctx, pos),
            "bad breakpoint address: ", addr.status().message(), "; ", kHelp));
  }
  uint64_t len = 0;
  if (slash != std::string_view::npos) {
    const std::string_view len_text = addr_len.substr(slash + 1);
    absl::StatusOr<uint64_t> parsed = ParseTermValue(len_text);
    if (!parsed.ok() ||
        (*parsed != 1 && *parsed != 2 && *parsed != 4 && *parsed != 8)) {
      return absl::InvalidArgumentError(
          Cat("bad breakpoint length ", Quote(len_text),
              At(ctx, pos + slash + 1), "; the length must be 1, 2, 4 or 8"));
    }
    len = *parsed;
  }
  pos += addr_len.size() + 1;
  std::string_view access;
  std::string_view mods;
  size_t mods_offset = 0;
  if (parts.size() >= 2) {
    const bool is_access =
        !parts[1].empty() &&
        parts[1].find_first_not_of("rwx") == std::string_view::npos;
    if (is_access) {
      access = parts[1];
      if (parts.size() == 3) {
        mods = parts[2];
        mods_offset = pos + parts[1].size() + 1;
      }
    } else if (parts.size() == 2) {
      mods = parts[1];
      mods_offset = pos;
    } else {
      return absl::InvalidArgumentError(
          Cat("bad breakpoint access ", Quote(parts[1]), At(ctx, pos),
              "; use r, w and/or x (each at most once)"));
    }
  }
  uint32_t bp_type = 0;
  for (size_t i = 0; i < access.size(); ++i) {
    const uint32_t bit = access[i] == 'r'   ? HW_BREAKPOINT_R
                         : access[i] == 'w' ? HW_BREAKPOINT_W
                                            : HW_BREAKPOINT_X;
    if (bp_type & bit) {
      return absl::InvalidArgumentError(
          Cat("breakpoint access '", std::string(1, access[i]), "' given twice",
              At(ctx, pos + i), "; use r, w and/or x (each at most once)"));
    }
    bp_type |= bit;
  }
  if (bp_type == 0) bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
  if (len == 0) {
    // perf: instruction breakpoints default to sizeof(long), data ones to 4.
    len = bp_type == HW_BREAKPOINT_X ? uint64_t{sizeof(long)}
                                     : uint64_t{HW_BREAKPOINT_LEN_4};
  }
  ParsedEvent event;
  event.spec.text = std::string(text);
  event.spec.attr.type = PERF_TYPE_BREAKPOINT;
  event.spec.attr.bp_type = bp_type;
  event.spec.attr.config1 = *addr;
  event.spec.attr.config2 = len;
  event.spec.pmu = "breakpoint";
  event.base_label = std::string(
      mods_offset == 0 ? text : text.substr(0, mods_offset - offset - 1));
  if (mods_offset != 0) {
    RETURN_IF_ERROR(CheckModifiers(ctx, mods, mods_offset));
    RETURN_IF_ERROR(ApplyModifiers(ctx, mods, mods_offset, event));
  }
  return event;
}

// True when sysfs has a PMU named exactly `name`.
bool IsPmuName(const ParseContext& ctx, std::string_view name) {
  absl::StatusOr<std::vector<std::string>> pmus = ctx.sources.ListPmus();
  return pmus.ok() &&
         std::find(pmus->begin(), pmus->end(), name) != pmus->end();
}

// name/terms/[mods]: a generic, cache, software or tool event with terms
// (cycles/period=1000/, page-faults/name=pf/), else a sysfs PMU event.
absl::StatusOr<ParsedEvent> ParseSlashForm(const ParseContext& ctx,
                                           std::string_view text,
                                           size_t offset) {
  const size_t open = text.find('/');
  const size_t close = text.find('/', open + 1);
  const std::string_view head = text.substr(0, open);
  if (open == 0 || close == std::string_view::npos || IsPmuName(ctx, head) ||
      (!head.empty() && (head[0] == 'r' || head[0] == 'R') &&
       FindGenericEvent(head) == nullptr)) {
    return ParsePmuEvent(ctx, text, offset);
  }
  absl::StatusOr<ParsedEvent> symbol = ParseSymbol(ctx, head, offset);
  if (!symbol.ok()) return ParsePmuEvent(ctx, text, offset);
  absl::StatusOr<ParsedEvent> event = ParseSymbolWithTerms(
      ctx, *std::move(symbol), text.substr(open + 1, close - open - 1),
      offset + open + 1);
  if (!event.ok()) return event;
  std::string_view mods = text.substr(close + 1);
  size_t mods_offset = offset + close + 1;
  if (!mods.empty() && mods[0] == ':') {
    mods.remove_prefix(1);
    ++mods_offset;
  } else if (mods.empty()) {
    return event;
  }
  RETURN_IF_ERROR(CheckModifiers(ctx, mods, mods_offset));
  RETURN_IF_ERROR(ApplyModifiers(ctx, mods, mods_offset, *event));
  return event;
}

// True for a text with glob characters.
bool HasGlob(std::string_view text) {
  return text.find_first_of("*?[") != std::string_view::npos;
}

// An error when `pattern` is not a well-formed glob (a '[' never closed).
absl::Status CheckGlob(const ParseContext& ctx, std::string_view pattern,
                       size_t offset) {
  const size_t open = UnclosedGlobBracket(pattern);
  if (open == std::string_view::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(
      Cat("'[' never closed", At(ctx, offset + open),
          "; a glob set is written [abc] or [a-z]"));
}

// category:name[:modifiers] where category or name is a glob: every
// matching tracepoint, in tracefs order.
absl::StatusOr<std::vector<ParsedEvent>> ParseTracepointGlob(
    const ParseContext& ctx, const std::vector<std::string_view>& parts,
    size_t offset) {
  const std::string category_glob(parts[0]);
  const std::string name_glob(parts[1]);
  RETURN_IF_ERROR(CheckGlob(ctx, parts[0], offset));
  RETURN_IF_ERROR(CheckGlob(ctx, parts[1], offset + parts[0].size() + 1));
  absl::StatusOr<std::vector<std::string>> categories =
      ListTracepointCategories(ctx.sources);
  if (!categories.ok()) {
    return absl::Status(
        categories.status().code(),
        Cat(AtPrefix(ctx, offset), categories.status().message()));
  }
  std::vector<ParsedEvent> out;
  for (const std::string& category : *categories) {
    if (fnmatch(category_glob.c_str(), category.c_str(), 0) != 0) continue;
    absl::StatusOr<std::vector<std::string>> names =
        ListTracepoints(ctx.sources, category);
    if (!names.ok()) continue;
    for (const std::string& name : *names) {
      if (fnmatch(name_glob.c_str(), name.c_str(), 0) != 0) continue;
      ASSIGN_OR_RETURN(ParsedEvent event,
                       ParseTracepoint(ctx, category, name, offset));
      if (parts.size() == 3) {
        const size_t mods_offset =
            offset + parts[0].size() + parts[1].size() + 2;
        RETURN_IF_ERROR(CheckModifiers(ctx, parts[2], mods_offset));
        RETURN_IF_ERROR(ApplyModifiers(ctx, parts[2], mods_offset, event));
        event.spec.text = Cat(event.spec.text, ":", parts[2]);
      }
      out.push_back(std::move(event));
    }
  }
  if (out.empty()) {
    return absl::NotFoundError(
        Cat("no tracepoint matches ", Quote(Cat(parts[0], ":", parts[1])),
            At(ctx, offset), "; `perfcounters list --tracepoints` lists them"));
  }
  return out;
}

// perf's forms of one event (ParseSingleEvent without vendor names).
absl::StatusOr<ParsedEvent> ParsePerfEvent(const ParseContext& ctx,
                                           std::string_view text,
                                           size_t offset) {
  if (text.empty()) {
    return absl::InvalidArgumentError(
        Cat("empty event", At(ctx, offset),
            "; write an event name such as cycles between the commas"));
  }
  absl::StatusOr<ParsedEvent> event;
  if (IStartsWith(text, "mem:")) {
    event = ParseBreakpoint(ctx, text, offset);
  } else if (text.find('/') != std::string_view::npos) {
    event = ParseSlashForm(ctx, text, offset);
  } else {
    const std::vector<std::string_view> parts = Split(text, ':');
    if (parts[0].empty()) {
      return absl::InvalidArgumentError(
          Cat("missing event name before ':'", At(ctx, offset)));
    }
    if (parts.size() > 3) {
      return absl::InvalidArgumentError(
          Cat("too many ':' in ", Quote(text), At(ctx, offset),
              "; expected event[:modifiers] or category:tracepoint"
              "[:modifiers]"));
    }
    absl::StatusOr<ParsedEvent> symbol = ParseSymbol(ctx, parts[0], offset);
    const size_t second = offset + parts[0].size() + 1;
    std::string_view mods;
    size_t mods_offset = 0;
    if (parts.size() == 1) {
      if (absl::IsNotFound(symbol.status())) {
        return UnknownEvent(ctx, parts[0], offset);
      }
      event = std::move(symbol);
    } else if (parts.size() == 2 && symbol.ok() &&
               (IsModifierString(parts[1]) ||
                !IsTracepointCategory(ctx, parts[0]))) {
      // name:modifiers (a known name followed by modifiers).
      event = std::move(symbol);
      mods = parts[1];
      mods_offset = second;
    } else if (parts.size() == 2 && !symbol.ok() &&
               !absl::IsNotFound(symbol.status())) {
      return symbol.status();
    } else {
      // category:name[:modifiers]
      if (parts[1].empty() && !symbol.ok()) {
        return absl::InvalidArgumentError(
            Cat("missing tracepoint name after ", Quote(Cat(parts[0], ":")),
                At(ctx, second),
                "; tracepoints are category:name, e.g. sched:sched_switch"));
      }
      event = ParseTracepoint(ctx, parts[0], parts[1], offset);
      if (!event.ok() && parts.size() == 2 && symbol.ok()) {
        // A known event with bad modifiers, more likely than a missing
        // tracepoint in a category named like an event.
        absl::Status status = CheckModifiers(ctx, parts[1], second);
        return absl::InvalidArgumentError(Cat(status.message(),
                                              "; there is no tracepoint ",
                                              Quote(text), " either"));
      }
      if (!event.ok() && parts.size() == 2 && IsModifierString(parts[1]) &&
          absl::IsNotFound(event.status()) &&
          !IsTracepointCategory(ctx, parts[0])) {
        // Most likely a misspelt event name with modifiers.
        return UnknownEvent(ctx, parts[0], offset);
      }
      if (parts.size() == 3) {
        mods = parts[2];
        mods_offset = second + parts[1].size() + 1;
      }
    }
    if (event.ok() && mods_offset != 0) {
      RETURN_IF_ERROR(CheckModifiers(ctx, mods, mods_offset));
      RETURN_IF_ERROR(ApplyModifiers(ctx, mods, mods_offset, *event));
    }
  }
  if (event.ok()) {
    event->spec.text = std::string(text);
    // A generic event without a PMU on a hybrid CPU (hybrid.h).
    absl::Status hybrid = CheckGenericEventOnHybrid(event->spec, ctx.sources);
    if (!hybrid.ok()) {
      return absl::InvalidArgumentError(Cat(hybrid.message(), At(ctx, offset)));
    }
  }
  return event;
}

}  // namespace

absl::StatusOr<std::vector<ParsedEvent>> ParseItemEvents(
    const ParseContext& ctx, std::string_view text, size_t offset) {
  if (!IStartsWith(text, "mem:") && text.find('/') == std::string_view::npos) {
    const std::vector<std::string_view> parts = Split(text, ':');
    if (parts.size() >= 2 && parts.size() <= 3 &&
        (HasGlob(parts[0]) || HasGlob(parts[1]))) {
      return ParseTracepointGlob(ctx, parts, offset);
    }
  }
  ASSIGN_OR_RETURN(ParsedEvent event, ParseSingleEvent(ctx, text, offset));
  return std::vector<ParsedEvent>{std::move(event)};
}

absl::StatusOr<ParsedEvent> ParseSingleEvent(const ParseContext& ctx,
                                             std::string_view text,
                                             size_t offset) {
  // Vendor names (grammar_vendor.cc) come last: only what perf's forms
  // cannot be, or do not know.
  const bool perf_only = text.empty() || IStartsWith(text, "mem:") ||
                         text.find('/') != std::string_view::npos;
  if (!perf_only && IsVendorSyntax(text)) {
    return ParseVendorEvent(ctx, text, offset);
  }
  absl::StatusOr<ParsedEvent> event = ParsePerfEvent(ctx, text, offset);
  if (event.ok() || perf_only) return event;
  return VendorFallback(ctx, text, offset, event.status());
}

}  // namespace perfcounters::internal
