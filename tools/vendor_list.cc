// vendor_list.cc: the vendor-event part of `perfcounters list` (libpfm4's
// table for this CPU: events, descriptions, umasks), and the choice of
// another model's table for `list` and `encode` (--table).

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commands.h"
#include "list_command.h"
#include "nlohmann/json.hpp"
#include "perfcounters/vendor_events.h"

namespace perfcounters::tools {
namespace {

// The event with only the umasks the pattern selects: all of them when
// the event's name or description matches, else those whose EVENT:UMASK,
// event.umask or description matches. False when nothing matches.
bool Select(const VendorEventInfo& e, const std::string& pattern,
            VendorEventInfo& out) {
  out = e;
  if (MatchesListPattern(e.name, pattern) ||
      MatchesListPattern(e.description, pattern)) {
    return true;
  }
  out.umasks.clear();
  for (const VendorUmask& u : e.umasks) {
    if (u.is_modifier) continue;
    if (MatchesListPattern(absl::StrCat(e.name, ":", u.name), pattern) ||
        MatchesListPattern(absl::StrCat(e.name, ".", u.name), pattern) ||
        MatchesListPattern(u.description, pattern)) {
      out.umasks.push_back(u);
    }
  }
  return !out.umasks.empty();
}

}  // namespace

bool ChooseVendorTable(const std::string& table, const char* command) {
  if (table.empty()) return true;
  absl::Status status = UseVendorTable(table);
  if (!status.ok()) {
    std::fprintf(stderr, "perfcounters %s: --table %s: %s\n", command,
                 table.c_str(), std::string(status.message()).c_str());
  }
  return status.ok();
}

int PrintVendorEvents(const ListArgs& args, bool section) {
  // perf's JSON list stays one array; vendor events in JSON: --vendor.
  if (section && args.json) return kExitOk;
  absl::StatusOr<std::vector<VendorEventInfo>> events = ListVendorEvents();
  absl::StatusOr<std::vector<std::string>> tables = VendorTables();
  if (!events.ok() || !tables.ok()) {
    const absl::Status& s = events.ok() ? tables.status() : events.status();
    if (section) {
      std::printf("\nvendor events: %s\n", std::string(s.message()).c_str());
      return kExitOk;
    }
    std::fprintf(stderr, "perfcounters list: %s\n",
                 std::string(s.message()).c_str());
    return kExitUsage;
  }
  std::vector<VendorEventInfo> shown;
  for (const VendorEventInfo& e : *events) {
    VendorEventInfo selected;
    if (Select(e, args.pattern, selected)) shown.push_back(std::move(selected));
  }
  if (args.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const VendorEventInfo& e : shown) {
      nlohmann::ordered_json j;
      j["name"] = e.name;
      j["table"] = e.table;
      j["code"] = absl::StrFormat("0x%x", e.code);
      j["description"] = e.description;
      nlohmann::ordered_json umasks = nlohmann::ordered_json::array();
      nlohmann::ordered_json modifiers = nlohmann::ordered_json::array();
      for (const VendorUmask& u : e.umasks) {
        nlohmann::ordered_json ju;
        ju["name"] = u.name;
        if (!u.is_modifier) ju["code"] = absl::StrFormat("0x%x", u.code);
        if (u.is_default) ju["default"] = true;
        ju["description"] = u.description;
        (u.is_modifier ? modifiers : umasks).push_back(std::move(ju));
      }
      j["umasks"] = std::move(umasks);
      j["modifiers"] = std::move(modifiers);
      out.push_back(std::move(j));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::string text;
  if (section) text = "\n";
  absl::StrAppend(&text, "vendor events (libpfm4 table",
                  tables->size() == 1 ? " " : "s ",
                  tables->empty() ? "none: libpfm4 knows no table for this CPU"
                                  : absl::StrJoin(*tables, ", "),
                  "); write EVENT:UMASK, table::EVENT:UMASK or event.umask, "
                  "modifiers after ':'\n");
  for (const VendorEventInfo& e : shown) {
    absl::StrAppendFormat(&text, "%s::%s  [0x%x]  %s\n", e.table, e.name,
                          e.code, e.description);
    std::vector<std::string> modifiers;
    for (const VendorUmask& u : e.umasks) {
      if (u.is_modifier) {
        modifiers.push_back(u.name);
        continue;
      }
      absl::StrAppendFormat(&text, "    :%s  [0x%x]%s  %s\n", u.name, u.code,
                            u.is_default ? " (default)" : "", u.description);
    }
    if (!modifiers.empty()) {
      absl::StrAppend(&text, "    modifiers: ", absl::StrJoin(modifiers, " "),
                      "\n");
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace perfcounters::tools
