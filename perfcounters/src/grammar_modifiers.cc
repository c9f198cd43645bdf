// grammar_modifiers.cc: event modifiers (:u :k :h :G :H :I :p :D :e) with
// perf's semantics, and the label helpers of the grammar.
#include <algorithm>

#include "grammar_internal.h"
#include "text_util.h"

namespace perfcounters::internal {
namespace {

constexpr std::string_view kModifierLetters = "ukhGHIpDe";
constexpr std::string_view kModifierHelp =
    "valid modifiers are u (user), k (kernel), h (hypervisor), G (guest), "
    "H (host), I (exclude idle), p/pp/ppp (precise), D (pinned), "
    "e (exclusive), e.g. cycles:u or cycles:kpp";

// Empty when `mods` is valid, else the offset of the first bad letter
// within it and why.
bool FindModifierError(std::string_view mods, size_t& bad, std::string& why) {
  if (mods.empty()) {
    bad = 0;
    why = "no modifier after ':'";
    return true;
  }
  int ps = 0;
  for (size_t i = 0; i < mods.size(); ++i) {
    const char c = mods[i];
    if (kModifierLetters.find(c) == std::string_view::npos) {
      bad = i;
      why = Cat("invalid modifier '", std::string(1, c), "'");
      return true;
    }
    if (c == 'p') {
      if (++ps > 3) {
        bad = i;
        why = "more than three 'p' modifiers (precise_ip is 0..3)";
        return true;
      }
    } else if (mods.substr(0, i).find(c) != std::string_view::npos) {
      bad = i;
      why = Cat("modifier '", std::string(1, c), "' given twice");
      return true;
    }
  }
  return false;
}

}  // namespace

std::string At(const ParseContext& ctx, size_t offset) {
  return Cat(" at offset ", offset, " in '", ctx.input, "'");
}

std::string AtPrefix(const ParseContext& ctx, size_t offset) {
  return Cat("at offset ", offset, " in '", ctx.input, "': ");
}

std::string ParsedEvent::Label() const {
  if (label_from_name_term || modifiers.empty()) return base_label;
  return Cat(base_label, ":", modifiers);
}

bool IsModifierString(std::string_view mods) {
  size_t bad = 0;
  std::string why;
  return !FindModifierError(mods, bad, why);
}

absl::Status CheckModifiers(const ParseContext& ctx, std::string_view mods,
                            size_t offset) {
  size_t bad = 0;
  std::string why;
  if (!FindModifierError(mods, bad, why)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      Cat(why, At(ctx, offset + bad), ": ", kModifierHelp));
}

absl::Status ApplyModifiers(const ParseContext& ctx, std::string_view mods,
                            size_t offset, ParsedEvent& event) {
  Attr& attr = event.spec.attr;
  bool eu = attr.exclude_user;
  bool ek = attr.exclude_kernel;
  bool eh = attr.exclude_hv;
  bool e_host = attr.exclude_host;
  bool e_guest = attr.exclude_guest;
  bool exclude = eu || ek || eh;
  bool exclude_gh = event.exclude_gh;
  int precise = attr.precise_ip;
  for (size_t i = 0; i < mods.size(); ++i) {
    switch (mods[i]) {
      case 'u':
      case 'k':
      case 'h':
        if (!exclude) exclude = eu = ek = eh = true;
        (mods[i] == 'u' ? eu : mods[i] == 'k' ? ek : eh) = false;
        break;
      case 'G':
      case 'H':
        if (!exclude_gh) exclude_gh = e_guest = e_host = true;
        (mods[i] == 'G' ? e_guest : e_host) = false;
        break;
      case 'I':
        attr.exclude_idle = true;
        break;
      case 'p':
        if (++precise > 3) {
          return absl::InvalidArgumentError(
              Cat("precise_ip would exceed 3 (the event already has ",
                  int{attr.precise_ip}, " 'p')", At(ctx, offset + i),
                  "; use at most ppp in total"));
        }
        // perf: "use of precise requires exclude_guest".
        if (!exclude_gh) e_guest = true;
        break;
      case 'D':
        attr.pinned = true;
        break;
      case 'e':
        attr.exclusive = true;
        break;
      default:
        return CheckModifiers(ctx, mods, offset);
    }
  }
  attr.exclude_user = eu;
  attr.exclude_kernel = ek;
  attr.exclude_hv = eh;
  attr.exclude_host = e_host;
  attr.exclude_guest = e_guest;
  attr.precise_ip = static_cast<uint8_t>(precise);
  event.exclude_gh = exclude_gh;
  event.modifiers += std::string(mods);
  return absl::OkStatus();
}

}  // namespace perfcounters::internal
