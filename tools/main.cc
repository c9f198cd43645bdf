// main.cc: the `perfcounters` command: parses the command line with CLI11
// and runs a subcommand (commands.h).
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "commands.h"
#include "gbench_json.h"
#include "history_commands.h"

namespace {

// `perfcounters stat OPTIONS [--] COMMAND...`: the options end at the first
// argument that is not an option (or at "--"); everything from there on is
// the command's, as perf stat reads its command line. Returns how many of
// argv's arguments CLI11 gets; the command goes to `command`.
int SplitStatCommandLine(int argc, char** argv,
                         std::vector<std::string>& command) {
  if (argc < 2 || std::strcmp(argv[1], "stat") != 0) return argc;
  constexpr std::string_view kShortWithValue = "erxo";
  const std::vector<std::string_view> long_with_value = {
      "--events", "--repeat", "--field-separator", "--output"};
  int i = 2;
  while (i < argc) {
    const std::string_view a = argv[i];
    if (a == "--") {
      for (int j = i + 1; j < argc; ++j) command.emplace_back(argv[j]);
      return i;
    }
    if (a.size() < 2 || a[0] != '-') break;  // the command
    if (a[1] == '-') {
      bool takes_value = false;
      for (std::string_view name : long_with_value) takes_value |= a == name;
      i += takes_value ? 2 : 1;
    } else {
      // -e LIST, -eLIST, -x, (a value) or a flag such as -j.
      i += kShortWithValue.find(a[1]) != std::string_view::npos && a.size() == 2
               ? 2
               : 1;
    }
  }
  if (i > argc) return argc;  // a value is missing: CLI11 says so
  for (int j = i; j < argc; ++j) command.emplace_back(argv[j]);
  return i;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace perfcounters::tools;
  CLI::App app{
      "perfcounters: hardware performance counters for C++ microbenchmarks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "perfcounters " PERFCOUNTERS_VERSION);

  CompareArgs compare;
  CLI::App* cmp = app.add_subcommand(
      "compare",
      "Compare two Google Benchmark JSON files: times, every counter, "
      "derived metrics (IPC, cpi, miss rates, ...)");
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
  cmp->add_flag("--allow-unchecked-gates", compare.allow_unchecked,
                "accept a gate that checked nothing (otherwise exit 2)");
  cmp->add_option("--alpha", compare.alpha,
                  "significance level of the U test a relative gate's "
                  "change must also pass (with repetitions)")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  cmp->add_flag("--only-changed", compare.only_changed,
                "table and markdown: only significant changes of >= 1 % "
                "(0.1 % for exact counters) and gate violations");
  cmp->add_option("--max-rows", compare.max_rows,
                  "table and markdown: at most N rows (0: no limit)")
      ->capture_default_str();
  cmp->add_option("-o,--output", compare.output,
                  "write the output to this file (replaced whole, never an "
                  "input; - is stdout)");
  cmp->add_option("--max-input-mb", compare.max_input_mb,
                  "refuse input files larger than this")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1e6));
  cmp->footer(kGateHelp);

  ReportArgs report;
  CLI::App* rep = app.add_subcommand(
      "report",
      "Write one self-contained HTML page with SVG charts of time and every "
      "counter per benchmark across runs");
  rep->add_option("RUN", report.runs, "Google Benchmark JSON files, in order");
  rep->add_option("--db", report.db,
                  "instead of RUNs: trend charts of this history store "
                  "(file or postgresql:// URL)");
  rep->add_option("--benchmark", report.benchmark,
                  "with --db: only benchmarks matching this regex");
  rep->add_option("-o,--output", report.output,
                  "the HTML file to write (replaced whole, never an input; - "
                  "is stdout)")
      ->required();
  rep->add_option("--title", report.title, "page title")->capture_default_str();
  rep->add_option("--fail-on", report.gates,
                  "gate on the first vs the last run, as compare's; the "
                  "results head the page and set the exit code (repeatable)");
  rep->add_option("--alpha", report.alpha,
                  "significance level (U test) for gates and changes")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  rep->add_flag("--fail-on-missing", report.fail_on_missing,
                "as compare --fail-on-missing");
  rep->add_flag("--allow-unchecked-gates", report.allow_unchecked,
                "as compare --allow-unchecked-gates");
  rep->add_option("--max-input-mb", report.max_input_mb,
                  "refuse input files larger than this")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1e6));

  ListArgs list;
  CLI::App* lst = app.add_subcommand(
      "list",
      "List every event known here, each tried: available, or why not "
      "(tracepoints only with --check)");
  lst->add_option("PATTERN", list.pattern,
                  "substring, or glob with * ? [ ] (case-insensitive), matched "
                  "against names, aliases and descriptions");
  lst->add_flag("--json", list.json, "JSON output");
  lst->add_flag("--tracepoints", list.tracepoints,
                "also list every tracepoint (from tracefs, not opened)");
  lst->add_flag("--check", list.check_tracepoints,
                "list the tracepoints and open each, with progress on stderr "
                "(slow: the kernel takes tens of ms to close one)");
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
  st->add_flag("-j,--json-output", stat.json_lines,
               "perf's JSON lines: one JSON object per event");
  st->add_flag("--json", stat.json,
               "one JSON object, on stdout after the command has finished");
  st->add_option("-o,--output", stat.output,
                 "write the counts to this file (as perf -o)");
  st->footer(
      "Usage: perfcounters stat [OPTIONS] [--] COMMAND [ARGS...]. Options end "
      "at the first argument that is not one: the rest is the "
      "command's. Counts go to stderr (as perf stat), --json to stdout, -o "
      "FILE to FILE. Exit code: the command's (128+N when a signal killed "
      "it); 2 when it cannot be executed or the arguments are bad.");

  const auto history = perfcounters::tools::AddHistoryCommands(app);

  const int cli_argc = SplitStatCommandLine(argc, argv, stat.command);
  try {
    app.parse(cli_argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  // Running out of memory anywhere (a huge input, a low ulimit -v) is an
  // error like any other, never an abort.
  try {
    if (cmp->parsed()) return RunCompare(compare);
    if (rep->parsed()) return RunReport(report);
    if (const std::optional<int> code = history()) return *code;
    if (lst->parsed()) return RunList(list);
    if (enc->parsed()) return RunEncode(encode);
    if (st->parsed()) return RunStat(stat);
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
