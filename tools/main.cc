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
                  "only benchmarks whose name matches this regex (RE2 syntax)");
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

  ListArgs list;
  CLI::App* lst = app.add_subcommand(
      "list", "List every event known here, each tried: available, or why not");
  lst->add_option("PATTERN", list.pattern,
                  "substring, or glob with * ? [ ] (case-insensitive)");
  lst->add_flag("--json", list.json, "JSON output");
  lst->add_flag("--tracepoints", list.tracepoints,
                "also list (and try) every tracepoint");
  lst->add_flag("--vendor", list.vendor,
                "only the vendor events (libpfm4's table for this CPU), "
                "with descriptions and umasks");
  lst->add_option("--table", list.table,
                  "list this libpfm4 table's vendor events instead "
                  "(e.g. skl, icl, amd64_fam19h_zen3)");

  EncodeArgs encode;
  CLI::App* enc = app.add_subcommand(
      "encode", "Print the perf_event_attr each event opens, as perf stat -vv");
  enc->add_option("EVENT", encode.events, "events in perf's -e grammar")
      ->required();
  enc->add_option("--table", encode.table,
                  "resolve vendor names with this libpfm4 table (e.g. skl)");

  StatArgs stat;
  CLI::App* st = app.add_subcommand(
      "stat", "Count a command like perf stat (children included)");
  st->add_option("-e,--events", stat.events, "events in perf's -e grammar")
      ->capture_default_str();
  st->add_option("-r,--repeat", stat.repeat,
                 "run the command N times; mean and spread")
      ->capture_default_str();
  st->add_option("-x,--field-separator", stat.separator,
                 "CSV-like output with this separator (as perf -x)");
  st->add_flag("--json", stat.json, "JSON output");
  st->add_option("COMMAND", stat.command, "the command and its arguments")
      ->required();
  st->prefix_command();
  st->footer(
      "Counts go to stderr (as perf stat). Exit code: the command's; 2 when "
      "it cannot be executed or the arguments are bad.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (cmp->parsed()) return RunCompare(compare);
  if (rep->parsed()) return RunReport(report);
  if (lst->parsed()) return RunList(list);
  if (enc->parsed()) return RunEncode(encode);
  if (st->parsed()) {
    if (stat.json && !stat.separator.empty()) {
      std::fprintf(stderr,
                   "perfcounters stat: -x and --json exclude each other\n");
      return kExitUsage;
    }
    return RunStat(stat);
  }
  return kExitUsage;
}
