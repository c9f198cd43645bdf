// grammar.cc: the perf event grammar's list level: commas, {} groups with
// group modifiers, ParseOptions::default_user_only, and name suggestions.
// The single-event forms are in grammar_event.cc and grammar_pmu.cc.
#include "perfcounters/grammar.h"

#include <linux/perf_event.h>

#include "grammar_internal.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/internal/edit_distance.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/pmu.h"
#include "text_util.h"

namespace perfcounters {

using internal::At;
using internal::Cat;
using internal::ParseContext;
using internal::ParsedEvent;

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

class ListParser {
 public:
  explicit ListParser(const ParseContext& ctx) : ctx_(ctx), in_(ctx.input) {}

  absl::StatusOr<std::vector<GroupSpec>> Parse() {
    std::vector<GroupSpec> groups;
    for (size_t i = 0; i < in_.size(); ++i) {
      const auto c = static_cast<unsigned char>(in_[i]);
      if ((c < 0x20 && !IsSpace(in_[i])) || c == 0x7f) {
        return absl::InvalidArgumentError(
            Cat("control byte ", internal::Quote(in_.substr(i, 1)), At(ctx_, i),
                "; event lists are printable text"));
      }
    }
    SkipSpace();
    if (pos_ == in_.size()) {
      return absl::InvalidArgumentError(
          "empty event list; write events such as cycles,instructions or "
          "{cycles,instructions}");
    }
    while (true) {
      SkipSpace();
      if (pos_ < in_.size() && in_[pos_] == '{') {
        ASSIGN_OR_RETURN(GroupSpec group, ParseGroup());
        groups.push_back(std::move(group));
      } else {
        ASSIGN_OR_RETURN(std::vector<ParsedEvent> events, ParseItem());
        if (pos_ < in_.size() && in_[pos_] == '}') {
          return absl::InvalidArgumentError(
              Cat("unbalanced '}'", At(ctx_, pos_),
                  ": no '{' opened it; groups are written {a,b}"));
        }
        for (ParsedEvent& event : events) {
          GroupSpec group;
          group.events.push_back(Finish(event));
          groups.push_back(std::move(group));
        }
      }
      SkipSpace();
      if (pos_ == in_.size()) break;
      if (in_[pos_] != ',') {
        return absl::InvalidArgumentError(
            Cat("unexpected ", internal::Quote(in_.substr(pos_, 1)),
                At(ctx_, pos_), "; events are separated by ','"));
      }
      const size_t comma = pos_++;
      SkipSpace();
      if (pos_ == in_.size()) {
        return absl::InvalidArgumentError(
            Cat("trailing ','", At(ctx_, comma),
                "; remove it or add an event after it"));
      }
    }
    return groups;
  }

 private:
  void SkipSpace() {
    while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
  }

  // One item up to a top-level ',', '{', '}' or the end: one event, or
  // the tracepoints a glob matches. Commas inside pmu/.../ do not end it.
  absl::StatusOr<std::vector<ParsedEvent>> ParseItem() {
    SkipSpace();
    const size_t start = pos_;
    const bool breakpoint = internal::IStartsWith(in_.substr(start), "mem:");
    bool in_slash = false;
    size_t slash_at = 0;
    while (pos_ < in_.size()) {
      const char c = in_[pos_];
      if (c == '/' && !breakpoint) {
        in_slash = !in_slash;
        slash_at = pos_;
      } else if (!in_slash && (c == ',' || c == '{' || c == '}')) {
        break;
      }
      ++pos_;
    }
    if (in_slash) {
      return absl::InvalidArgumentError(
          Cat("'/' opened", At(ctx_, slash_at),
              " is never closed; write pmu/term=value,.../"));
    }
    if (pos_ < in_.size() && in_[pos_] == '{') {
      return absl::InvalidArgumentError(
          Cat("unexpected '{'", At(ctx_, pos_),
              "; groups cannot be nested and '{' must start an item"));
    }
    size_t end = pos_;
    while (end > start && IsSpace(in_[end - 1])) --end;
    return internal::ParseItemEvents(ctx_, in_.substr(start, end - start),
                                     start);
  }

  absl::StatusOr<GroupSpec> ParseGroup() {
    const size_t open = pos_++;
    std::vector<ParsedEvent> members;
    while (true) {
      ASSIGN_OR_RETURN(std::vector<ParsedEvent> events, ParseItem());
      for (ParsedEvent& event : events) members.push_back(std::move(event));
      if (pos_ == in_.size()) {
        return absl::InvalidArgumentError(
            Cat("unbalanced '{'", At(ctx_, open),
                ": expected '}' to close the group before the end"));
      }
      if (in_[pos_] == '}') break;
      ++pos_;  // ','
    }
    ++pos_;  // '}'
    GroupSpec group;
    group.user_group = true;
    if (pos_ < in_.size() && in_[pos_] == ':') {
      const size_t mods_offset = ++pos_;
      while (pos_ < in_.size() && in_[pos_] != ',' && !IsSpace(in_[pos_])) {
        ++pos_;
      }
      const std::string_view mods = in_.substr(mods_offset, pos_ - mods_offset);
      RETURN_IF_ERROR(internal::CheckModifiers(ctx_, mods, mods_offset));
      for (ParsedEvent& member : members) {
        const absl::Status status =
            internal::ApplyModifiers(ctx_, mods, mods_offset, member);
        if (!status.ok()) {
          return absl::InvalidArgumentError(
              Cat("group member ", internal::Quote(member.spec.text), ": ",
                  status.message()));
        }
      }
      group.modifiers = std::string(mods);
    } else if (pos_ < in_.size() && in_[pos_] != ',' && !IsSpace(in_[pos_])) {
      return absl::InvalidArgumentError(Cat(
          "unexpected ", internal::Quote(in_.substr(pos_, 1)), At(ctx_, pos_),
          " after '}'; expected ':' and modifiers, ',' or the end"));
    }
    for (ParsedEvent& member : members) {
      group.events.push_back(Finish(member));
    }
    return group;
  }

  // Applies default_user_only and fills the label.
  EventSpec Finish(ParsedEvent& event) const {
    if (ctx_.options.default_user_only &&
        (event.cpu_pmu ||
         (event.spec.attr.type == PERF_TYPE_SOFTWARE &&
          SoftwareEventCountsUserMode(event.spec.attr.config))) &&
        event.modifiers.find_first_of("ukh") == std::string::npos) {
      event.spec.attr.exclude_kernel = true;
      event.spec.attr.exclude_hv = true;
    }
    event.spec.label = event.Label();
    return event.spec;
  }

  const ParseContext& ctx_;
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<EventSpec> ParseEvent(std::string_view text,
                                     const ParseOptions& options) {
  ASSIGN_OR_RETURN(std::vector<GroupSpec> groups,
                   ParseEventList(text, options));
  if (groups.size() != 1 || groups.front().user_group) {
    size_t events = 0;
    for (const GroupSpec& g : groups) events += g.events.size();
    return absl::InvalidArgumentError(
        Cat(internal::Quote(text), " is ",
            groups.size() == 1 ? "a group" : "a list", " of ", events,
            " events, but a single event was expected; parse lists and "
            "groups with ParseEventList"));
  }
  return groups.front().events.front();
}

absl::StatusOr<std::vector<GroupSpec>> ParseEventList(
    std::string_view text, const ParseOptions& options) {
  return internal::WithSources(options,
                               [&](const internal::EventSources& sources) {
                                 const ParseContext ctx{text, options, sources};
                                 return ListParser(ctx).Parse();
                               });
}

std::vector<std::string> SuggestEventNames(std::string_view unknown,
                                           const ParseOptions& options,
                                           size_t max) {
  return internal::WithSources(
      options, [&](const internal::EventSources& sources) {
        return internal::SuggestEventNames(unknown, sources, max);
      });
}

size_t UnclosedGlobBracket(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '[') continue;
    size_t j = i + 1;
    if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
    if (j < pattern.size() && pattern[j] == ']') ++j;
    j = pattern.find(']', j);
    if (j == std::string_view::npos) return i;
    i = j;
  }
  return std::string_view::npos;
}

namespace internal {
namespace {

// The generic and cache event names, in table order: built once, as they
// never change.
const std::vector<std::string>& GenericEventNames() {
  static const std::vector<std::string>* const names = [] {
    auto* out = new std::vector<std::string>();
    for (auto table : {HardwareEvents(), SoftwareEvents()}) {
      for (const GenericEvent& e : table) {
        out->emplace_back(e.symbol);
        if (!e.alias.empty()) out->emplace_back(e.alias);
      }
    }
    for (const HwCacheEvent& e : AllHwCacheEvents()) {
      out->push_back(e.CanonicalName());
    }
    return out;
  }();
  return *names;
}

}  // namespace

std::vector<std::string> SuggestEventNames(std::string_view unknown,
                                           const EventSources& sources,
                                           size_t max) {
  if (unknown.find('/') == std::string_view::npos) {
    return ClosestNames(unknown, GenericEventNames(), max);
  }
  std::vector<std::string> candidates = GenericEventNames();
  if (absl::StatusOr<std::vector<std::string>> pmus = sources.ListPmus();
      pmus.ok()) {
    for (const std::string& name : *pmus) {
      absl::StatusOr<std::shared_ptr<const Pmu>> pmu = sources.LoadPmu(name);
      if (!pmu.ok()) continue;
      for (const PmuAlias& alias : (*pmu)->aliases) {
        candidates.push_back(Cat(name, "/", alias.name, "/"));
      }
    }
  }
  return ClosestNames(unknown, candidates, max);
}

}  // namespace internal

}  // namespace perfcounters
