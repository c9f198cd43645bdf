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

// Length of the valid UTF-8 character at text[i], or 0 when the byte there
// does not start one.
size_t Utf8Length(std::string_view text, size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  const size_t n = b < 0x80           ? 1
                   : (b >> 5) == 0x6  ? 2
                   : (b >> 4) == 0xe  ? 3
                   : (b >> 3) == 0x1e ? 4
                                      : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  }
  return n;
}

// perf's modifiers that are not supported here, and why; empty for other
// letters.
std::string UnsupportedModifier(char c) {
  switch (c) {
    case 'S':
      return "modifier 'S' (sample read: a sampling group's leader reads its "
             "members at each sample) is for sampling with perf record; "
             "counting reads every member anyway, so drop it";
    case 'W':
      return "modifier 'W' (weak group: split the group up when it does not "
             "fit on the PMU) is not supported; drop the W, or the braces to "
             "let the events be multiplexed one by one";
    case 'P':
      return "modifier 'P' (the highest precise level the machine has) is "
             "not supported; write the level: p, pp or ppp";
    case 'b':
      return "modifier 'b' (count with BPF programs) is not supported";
    default:
      return "";
  }
}

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
      why = UnsupportedModifier(c);
      if (why.empty()) {
        const size_t n = std::max<size_t>(1, Utf8Length(mods, i));
        why = Cat("invalid modifier ", Quote(mods.substr(i, n)));
      }
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

std::string Quote(std::string_view text, size_t center, size_t max) {
  size_t begin = 0;
  size_t end = text.size();
  if (text.size() > max) {
    begin = center > max / 2 ? center - max / 2 : 0;
    end = std::min(text.size(), begin + max);
    begin = end - std::min(end, max);
    // Never start or end inside a UTF-8 character.
    while (begin > 0 &&
           (static_cast<unsigned char>(text[begin]) & 0xc0) == 0x80) {
      --begin;
    }
    while (end < text.size() &&
           (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) {
      ++end;
    }
  }
  std::string out = begin > 0 ? "'..." : "'";
  for (size_t i = begin; i < end;) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t n = Utf8Length(text, i);
    if (n == 0 || b < 0x20 || b == 0x7f) {
      out += Cat("\\x", std::string(1, "0123456789abcdef"[b >> 4]),
                 std::string(1, "0123456789abcdef"[b & 0xf]));
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  out += end < text.size() ? "...'" : "'";
  return out;
}

std::string At(const ParseContext& ctx, size_t offset) {
  return Cat(" at offset ", offset, " in ", Quote(ctx.input, offset));
}

std::string AtPrefix(const ParseContext& ctx, size_t offset) {
  return Cat("at offset ", offset, " in ", Quote(ctx.input, offset), ": ");
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
