// history_commands.h: `perfcounters history add|check|changes|export` and
// `report --db`'s trend page, wired into main.cc's CLI11 application.
#ifndef PERFCOUNTERS_TOOLS_HISTORY_COMMANDS_H_
#define PERFCOUNTERS_TOOLS_HISTORY_COMMANDS_H_

#include <functional>
#include <optional>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace perfcounters::tools {

// Adds the `history` subcommand to `app`. The returned function, called
// after parsing, runs the history subcommand that was given and returns
// its exit code, or nullopt when none was.
std::function<std::optional<int>()> AddHistoryCommands(CLI::App& app);

// `perfcounters report --db DB [--benchmark REGEX] -o FILE`: the trend
// charts of the store, one self-contained page (report_trends.cc).
int RunReportTrends(const std::string& db, const std::string& benchmark,
                    const std::string& output, const std::string& title);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_COMMANDS_H_
