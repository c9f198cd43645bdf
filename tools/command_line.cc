// command_line.cc: the `perfcounters` command line (commands.h's
// RunCommandLine): each subcommand adds itself to one CLI11 application;
// the command line is parsed and the subcommand given runs.
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <vector>

#include "CLI/CLI.hpp"
#include "commands.h"
#include "input_text.h"

namespace perfcounters::tools {

int RunCommandLine(int argc, char** argv) {
  CLI::App app{
      "perfcounters: hardware performance counters for C++ microbenchmarks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perfcounters " PERFCOUNTERS_VERSION);

  int cli_argc = argc;
  const std::vector<Command> commands = {AddCompareCommand(app),
                                         AddReportCommand(app),
                                         AddListCommand(app),
                                         AddEncodeCommand(app),
                                         AddStatCommand(app, &cli_argc, argv),
                                         AddHistoryCommands(app),
                                         AddAbCommand(app)};
  try {
    app.parse(cli_argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  // Running out of memory anywhere (a huge input, a low ulimit -v) is an
  // error like any other, never an abort.
  try {
    for (const Command& command : commands) {
      if (const std::optional<int> code = command()) return *code;
    }
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "perfcounters: out of memory; free memory or raise the "
                 "limit (ulimit -v), or give smaller inputs\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perfcounters: cannot continue: %s\n",
                 EscapeControlBytes(e.what()).substr(0, 200).c_str());
  }
  return kExitUsage;
}

}  // namespace perfcounters::tools
