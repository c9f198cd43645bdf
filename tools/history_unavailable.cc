// history_unavailable.cc: `perfcounters history` and `report --db` in a
// command built without the history store (PERFCOUNTERS_WITH_HISTORY=OFF,
// or libsqlite3/libpq not found when it was configured; tools/CMakeLists.txt
// builds this file instead of history_commands.cc): each says what was left
// out and why, and exits with kExitUsage.
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "commands.h"
#include "report_trends.h"

#ifndef PERFCOUNTERS_HISTORY_LEFT_OUT
#error "PERFCOUNTERS_HISTORY_LEFT_OUT (why) is defined by tools/CMakeLists.txt"
#endif

namespace perfcounters::tools {
namespace {

int LeftOut(const char* what) {
  std::fprintf(stderr,
               "perfcounters %s: not available: this perfcounters was built "
               "without the history store (SQLite, PostgreSQL), because %s; "
               "list, encode, stat, compare and report work. Rebuild with "
               "libsqlite3-dev and libpq-dev installed and "
               "-DPERFCOUNTERS_WITH_HISTORY=ON for it.\n",
               what, PERFCOUNTERS_HISTORY_LEFT_OUT);
  return kExitUsage;
}

}  // namespace

Command AddHistoryCommands(CLI::App& app) {
  CLI::App* history =
      app.add_subcommand("history",
                         "A results store of runs (not in this "
                         "build: " PERFCOUNTERS_HISTORY_LEFT_OUT ")");
  // Whatever follows is what the user meant for the store: taken, unread.
  history->allow_extras();
  history->prefix_command();
  return WhenGiven(history, [] { return LeftOut("history"); });
}

int RunReportTrends(const TrendsArgs&) { return LeftOut("report --db"); }

}  // namespace perfcounters::tools
