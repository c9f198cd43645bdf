// commands.h: the subcommands of the `perfcounters` command. Each
// *_command.cc adds its own CLI11 subcommand and options to the application
// (Add*Command) and returns a Command; RunCommandLine (command_line.cc)
// parses the command line and runs the one that was given.
#ifndef PERFCOUNTERS_TOOLS_COMMANDS_H_
#define PERFCOUNTERS_TOOLS_COMMANDS_H_

#include <functional>
#include <optional>

namespace CLI {
class App;
}  // namespace CLI

namespace perfcounters::tools {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
// compare, report, history check: a gate was violated.
inline constexpr int kExitGateViolated = 1;
// Bad usage or unreadable input (every subcommand).
inline constexpr int kExitUsage = 2;

// Called after the command line is parsed: runs the subcommand when it was
// the one given and returns its exit code; nullopt when it was not given.
using Command = std::function<std::optional<int>()>;

// The Command of `subcommand`: `run` when it was the one given.
Command WhenGiven(const CLI::App* subcommand, std::function<int()> run);

// compare_command.cc: `compare BASE.json NEW.json`.
Command AddCompareCommand(CLI::App& app);
// report_command.cc: `report RUN.json... -o FILE` (or --db DB).
Command AddReportCommand(CLI::App& app);
// list_command.cc: `list [PATTERN]`.
Command AddListCommand(CLI::App& app);
// encode_command.cc: `encode EVENT...`.
Command AddEncodeCommand(CLI::App& app);
// stat_command.cc: `stat OPTIONS [--] COMMAND...`. The options end at the
// first argument that is not one (or at "--"), as perf stat reads its
// command line: `*argc` is cut to the arguments CLI11 is to parse, and the
// rest becomes the command to run.
Command AddStatCommand(CLI::App& app, int* argc, char** argv);
// ab_command.cc: `ab BASE NEW [-- gbench flags]`.
Command AddAbCommand(CLI::App& app);
// history_commands.cc: `history add|check|changes|export`.
Command AddHistoryCommands(CLI::App& app);

// command_line.cc: the whole command (main.cc's): parses `argv` and runs
// the subcommand given; returns the process's exit code.
int RunCommandLine(int argc, char** argv);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMMANDS_H_
