// main.cc: the `perfcounters` command: parses the command line with CLI11
// and runs a subcommand (commands.h).
#include <cstdio>
#include <string>

#include "CLI/CLI.hpp"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace perfcounters::tools;
  CLI::App app{
      "perfcounters: hardware performance counters for C++ microbenchmarks"};
  app.require_subcommand(1);

  CompareArgs compare;
  CLI::App* cmp = app.add_subcommand(
      "compare",
      "Compare two Google Benchmark JSON files: times, every counter, IPC");
  cmp->add_option("BASE", compare.base, "baseline JSON file")->required();
  cmp->add_option("NEW", compare.next, "new JSON file")->required();
  cmp->add_option("--fail-on", compare.gates,
                  "gate that fails the run, e.g. 'IPC<-2%' (repeatable)");
  cmp->add_option("--filter", compare.filter,
                  "only benchmarks whose name matches this regex");
  cmp->add_option("--format", compare.format, "table, markdown or json")
      ->capture_default_str();
  cmp->add_option("--color", compare.color, "auto, always or never")
      ->capture_default_str();
  cmp->add_flag("--fail-on-missing", compare.fail_on_missing,
                "also fail when a gate cannot be evaluated on a benchmark "
                "(metric absent or not counted, benchmark on one side only)");
  cmp->footer(kGateHelp);

  ReportArgs report;
  CLI::App* rep = app.add_subcommand(
      "report",
      "Write one self-contained HTML page with SVG charts of time and every "
      "counter per benchmark across runs");
  rep->add_option("RUN", report.runs, "Google Benchmark JSON files, in order")
      ->required();
  rep->add_option("-o,--output", report.output, "the HTML file to write")
      ->required();
  rep->add_option("--title", report.title, "page title")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (cmp->parsed()) return RunCompare(compare);
  if (rep->parsed()) return RunReport(report);
  return kExitUsage;
}
