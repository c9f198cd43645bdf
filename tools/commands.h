// commands.h: the subcommands of the `perfcounters` command, each a function
// from parsed arguments to an exit code. main.cc parses the command line
// (CLI11) and calls these.
#ifndef PERFCOUNTERS_TOOLS_COMMANDS_H_
#define PERFCOUNTERS_TOOLS_COMMANDS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace perfcounters::tools {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
// compare: a gate was violated.
inline constexpr int kExitGateViolated = 1;
// Bad usage or unreadable input (every subcommand).
inline constexpr int kExitUsage = 2;

// Arguments of `perfcounters compare`.
struct CompareArgs {
  std::string base;
  std::string next;
  std::vector<std::string> gates;
  std::string filter;
  std::string format = "table";
  std::string color = "auto";
  bool fail_on_missing = false;
  bool allow_unchecked = false;
  double alpha = 0.05;
  bool only_changed = false;
  size_t max_rows = 0;
  // Empty: standard output.
  std::string output;
  double max_input_mb = 512;
};
int RunCompare(const CompareArgs& args);

// Arguments of `perfcounters report`.
struct ReportArgs {
  std::vector<std::string> runs;
  // Instead of runs: the trend charts of this history store.
  std::string db;
  std::string benchmark;
  std::string output;
  std::string title = "perfcounters report";
  // Gates on the first vs the last run, shown at the top of the page.
  std::vector<std::string> gates;
  double alpha = 0.05;
  bool fail_on_missing = false;
  bool allow_unchecked = false;
  double max_input_mb = 512;
};
int RunReport(const ReportArgs& args);

// Arguments of `perfcounters list`.
struct ListArgs {
  std::string pattern;
  bool json = false;
  bool tracepoints = false;        // list tracepoints (from tracefs)
  bool check_tracepoints = false;  // and open each (slow: tens of ms each)
  // Only the vendor events (libpfm4's table for this CPU).
  bool vendor = false;
  // Use this libpfm4 table instead of the detected one (e.g. "icl").
  std::string table;
};
int RunList(const ListArgs& args);
// `list`'s PATTERN against one text: a case-insensitive substring, or a glob
// with * ? [ ] (FNM_CASEFOLD); an empty pattern matches everything.
bool MatchesListPattern(const std::string& text, const std::string& pattern);

// vendor_list.cc: the vendor events of `list` (a text section after perf's
// events, or alone, also as JSON, when `section` is false), and --table for
// list/encode (false after printing why the table cannot be used).
int PrintVendorEvents(const ListArgs& args, bool section);
bool ChooseVendorTable(const std::string& table, const char* command);

// Arguments of `perfcounters encode`.
struct EncodeArgs {
  std::vector<std::string> events;
  // Resolve vendor names with this libpfm4 table (e.g. "skl").
  std::string table;
};
int RunEncode(const EncodeArgs& args);

// Arguments of `perfcounters stat`.
struct StatArgs {
  std::string events =
      "task-clock,context-switches,cpu-migrations,page-faults,cycles,"
      "instructions,branches,branch-misses";
  int repeat = 1;
  std::string separator;
  bool json = false;        // one JSON object (stdout, or -o)
  bool json_lines = false;  // perf's -j: a JSON object per event
  std::string output;       // -o FILE: the counts go there
  std::vector<std::string> command;
};
int RunStat(const StatArgs& args);

// The help text that lists the gate syntax (shown by `compare --help`).
extern const char kGateHelp[];

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMMANDS_H_
