// commands.h: the subcommands of the `perfcounters` command, each a function
// from parsed arguments to an exit code. main.cc parses the command line
// (CLI11) and calls these.
#ifndef PERFCOUNTERS_TOOLS_COMMANDS_H_
#define PERFCOUNTERS_TOOLS_COMMANDS_H_

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
};
int RunCompare(const CompareArgs& args);

// Arguments of `perfcounters report`.
struct ReportArgs {
  std::vector<std::string> runs;
  std::string output;
  std::string title = "perfcounters report";
};
int RunReport(const ReportArgs& args);

// The help text that lists the gate syntax (shown by `compare --help`).
extern const char kGateHelp[];

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMMANDS_H_
