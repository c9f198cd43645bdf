// unavailable_context.cc: writing and reading the `perfcounters.unavailable`
// context entry (see unavailable_context.h).
#include "perfcounters/internal/unavailable_context.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace perfcounters {
namespace {

// Appends `text`, a backslash before itself and before the first character
// of each of `separators` (two-character sequences).
void AppendEscaped(std::string& out, std::string_view text,
                   std::initializer_list<std::string_view> separators) {
  for (size_t i = 0; i < text.size(); ++i) {
    bool escape = text[i] == '\\';
    for (std::string_view sep : separators) {
      escape |= text.substr(i, sep.size()) == sep;
    }
    if (escape) out += '\\';
    out += text[i];
  }
}

}  // namespace

std::string FormatUnavailableContext(
    const std::vector<UnavailableGroup>& groups) {
  std::string out;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) out += "; ";
    const UnavailableGroup& group = groups[g];
    for (size_t k = 0; k < group.keys.size(); ++k) {
      if (k > 0) out += ", ";
      AppendEscaped(out, group.keys[k], {"; ", ", ", ": "});
    }
    out += ": ";
    AppendEscaped(out, group.reason, {"; "});
  }
  return out;
}

std::vector<UnavailableGroup> ParseUnavailableContext(std::string_view text) {
  std::vector<UnavailableGroup> groups;
  if (text.empty()) return groups;
  UnavailableGroup group;
  std::string current;
  bool in_reason = false;
  auto finish_key = [&] {
    group.keys.push_back(std::move(current));
    current.clear();
  };
  auto finish_group = [&] {
    if (in_reason) {
      group.reason = std::move(current);
    } else {
      finish_key();
    }
    current.clear();
    groups.push_back(std::move(group));
    group = UnavailableGroup();
    in_reason = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '\\' && i + 1 < text.size()) {
      current += next;
      ++i;
    } else if (c == ';' && next == ' ') {
      finish_group();
      ++i;
    } else if (!in_reason && c == ',' && next == ' ') {
      finish_key();
      ++i;
    } else if (!in_reason && c == ':' && next == ' ') {
      finish_key();
      in_reason = true;
      ++i;
    } else {
      current += c;
    }
  }
  finish_group();
  return groups;
}

}  // namespace perfcounters
