// events_commands.cc: `perfcounters list` and `perfcounters encode`, over the
// core library's grammar, generic event tables, sysfs PMUs and encoder.
#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "nlohmann/json.hpp"
#include "perfcounters/encode.h"
#include "perfcounters/event.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/grammar.h"
#include "perfcounters/pmu.h"
#include "perfcounters/tracepoint.h"

namespace perfcounters::tools {
namespace {

// One event `list` knows and tried.
struct Listed {
  std::string name;  // what to type (-e NAME)
  std::string kind;  // "hardware", "software", "hw-cache", PMU name, ...
  std::string unit;
  double scale = 1.0;
  bool available = false;
  std::string reason;  // why not, when !available
};

bool Matches(const std::string& name, const std::string& pattern) {
  if (pattern.empty()) return true;
  if (pattern.find_first_of("*?[") != std::string::npos) {
    return fnmatch(pattern.c_str(), name.c_str(), FNM_CASEFOLD) == 0;
  }
  return absl::StrContains(absl::AsciiStrToLower(name),
                           absl::AsciiStrToLower(pattern));
}

// Parses (against `options`' catalog) and opens `name` for the calling
// thread, then closes it.
void Try(Listed& e, const ParseOptions& options) {
  absl::StatusOr<EventSpec> spec = ParseEvent(e.name, options);
  if (!spec.ok()) {
    e.reason = std::string(spec.status().message());
    return;
  }
  absl::StatusOr<Event> event = Event::Open(*spec);
  if (!event.ok()) {
    e.reason = std::string(event.status().message());
    return;
  }
  e.available = true;
}

}  // namespace

int RunList(const ListArgs& args) {
  if (!ChooseVendorTable(args.table, "list")) return kExitUsage;
  if (args.vendor) return PrintVendorEvents(args, /*section=*/false);
  // Every listed name is parsed: read sysfs and tracefs once for all of them.
  ParseOptions options;
  options.catalog = EventCatalog::Create();
  const EventCatalog& catalog = *options.catalog;
  std::vector<Listed> events;
  auto add = [&](std::string name, std::string kind, std::string unit = "",
                 double scale = 1.0) {
    if (!Matches(name, args.pattern)) return;
    events.push_back(Listed{std::move(name), std::move(kind), std::move(unit),
                            scale, false, ""});
  };
  for (const GenericEvent& g : HardwareEvents()) {
    add(std::string(g.symbol), "hardware");
  }
  for (const GenericEvent& g : SoftwareEvents()) {
    add(std::string(g.symbol), "software");
  }
  for (const HwCacheEvent& c : AllHwCacheEvents()) {
    add(c.CanonicalName(), "hw-cache");
  }
  if (absl::StatusOr<std::vector<std::string>> pmus = catalog.ListPmus();
      pmus.ok()) {
    for (const std::string& name : *pmus) {
      absl::StatusOr<std::shared_ptr<const Pmu>> pmu = catalog.LoadPmu(name);
      if (!pmu.ok()) continue;
      for (const PmuAlias& a : (*pmu)->aliases) {
        add(absl::StrCat(name, "/", a.name, "/"), name, a.unit, a.scale);
      }
    }
  }
  if (args.tracepoints) {
    if (auto cats = catalog.ListTracepointCategories(); cats.ok()) {
      for (const std::string& cat : *cats) {
        auto tps = catalog.ListTracepoints(cat);
        if (!tps.ok()) continue;
        for (const std::string& tp : *tps) {
          add(absl::StrCat(cat, ":", tp), "tracepoint");
        }
      }
    } else {
      std::fprintf(stderr, "perfcounters list: no tracepoints: %s\n",
                   std::string(cats.status().message()).c_str());
    }
  }
  // Each event is opened and closed. Closing a tracepoint event waits for
  // the kernel to unregister its probe (44 ms measured on a 6.18 kernel,
  // serialized under the kernel's event_mutex: threads do not help), so
  // `list --tracepoints` of all 2,362 tracepoints takes about 80 s; a
  // PATTERN ('sched:*') keeps it short.
  for (Listed& e : events) Try(e, options);

  if (args.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Listed& e : events) {
      nlohmann::ordered_json j;
      j["name"] = e.name;
      j["kind"] = e.kind;
      if (!e.unit.empty()) j["unit"] = e.unit;
      if (e.scale != 1.0) j["scale"] = e.scale;
      j["available"] = e.available;
      if (!e.available) j["reason"] = e.reason;
      out.push_back(std::move(j));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  size_t width = 0;
  for (const Listed& e : events) width = std::max(width, e.name.size());
  for (const Listed& e : events) {
    std::string line = absl::StrFormat("%-*s  %-10s  ", width, e.name, e.kind);
    if (e.available) {
      line += "available";
    } else {
      absl::StrAppend(&line, "unavailable: ", e.reason);
    }
    if (!e.unit.empty() || e.scale != 1.0) {
      absl::StrAppendFormat(&line, "  [scale %g %s]", e.scale, e.unit);
    }
    std::printf("%s\n", line.c_str());
  }
  std::fflush(stdout);
  return PrintVendorEvents(args, /*section=*/true);
}

int RunEncode(const EncodeArgs& args) {
  if (!ChooseVendorTable(args.table, "encode")) return kExitUsage;
  std::string out;
  for (const std::string& text : args.events) {
    absl::StatusOr<std::vector<GroupSpec>> groups = ParseEventList(text);
    if (!groups.ok()) {
      std::fprintf(stderr, "perfcounters encode: '%s': %s\n", text.c_str(),
                   std::string(groups.status().message()).c_str());
      return kExitUsage;
    }
    for (const GroupSpec& g : *groups) {
      for (const EventSpec& e : g.events) {
        absl::StrAppend(
            &out, "# ", e.label,
            e.text != e.label ? absl::StrCat(" (", e.text, ")") : "",
            g.user_group ? "  [group member]" : "",
            e.vendor_table.empty()
                ? ""
                : absl::StrCat("  [libpfm4 table ", e.vendor_table, "]"),
            "\n", EncodeAttr(e.attr));
        if (!out.empty() && out.back() != '\n') out += '\n';
      }
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace perfcounters::tools
