// grammar_vendor.cc: vendor event names in the perf event grammar, through
// libpfm4 (vendor_events.h). They are tried last, after perf's generic,
// cache and raw names, sysfs PMUs and tracepoints: INST_RETIRED:ANY_P,
// skl::INST_RETIRED:ANY_P:c=1, inst_retired.any_p:u. Privilege levels and
// the other perf modifiers mean what they mean for generic events.
#include <linux/perf_event.h>

#include "grammar_internal.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/vendor_events.h"
#include "pfm_events.h"
#include "text_util.h"

namespace perfcounters::internal {
namespace {

constexpr std::string_view kLevels = "ukh";

// True when `token` (a ':' part after the event) is one of perf's modifier
// strings rather than a libpfm umask or modifier. u, k and h are always
// perf's (libpfm's own u/k/h have libpfm's defaults); other letters only
// when the event has no umask or modifier of that name (libpfm's `e` is
// edge detect and `i` invert, so perf's e and I are not taken here).
bool IsPerfModifierToken(std::string_view token,
                         const std::vector<std::string>& attr_names) {
  if (!IsModifierString(token) || token.find('e') != std::string_view::npos) {
    return false;
  }
  if (token.find_first_not_of(kLevels) == std::string_view::npos) return true;
  for (const std::string& name : attr_names) {
    if (IEquals(name, token)) return false;
  }
  return true;
}

}  // namespace

bool IsVendorSyntax(std::string_view text) {
  if (text.find("::") != std::string_view::npos) return true;
  if (text.substr(0, text.find(':')).find('.') != std::string_view::npos) {
    return true;
  }
  return Split(text, ':').size() > 3;
}

absl::StatusOr<ParsedEvent> ParseVendorEvent(const ParseContext& ctx,
                                             std::string_view text,
                                             size_t offset) {
  if (!HaveLibpfm()) {
    return absl::NotFoundError(Cat(Quote(text), At(ctx, offset),
                                   " is a vendor event name, but ",
                                   NoLibpfmMessage()));
  }
  const size_t qual = text.find("::");
  const size_t name_start = qual == std::string_view::npos ? 0 : qual + 2;
  const std::vector<std::string_view> parts =
      Split(text.substr(name_start), ':');
  const std::string event_name =
      std::string(text.substr(0, name_start + parts[0].size()));
  std::vector<std::string> attr_names;
  if (parts.size() > 1) attr_names = VendorEventAttrNames(event_name);

  // libpfm's part of the name, and perf's modifiers with their offsets.
  std::string pfm_name = event_name;
  struct Mods {
    std::string letters;
    size_t offset;
  };
  std::vector<Mods> mods;
  size_t pos = offset + event_name.size() + 1;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string_view token = parts[i];
    if (token.size() == 3 && kLevels.find(token[0]) != std::string_view::npos &&
        token[1] == '=') {
      if (token[2] == '1') {
        mods.push_back({std::string(1, token[0]), pos});
        pos += token.size() + 1;
        continue;
      }
      if (token[2] == '0') {
        return absl::InvalidArgumentError(
            Cat(Quote(token), At(ctx, pos),
                ": name the levels to count instead (u user, k kernel, h "
                "hypervisor, as perf's :u :k :h), e.g. :k for kernel only"));
      }
    }
    if (IsPerfModifierToken(token, attr_names)) {
      mods.push_back({std::string(token), pos});
    } else {
      absl::StrAppend(&pfm_name, ":", Sv(token));
    }
    pos += token.size() + 1;
  }

  absl::StatusOr<VendorEncoding> encoding = EncodeVendorEvent(pfm_name);
  if (!encoding.ok()) {
    return absl::Status(
        encoding.status().code(),
        Cat(AtPrefix(ctx, offset), encoding.status().message()));
  }
  ParsedEvent event;
  event.spec.text = std::string(text);
  event.spec.attr = encoding->attr;
  event.spec.vendor_table = encoding->table;
  const uint32_t type = encoding->attr.type;
  event.cpu_pmu = encoding->core && type != PERF_TYPE_SOFTWARE &&
                  type != PERF_TYPE_TRACEPOINT && type != PERF_TYPE_BREAKPOINT;
  event.spec.pmu = event.cpu_pmu                  ? "cpu"
                   : type == PERF_TYPE_SOFTWARE   ? "software"
                   : type == PERF_TYPE_TRACEPOINT ? "tracepoint"
                   : type == PERF_TYPE_BREAKPOINT ? "breakpoint"
                                                  : encoding->table;
  // The label is what the user typed: perf's modifiers, when they come
  // last, are kept apart so that group modifiers append as for any event.
  event.base_label =
      mods.empty() ? std::string(text)
                   : std::string(text.substr(0, mods[0].offset - offset - 1));
  for (const Mods& m : mods) {
    RETURN_IF_ERROR(CheckModifiers(ctx, m.letters, m.offset));
    RETURN_IF_ERROR(ApplyModifiers(ctx, m.letters, m.offset, event));
  }
  if (event.Label() != text) {
    event.base_label = std::string(text);
    event.label_from_name_term = true;
  }
  return event;
}

absl::StatusOr<ParsedEvent> VendorFallback(const ParseContext& ctx,
                                           std::string_view text, size_t offset,
                                           const absl::Status& perf_error) {
  if (absl::IsInvalidArgument(perf_error)) return perf_error;
  const std::string_view first = text.substr(0, text.find(':'));
  if (first.size() < text.size() && ctx.sources.IsTracepointCategory(first)) {
    return perf_error;  // a tracepoint category: not a vendor name
  }
  if (!HaveLibpfm()) {
    return absl::Status(perf_error.code(),
                        Cat(perf_error.message(), "; ", NoLibpfmMessage()));
  }
  absl::StatusOr<ParsedEvent> vendor = ParseVendorEvent(ctx, text, offset);
  if (vendor.ok() || !absl::IsNotFound(vendor.status())) return vendor;
  std::string_view why(vendor.status().message().data(),
                       vendor.status().message().size());
  const std::string prefix = AtPrefix(ctx, offset);
  if (why.substr(0, prefix.size()) == prefix) why.remove_prefix(prefix.size());
  return absl::Status(perf_error.code(),
                      Cat(perf_error.message(), "; and ", why));
}

}  // namespace perfcounters::internal
