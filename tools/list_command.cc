// list_command.cc: `perfcounters list`, over the core library's grammar,
// generic event tables, sysfs PMUs and tracefs (vendor events:
// vendor_list.cc).
#include "list_command.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "commands.h"
#include "input_text.h"
#include "nlohmann/json.hpp"
#include "perfcounters/event.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/grammar.h"
#include "perfcounters/pmu.h"
#include "perfcounters/tracepoint.h"

namespace perfcounters::tools {
namespace {

// One event `list` knows, and, when tried, whether it opened.
struct Listed {
  std::string name;   // what to type (-e NAME)
  std::string alias;  // perf's other name for it (cs), or empty
  std::string kind;   // "hardware", "software", "hw-cache", PMU name, ...
  std::string unit;
  double scale = 1.0;
  // Other names and a description: searched by PATTERN, not printed.
  std::vector<std::string> search;
  bool tried = false;
  bool available = false;
  std::string reason;  // why not, when tried and !available
};

Listed MakeListed(std::string name, std::string kind,
                  std::vector<std::string> search, std::string unit = "",
                  double scale = 1.0) {
  Listed e;
  e.name = std::move(name);
  e.kind = std::move(kind);
  e.search = std::move(search);
  e.unit = std::move(unit);
  e.scale = scale;
  return e;
}

// What perf's documentation says each generic event counts (searched by
// `list PATTERN`).
std::string_view Description(std::string_view kernel_name) {
  static constexpr std::pair<std::string_view, std::string_view> kText[] = {
      {"PERF_COUNT_HW_CPU_CYCLES", "CPU clock cycles"},
      {"PERF_COUNT_HW_INSTRUCTIONS", "retired instructions"},
      {"PERF_COUNT_HW_CACHE_REFERENCES", "last-level cache accesses"},
      {"PERF_COUNT_HW_CACHE_MISSES", "last-level cache misses"},
      {"PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "retired branch instructions"},
      {"PERF_COUNT_HW_BRANCH_MISSES", "mispredicted branch instructions"},
      {"PERF_COUNT_HW_BUS_CYCLES", "bus cycles"},
      {"PERF_COUNT_HW_STALLED_CYCLES_FRONTEND",
       "cycles stalled in the front end (instruction fetch and decode)"},
      {"PERF_COUNT_HW_STALLED_CYCLES_BACKEND",
       "cycles stalled in the back end (execution, memory)"},
      {"PERF_COUNT_HW_REF_CPU_CYCLES",
       "reference cycles, not scaled by frequency changes"},
      {"PERF_COUNT_SW_CPU_CLOCK", "CPU clock time (ns), a per-CPU timer"},
      {"PERF_COUNT_SW_TASK_CLOCK", "time (ns) the task ran on a CPU"},
      {"PERF_COUNT_SW_PAGE_FAULTS", "page faults"},
      {"PERF_COUNT_SW_CONTEXT_SWITCHES", "context switches of the task"},
      {"PERF_COUNT_SW_CPU_MIGRATIONS", "moves of the task to another CPU"},
      {"PERF_COUNT_SW_PAGE_FAULTS_MIN", "minor page faults (no disk I/O)"},
      {"PERF_COUNT_SW_PAGE_FAULTS_MAJ", "major page faults (disk I/O)"},
      {"PERF_COUNT_SW_ALIGNMENT_FAULTS", "unaligned memory access faults"},
      {"PERF_COUNT_SW_EMULATION_FAULTS", "instructions emulated by the kernel"},
      {"PERF_COUNT_SW_DUMMY", "counts nothing (a placeholder)"},
      {"PERF_COUNT_SW_BPF_OUTPUT", "output of BPF programs"},
      {"PERF_COUNT_SW_CGROUP_SWITCHES", "context switches to another cgroup"},
  };
  for (const auto& [name, text] : kText) {
    if (name == kernel_name) return text;
  }
  return "";
}

// An error when PATTERN is not a well-formed glob (a '[' never closed).
absl::Status CheckPattern(const std::string& pattern) {
  const size_t open = UnclosedGlobBracket(pattern);
  if (open == std::string::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid pattern '", ShortForMessage(pattern), "': the '[' at offset ",
      open,
      " is never closed; a glob set is written [abc] or [a-z], and a "
      "pattern without * ? [ matches as a substring"));
}

// PATTERN against the name, the other names and the description.
bool Matches(const Listed& e, const std::string& pattern) {
  if (pattern.empty() || MatchesListPattern(e.name, pattern)) return true;
  for (const std::string& s : e.search) {
    if (MatchesListPattern(s, pattern)) return true;
  }
  return false;
}

// Parses (against `options`' catalog) and opens `name` for the calling
// thread, then closes it.
void Try(Listed& e, const ParseOptions& options) {
  e.tried = true;
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

// Case-insensitive substring, or glob with * ? [ ] (an empty pattern matches).
bool MatchesListPattern(const std::string& text, const std::string& pattern) {
  if (pattern.find_first_of("*?[") != std::string::npos) {
    return fnmatch(pattern.c_str(), text.c_str(), FNM_CASEFOLD) == 0;
  }
  return absl::StrContains(absl::AsciiStrToLower(text),
                           absl::AsciiStrToLower(pattern));
}

namespace {

// Every event that matches the pattern: the generic ones, the PMUs'
// aliases and, when asked for, the tracepoints.
std::vector<Listed> CollectListed(const ListArgs& args,
                                  const EventCatalog& catalog) {
  std::vector<Listed> events;
  auto add = [&](Listed e) {
    if (Matches(e, args.pattern)) events.push_back(std::move(e));
  };
  for (auto [table, kind] : {std::pair{HardwareEvents(), "hardware"},
                             std::pair{SoftwareEvents(), "software"}}) {
    for (const GenericEvent& g : table) {
      Listed e = MakeListed(std::string(g.symbol), kind,
                            {g.ListName(), std::string(g.kernel_name),
                             std::string(Description(g.kernel_name)),
                             absl::StrCat(kind, " event")});
      e.alias = std::string(g.alias);
      add(std::move(e));
    }
  }
  add(MakeListed("duration_time", "tool",
                 {"wall-clock time of the command (ns)", "tool event"}));
  for (const HwCacheEvent& c : AllHwCacheEvents()) {
    add(MakeListed(c.CanonicalName(), "hw-cache", {"hardware cache event"}));
  }
  if (absl::StatusOr<std::vector<std::string>> pmus = catalog.ListPmus();
      pmus.ok()) {
    for (const std::string& name : *pmus) {
      absl::StatusOr<std::shared_ptr<const Pmu>> pmu = catalog.LoadPmu(name);
      if (!pmu.ok()) continue;
      for (const PmuAlias& a : (*pmu)->aliases) {
        add(MakeListed(absl::StrCat(name, "/", a.name, "/"), name,
                       {a.terms_text}, a.unit, a.scale));
      }
    }
  }
  if (!args.tracepoints && !args.check_tracepoints) return events;
  // Listed from tracefs's directories: no event is opened (closing a
  // tracepoint event waits for the kernel to unregister its probe, 44 ms
  // each on a 6.18 kernel, serialized), unless --check asks for it.
  absl::StatusOr<std::vector<std::string>> cats =
      catalog.ListTracepointCategories();
  if (!cats.ok()) {
    std::fprintf(stderr, "perfcounters list: no tracepoints: %s\n",
                 std::string(cats.status().message()).c_str());
    return events;
  }
  for (const std::string& cat : *cats) {
    auto tps = catalog.ListTracepoints(cat);
    if (!tps.ok()) continue;
    for (const std::string& tp : *tps) {
      add(MakeListed(absl::StrCat(cat, ":", tp), "tracepoint",
                     {"tracepoint event"}));
    }
  }
  return events;
}

// Opens each listed event to say whether it is available (tracepoints only
// with --check), with progress on a terminal.
void TryListed(const ListArgs& args, const ParseOptions& options,
               std::vector<Listed>& events) {
  size_t to_check = 0;
  for (const Listed& e : events) {
    to_check += e.kind == "tracepoint" ? args.check_tracepoints : 0;
  }
  size_t checked = 0;
  const bool progress = to_check > 0 && isatty(STDERR_FILENO);
  for (Listed& e : events) {
    if (e.kind == "tracepoint") {
      if (!args.check_tracepoints) continue;
      ++checked;
      if (progress || checked == 1) {
        std::fprintf(stderr,
                     "perfcounters list: opening tracepoint %zu of %zu%s",
                     checked, to_check, progress ? "\r" : "...\n");
      }
    }
    if (e.kind == "tool") {
      e.tried = true;
      e.available = true;  // stat measures it; nothing to open
      continue;
    }
    Try(e, options);
  }
  if (progress) std::fprintf(stderr, "\n");
}

void PrintListedJson(const std::vector<Listed>& events) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Listed& e : events) {
    nlohmann::ordered_json j;
    j["name"] = e.name;
    if (!e.alias.empty()) j["alias"] = e.alias;
    j["kind"] = e.kind;
    if (!e.unit.empty()) j["unit"] = e.unit;
    if (e.scale != 1.0) j["scale"] = e.scale;
    if (e.tried) {
      j["available"] = e.available;
      if (!e.available) j["reason"] = e.reason;
    } else {
      j["checked"] = false;
    }
    out.push_back(std::move(j));
  }
  std::printf("%s\n", out.dump(2).c_str());
}

// The columns `list` keeps its lines within (a reason longer than that
// goes on indented lines of its own).
constexpr size_t kListColumns = 100;

// Whether `c` can be part of an event's name.
bool NameByte(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-' || c == ':' || c == '.';
}

// `text` with each whole-word `name` replaced by `with`.
std::string ReplaceName(const std::string& text, const std::string& name,
                        const std::string& with) {
  if (name.empty()) return text;
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at > 0 && NameByte(text[at - 1])) ||
        (end < text.size() && NameByte(text[end]))) {
      continue;
    }
    absl::StrAppend(&out, text.substr(from, at - from), with);
    from = end;
  }
  return out + text.substr(from);
}

// `text` broken at spaces so that no line passes kListColumns: the first
// line starts after `used` columns, the others after `indent`.
std::string Wrapped(const std::string& text, size_t used,
                    const std::string& indent) {
  std::string out;
  size_t column = used;
  bool first = true;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!first && column + 1 + word.size() > kListColumns) {
      absl::StrAppend(&out, "\n", indent);
      column = indent.size();
    } else if (!first) {
      out += ' ';
      ++column;
    }
    absl::StrAppend(&out, word);
    column += word.size();
    first = false;
  }
  return out;
}

// One line per event; events unavailable for a reason they share with
// others are grouped under that reason, said once (45 hardware events
// without a PMU: one reason, not 45 lines of it; a reason that names its
// event, "context-switches happens in the kernel", is shared as "the event
// happens in the kernel"). No line passes kListColumns. Tracepoints come
// first when they were asked for (`list --tracepoints | head` shows some).
void PrintListedText(std::vector<Listed> events, bool tracepoints_first) {
  if (tracepoints_first) {
    std::stable_partition(events.begin(), events.end(), [](const Listed& e) {
      return e.kind == "tracepoint";
    });
  }
  // As perf list: "context-switches OR cs".
  auto shown = [](const Listed& e) {
    return e.alias.empty() ? e.name : absl::StrCat(e.name, " OR ", e.alias);
  };
  // The reason without the event's own name before it ("cycles: not
  // supported ..." and "instructions: not supported ..." are one reason).
  // Its name elsewhere in it is "the event" when the reason is shared.
  std::vector<std::string> shared_as(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    Listed& e = events[i];
    for (const std::string& name : {e.name, e.alias}) {
      const std::string prefix = absl::StrCat(name, ": ");
      if (!name.empty() && absl::StartsWith(e.reason, prefix)) {
        e.reason = e.reason.substr(prefix.size());
      }
    }
    shared_as[i] = ReplaceName(ReplaceName(e.reason, e.name, "the event"),
                               e.alias, "the event");
  }
  absl::flat_hash_map<std::string, size_t> sharing;
  std::vector<std::string> reasons;  // shared ones, in order
  for (size_t i = 0; i < events.size(); ++i) {
    const Listed& e = events[i];
    if (e.tried && !e.available && sharing[shared_as[i]]++ == 1) {
      reasons.push_back(shared_as[i]);
    }
  }
  auto grouped = [&](size_t i) {
    return events[i].tried && !events[i].available && sharing[shared_as[i]] > 1;
  };
  size_t width = 0;
  for (const Listed& e : events) width = std::max(width, shown(e).size());
  std::string text;
  auto line = [&](size_t i, const std::string& indent) {
    const Listed& e = events[i];
    std::string one =
        absl::StrFormat("%s%-*s  %-10s", indent, width, shown(e), e.kind);
    if (!e.tried) {
      one += "  not checked (--check opens it)";
    } else if (e.available) {
      one += "  available";
    } else if (!grouped(i)) {
      const std::string why = absl::StrCat("unavailable: ", e.reason);
      absl::StrAppend(&one, "  ", Wrapped(why, one.size() + 2, "    "));
    }
    if (!e.unit.empty() || e.scale != 1.0) {
      absl::StrAppendFormat(&one, "  [scale %g %s]", e.scale, e.unit);
    }
    while (!one.empty() && one.back() == ' ') one.pop_back();
    absl::StrAppend(&text, one, "\n");
  };
  for (size_t i = 0; i < events.size(); ++i) {
    if (!grouped(i)) line(i, "");
  }
  for (const std::string& reason : reasons) {
    const std::string head =
        absl::StrCat("unavailable (", sharing[reason], " events):");
    absl::StrAppend(&text, "\n", head, " ",
                    Wrapped(reason, head.size() + 1, "    "), "\n");
    for (size_t i = 0; i < events.size(); ++i) {
      if (grouped(i) && shared_as[i] == reason) line(i, "  ");
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

int RunList(const ListArgs& args) {
  if (absl::Status s = CheckPattern(args.pattern); !s.ok()) {
    std::fprintf(stderr, "perfcounters list: %s\n",
                 std::string(s.message()).c_str());
    return kExitUsage;
  }
  if (!ChooseVendorTable(args.table, "list")) return kExitUsage;
  if (args.vendor) return PrintVendorEvents(args, /*section=*/false);
  // Every listed name is parsed: read sysfs and tracefs once for all of them.
  ParseOptions options;
  options.catalog = EventCatalog::Create();
  std::vector<Listed> events = CollectListed(args, *options.catalog);
  TryListed(args, options, events);
  if (args.json) {
    PrintListedJson(events);
    return kExitOk;
  }
  PrintListedText(std::move(events), args.tracepoints);
  return PrintVendorEvents(args, /*section=*/true);
}

}  // namespace

Command AddListCommand(CLI::App& app) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* lst = app.add_subcommand(
      "list",
      "List every event known here, each tried: available, or why not "
      "(tracepoints only with --check)");
  lst->add_option("PATTERN", args->pattern,
                  "substring, or glob with * ? [ ] (case-insensitive), matched "
                  "against names, aliases and descriptions");
  lst->add_flag("--json", args->json, "JSON output");
  lst->add_flag("--tracepoints", args->tracepoints,
                "also list every tracepoint (from tracefs, not opened)");
  lst->add_flag("--check", args->check_tracepoints,
                "list the tracepoints and open each, with progress on stderr "
                "(slow: the kernel takes tens of ms to close one)");
  lst->add_flag("--vendor", args->vendor,
                "only the vendor events (libpfm4's table for this CPU), "
                "with descriptions and umasks");
  lst->add_option("--table", args->table,
                  "list this libpfm4 table's vendor events instead "
                  "(e.g. skl, icl, amd64_fam19h_zen3)");
  return WhenGiven(lst, [args] { return RunList(*args); });
}

}  // namespace perfcounters::tools
