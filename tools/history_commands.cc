// history_commands.cc: the `perfcounters history` subcommands.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "changepoint_options.h"
#include "commands.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "counting_source.h"
#include "gate_options.h"
#include "history.h"
#include "history_check.h"
#include "history_env.h"
#include "history_export.h"
#include "history_fingerprints.h"
#include "nlohmann/json.hpp"
#include "output_file.h"
#include "perfcounters/internal/status_macros.h"
#include "verdict_notes.h"

namespace perfcounters::tools {
namespace {

struct HistoryArgs {
  std::string db;
  std::vector<std::string> runs;
  RunIdentity identity;
  std::vector<std::string> gates;
  std::string branch;
  std::string machine;
  std::string benchmark;
  std::string metric;
  std::string format = "table";
  std::string output;
  size_t window = 30;
  double alpha = 0.05;
  bool fail_on_missing = false;
  bool allow_unchecked = false;
  std::vector<std::string> allow_env_diff;
  ChangePointOptions cp;
};

int Fail(const char* command, absl::string_view message) {
  std::fprintf(stderr, "perfcounters history %s: %s\n", command,
               EscapeControlBytes(message).c_str());
  return kExitUsage;
}

int RunAdd(const HistoryArgs& a) {
  // The store is opened (and maybe created) once the first run is read: a
  // run that cannot be added leaves no new store behind.
  std::unique_ptr<HistoryStore> store;
  int code = kExitOk;
  for (const std::string& path : a.runs) {
    absl::StatusOr<std::string> text = ReadFileToString(path);
    if (!text.ok()) return Fail("add", text.status().message());
    absl::StatusOr<BenchmarkFile> file = ParseRunText(*text, path);
    if (!file.ok()) return Fail("add", file.status().message());
    if (store == nullptr) {
      absl::StatusOr<std::unique_ptr<HistoryStore>> opened =
          OpenHistoryStore(a.db, StoreAccess::kAdd);
      if (!opened.ok()) return Fail("add", opened.status().message());
      store = *std::move(opened);
    }
    absl::StatusOr<AddResult> r =
        AddParsedRun(*store, *text, *file, a.identity);
    if (!r.ok()) return Fail("add", r.status().message());
    if (r->already_stored) {
      std::fprintf(stderr,
                   "perfcounters history add: %s is stored already (run %lld); "
                   "not added again\n",
                   path.c_str(), static_cast<long long>(r->run_id));
      continue;
    }
    std::fprintf(stderr,
                 "perfcounters history add: %s: run %lld (machine %s, commit "
                 "%s, branch %s, %s): %zu values (%zu not counted), %zu "
                 "repetition values, %zu aggregate values\n",
                 path.c_str(), static_cast<long long>(r->run_id),
                 r->identity.machine.c_str(), r->identity.commit.c_str(),
                 r->identity.branch.c_str(), r->identity.time.c_str(),
                 r->points, r->not_counted, r->samples, r->aggregates);
  }
  return code;
}

bool ParseFormat(const char* command, const std::string& text, Format& f) {
  if (text == "table") {
    f = Format::kTable;
  } else if (text == "markdown" || text == "md") {
    f = Format::kMarkdown;
  } else if (text == "json") {
    f = Format::kJson;
  } else {
    Fail(command, absl::StrCat("--format '", text,
                               "' is unknown; use table, markdown or json"));
    return false;
  }
  return true;
}

int RunCheck(const HistoryArgs& a) {
  Format format;
  if (!ParseFormat("check", a.format, format)) return kExitUsage;
  absl::StatusOr<std::string> text = ReadFileToString(a.runs.front());
  if (!text.ok()) return Fail("check", text.status().message());
  absl::StatusOr<BenchmarkFile> file =
      ParseBenchmarkJson(*text, a.runs.front());
  if (!file.ok()) return Fail("check", file.status().message());
  PrintWarnings("history check", *file);
  absl::StatusOr<std::unique_ptr<HistoryStore>> store =
      OpenHistoryStore(a.db, StoreAccess::kRead);
  if (!store.ok()) return Fail("check", store.status().message());
  RunIdentity given;
  given.machine = a.machine;
  absl::StatusOr<RunIdentity> id = ResolveIdentity(*file, given);
  if (!id.ok()) return Fail("check", id.status().message());
  CheckOptions options;
  options.machine = id->machine;
  options.branch = a.branch.empty() ? BranchFromEnvironment() : a.branch;
  options.window = a.window;
  options.change_points = a.cp;
  if (absl::Status st = CheckAllowedFields(a.allow_env_diff, {&*file});
      !st.ok()) {
    return Fail("check", st.message());
  }
  // Only the gates' metrics need their history (a gate that does not
  // parse is reported by RunGates below, with the same names).
  const std::vector<std::string> known = CheckMetricNames(*file);
  for (const std::string& gate_text : a.gates) {
    if (absl::StatusOr<Gate> gate = ParseGate(gate_text, known); gate.ok()) {
      options.metrics.push_back(gate->metric);
    }
  }
  if (options.metrics.empty()) options.metrics.push_back(std::string());
  absl::StatusOr<RunFingerprints> prints =
      RunFingerprints::Read(**store, options.machine);
  if (!prints.ok()) return Fail("check", prints.status().message());
  options.fingerprints = &*prints;
  absl::StatusOr<Comparison> comparison =
      CompareWithHistory(**store, *file, RunDigest(*text), options);
  if (!comparison.ok()) return Fail("check", comparison.status().message());
  // No history of this machine: say which machines have one.
  absl::StatusOr<std::string> hint = MachineHint(**store, options);
  if (!hint.ok()) return Fail("check", hint.status().message());
  if (!hint->empty()) {
    comparison->base_source += absl::StrCat(": ", *hint);
    std::fprintf(stderr, "perfcounters history check: note: %s\n",
                 EscapeControlBytes(*hint).c_str());
  }
  std::optional<std::vector<GateResult>> results =
      RunGates("history check", a.gates, *comparison,
               {.alpha = a.alpha,
                .fail_on_missing = a.fail_on_missing,
                .allow_unchecked = a.allow_unchecked});
  if (!results) return kExitUsage;
  // The environment diff against the latest run of the history (env_diff.h).
  absl::StatusOr<std::optional<BenchmarkFile>> latest = LatestRunContext(
      **store, options.machine, options.branch, RunDigest(*text));
  if (!latest.ok()) return Fail("check", latest.status().message());
  VerdictNotes notes;
  if (*latest) notes = CheckVerdict(**latest, *file, nullptr, a.alpha);
  ApplyToGates("history check", notes, a.allow_env_diff, &*results);
  if (*latest) PrintNoFingerprint("history check", notes);
  if (!WriteOutput(
          "history check", a.output.empty() ? "-" : a.output,
          WithNotes(RenderCheck(*comparison, *results, format, options), format,
                    notes),
          a.runs)) {
    return kExitUsage;
  }
  PrintGateErrors("history check", *results);
  return ExitCode(*results);
}

// The store of `a` and the query of its options, checked (CheckSeriesQuery).
absl::StatusOr<std::unique_ptr<HistoryStore>> OpenSelection(
    const HistoryArgs& a, SeriesQuery& q) {
  ASSIGN_OR_RETURN(std::unique_ptr<HistoryStore> store,
                   OpenHistoryStore(a.db, StoreAccess::kRead));
  q.metric = a.metric;
  q.machine = a.machine;
  q.branch = a.branch;
  if (!a.benchmark.empty()) {
    absl::StatusOr<NameFilter> f = NameFilter::Create(a.benchmark);
    if (!f.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--benchmark ", f.status().message()));
    }
    q.benchmark = *std::move(f);
  }
  RETURN_IF_ERROR(CheckSeriesQuery(*store, q));
  return store;
}

absl::StatusOr<std::vector<Series>> SelectSeries(const HistoryArgs& a) {
  SeriesQuery q;
  ASSIGN_OR_RETURN(std::unique_ptr<HistoryStore> store, OpenSelection(a, q));
  return ReadSeries(*store, q);
}

// The change points of every series `a` selects, the series read one at a
// time: `kept` holds those with change points (their points labelled), the
// rest are dropped as they are done.
absl::StatusOr<std::vector<SeriesChange>> SelectChanges(
    const HistoryArgs& a, std::deque<Series>& kept) {
  SeriesQuery q;
  ASSIGN_OR_RETURN(std::unique_ptr<HistoryStore> store, OpenSelection(a, q));
  // A fingerprint change is a known boundary of each series it can move.
  ASSIGN_OR_RETURN(const RunFingerprints prints,
                   RunFingerprints::Read(*store, a.machine));
  const EnvironmentDiffer differ = prints.Differ();
  std::vector<SeriesChange> changes;
  RETURN_IF_ERROR(
      ForEachSeries(*store, q, [&](Series& series, const PointLabeler& label) {
        const size_t before = changes.size();
        AppendSeriesChanges(series, a.cp, changes, differ);
        if (changes.size() == before) return;
        for (SeriesPoint& p : series.points) label(p);
        // The points stay where they are (moving a vector keeps its
        // elements), so the changes' points stay valid.
        kept.push_back(std::move(series));
        for (size_t i = before; i < changes.size(); ++i) {
          changes[i].series = &kept.back();
        }
      }));
  return changes;
}

int RunChanges(const HistoryArgs& a) {
  if (a.format != "table" && a.format != "markdown" && a.format != "json") {
    return Fail("changes", absl::StrCat("--format '", a.format,
                                        "' is unknown; use table, markdown "
                                        "or json"));
  }
  std::deque<Series> kept;
  absl::StatusOr<std::vector<SeriesChange>> changes = SelectChanges(a, kept);
  if (!changes.ok()) return Fail("changes", changes.status().message());
  if (!WriteOutput("history changes", a.output.empty() ? "-" : a.output,
                   RenderChanges(*changes, a.format), {})) {
    return kExitUsage;
  }
  return kExitOk;
}

int RunExport(const HistoryArgs& a) {
  if (a.format != "bmf" && a.format != "csv") {
    return Fail("export", absl::StrCat("--format '", a.format,
                                       "' is unknown; use bmf (Bencher "
                                       "Metric Format) or csv (Otava)"));
  }
  absl::StatusOr<std::vector<Series>> series = SelectSeries(a);
  if (!series.ok()) return Fail("export", series.status().message());
  if (a.format == "csv") {
    const std::string mixed = CsvMixedSourcesError(*series);
    if (!mixed.empty()) return Fail("export", mixed);
  }
  std::string note;
  const std::string text =
      a.format == "bmf" ? ExportBmf(*series) : ExportCsv(*series, &note);
  if (!note.empty()) {
    std::fprintf(stderr, "perfcounters history export: %s\n", note.c_str());
  }
  return WriteOutput("history export", a.output.empty() ? "-" : a.output, text,
                     {})
             ? kExitOk
             : kExitUsage;
}

}  // namespace

Command AddHistoryCommands(CLI::App& app) {
  auto args = std::make_shared<HistoryArgs>();
  HistoryArgs& a = *args;
  CLI::App* history = app.add_subcommand(
      "history",
      "A results store of runs (SQLite file or postgresql:// URL): add runs, "
      "check a run against its history, find change points, export");
  history->require_subcommand(1);
  const char* db_help =
      "the store: a file path (SQLite) or a postgresql:// URL";

  CLI::App* add = history->add_subcommand(
      "add", "Store Google Benchmark JSON runs (each in one transaction)");
  add->add_option("RUN", a.runs, "gbench JSON files")->required();
  add->add_option("--db", a.db, db_help)->required();
  add->add_option("--commit", a.identity.commit,
                  "commit (default $GITHUB_SHA or $CI_COMMIT_SHA)");
  add->add_option("--branch", a.identity.branch,
                  "branch (default $GITHUB_REF_NAME or $CI_COMMIT_REF_NAME)");
  add->add_option("--machine", a.identity.machine,
                  "machine (default: the run's host name and CPU model, or "
                  "its number of CPUs)");
  add->add_option("--time", a.identity.time,
                  "ISO 8601 time (default: the run's date)");

  CLI::App* check = history->add_subcommand(
      "check", "Gate a run against the history of each benchmark and metric");
  check->add_option("RUN", a.runs, "the new gbench JSON run")
      ->required()
      ->expected(1);
  check->add_option("--db", a.db, db_help)->required();
  check->add_option("--fail-on", a.gates, "gate, as compare's (repeatable)")
      ->required();
  check->add_option("--branch", a.branch,
                    "history of this branch (default $GITHUB_REF_NAME or "
                    "$CI_COMMIT_REF_NAME, else every branch)");
  check->add_option("--machine", a.machine,
                    "history of this machine (default: the run's)");
  check
      ->add_option("--window", a.window,
                   "at most the last N runs since the last change point")
      ->capture_default_str()
      ->check(CLI::Range(2, 100000));
  check
      ->add_option("--alpha", a.alpha,
                   "significance level of the prediction t-test")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  check->add_flag("--fail-on-missing", a.fail_on_missing,
                  "as compare --fail-on-missing");
  check->add_flag("--allow-unchecked-gates", a.allow_unchecked,
                  "as compare --allow-unchecked-gates");
  check->add_option("--allow-env-diff", a.allow_env_diff,
                    "as compare --allow-env-diff: fingerprint fields whose "
                    "difference from the history's latest run may not "
                    "refuse a gate");
  check->add_option("--format", a.format, "table, markdown or json")
      ->capture_default_str();
  check->add_option("-o,--output", a.output, "write the output to this file");
  AddChangePointOptions(*check, a.cp);

  CLI::App* changes = history->add_subcommand(
      "changes",
      "Change points of every series: steps and drifts (--method robust), "
      "or Apache Otava's (--method otava)");
  CLI::App* exp = history->add_subcommand(
      "export", "Export: bmf (Bencher Metric Format) or csv (Apache Otava)");
  for (CLI::App* c : {changes, exp}) {
    c->add_option("--db", a.db, db_help)->required();
    c->add_option("--benchmark", a.benchmark,
                  "only benchmarks matching this regex (RE2)");
    c->add_option("--metric", a.metric, "only this metric");
    c->add_option("--machine", a.machine, "only this machine");
    c->add_option("--branch", a.branch, "only this branch");
    c->add_option("-o,--output", a.output, "write the output to this file");
  }
  changes->add_option("--format", a.format, "table, markdown or json")
      ->capture_default_str();
  AddChangePointOptions(*changes, a.cp);
  exp->add_option("--format", a.format, "bmf or csv")->required();

  return [args, add, check, changes, exp]() -> std::optional<int> {
    if (add->parsed()) return RunAdd(*args);
    if (check->parsed()) return RunCheck(*args);
    if (changes->parsed()) return RunChanges(*args);
    if (exp->parsed()) return RunExport(*args);
    return std::nullopt;
  };
}

std::vector<SeriesChange> FindSeriesChanges(const std::vector<Series>& series,
                                            const ChangePointOptions& options,
                                            const EnvironmentDiffer& differ) {
  std::vector<SeriesChange> out;
  for (const Series& s : series) AppendSeriesChanges(s, options, out, differ);
  return out;
}

void AppendSeriesChanges(const Series& s, const ChangePointOptions& options,
                         std::vector<SeriesChange>& out,
                         const EnvironmentDiffer& differ) {
  std::vector<double> values;
  std::vector<const SeriesPoint*> points;
  for (const SeriesPoint& p : s.points) {
    if (!p.value) continue;
    values.push_back(*p.value);
    points.push_back(&p);
  }
  // The environment changes between consecutive counted points.
  std::vector<size_t> boundaries;
  std::vector<std::vector<EnvFieldChange>> fields;
  for (size_t i = 1; differ && i < points.size(); ++i) {
    std::vector<EnvFieldChange> f = differ(s, *points[i - 1], *points[i]);
    if (f.empty()) continue;
    boundaries.push_back(i);
    fields.push_back(std::move(f));
  }
  const std::vector<ChangePoint> cps =
      FindChangePointsWithin(values, boundaries, options);
  for (size_t k = 0; k < cps.size(); ++k) {
    SeriesChange c;
    c.series = &s;
    c.first_after = points[cps[k].index];
    c.change = cps[k];
    c.method = options.method;
    if (cps[k].kind == ChangeKind::kDrift) {
      c.last = points[std::min(cps[k].last_index, points.size() - 1)];
    }
    if (cps[k].kind == ChangeKind::kEnvironment) {
      const size_t b = static_cast<size_t>(
          std::lower_bound(boundaries.begin(), boundaries.end(), cps[k].index) -
          boundaries.begin());
      c.environment = fields[b];
    }
    const size_t lo = k == 0 ? 0 : cps[k - 1].index;
    const size_t hi = k + 1 < cps.size() ? cps[k + 1].index : points.size();
    for (size_t i = lo; i < hi; ++i) {
      c.coverage = LowerCoverage(c.coverage, points[i]->coverage);
    }
    out.push_back(c);
  }
}

namespace {

// The series' metric with its kind's tag: "est_cycles [estimate]",
// "instructions [simulated]" (a " [simulate]" machine's series).
std::string TaggedSeriesMetric(const SeriesChange& c) {
  return TaggedMetric(c.series->metric, SimulatedMachine(c.series->machine));
}

// One change point of `history changes --format json`.
nlohmann::json SeriesChangeJson(const SeriesChange& c) {
  const bool drift = c.change.kind == ChangeKind::kDrift;
  const nlohmann::json none;
  nlohmann::json env = nlohmann::json::array();
  for (const EnvFieldChange& f : c.environment) {
    env.push_back({{"field", f.field},
                   {"before", f.before ? nlohmann::json(*f.before) : none},
                   {"after", f.after ? nlohmann::json(*f.after) : none}});
  }
  nlohmann::json change = {
      {"method", ChangeMethodName(c.method)},
      {"kind", ChangeKindName(c.change.kind)},
      {"benchmark", c.series->benchmark},
      {"metric", c.series->metric},
      {"value_kind",
       ValueKindName(
           KindOfValue(c.series->metric, SimulatedMachine(c.series->machine)))},
      {"machine", c.series->machine},
      {"branch", c.series->branch},
      {"commit", c.first_after->commit},
      {"time", c.first_after->time},
      {"before", c.change.mean_before},
      {"after", c.change.mean_after},
      {"change_percent", c.change.ChangePercent()},
      {"p_value", c.change.p},
      {"coverage", c.coverage ? nlohmann::json(*c.coverage) : nlohmann::json()},
      {"noise_sd", c.change.sigma > 0 ? nlohmann::json(c.change.sigma) : none},
      {"last_commit", drift ? nlohmann::json(c.last->commit) : none},
      {"last_time", drift ? nlohmann::json(c.last->time) : none},
      {"runs",
       drift ? nlohmann::json(c.change.last_index - c.change.index + 1) : none},
      {"slope_percent_per_run",
       drift ? nlohmann::json(c.change.SlopePercent()) : none},
      {"environment", c.change.kind == ChangeKind::kEnvironment ? env : none}};
  return change;
}

// The kind column of a change point in text: a drift with its first
// run's commit and where it ends; an environment change with the fields
// that changed.
std::string SeriesChangeKindText(const SeriesChange& c) {
  std::string kind =
      c.change.kind == ChangeKind::kDrift && c.last != nullptr
          ? absl::StrFormat("drift to %s (%d runs, %+.3g %%/run)",
                            c.last->commit.substr(0, 12),
                            c.change.last_index - c.change.index + 1,
                            c.change.SlopePercent())
          : std::string(ChangeKindName(c.change.kind));
  for (size_t i = 0; i < c.environment.size(); ++i) {
    const EnvFieldChange& f = c.environment[i];
    absl::StrAppend(&kind, i == 0 ? ": " : ", ", f.field, " ",
                    f.before.value_or("(none)"), " -> ",
                    f.after.value_or("(none)"));
  }
  return kind;
}

}  // namespace

std::string RenderChanges(const std::vector<SeriesChange>& changes,
                          const std::string& format) {
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const SeriesChange& c : changes) out.push_back(SeriesChangeJson(c));
    return out.dump(2) + "\n";
  }
  const bool md = format == "markdown";
  // The name columns as wide as their widest entry (at least their
  // default): a machine "host / AMD EPYC 7B13" fits under its header.
  int wb = 36, wm = 16, wmach = 12, wbr = 10;
  for (const SeriesChange& c : changes) {
    wb = std::max(wb, static_cast<int>(c.series->benchmark.size()));
    wm = std::max(wm, static_cast<int>(TaggedSeriesMetric(c).size()));
    wmach = std::max(wmach, static_cast<int>(c.series->machine.size()));
    wbr = std::max(wbr, static_cast<int>(c.series->branch.size()));
  }
  std::string out =
      md ? "| benchmark | metric | machine | branch | commit | time | before "
           "| after | change | p | kind |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n"
         : absl::StrFormat(
               "%-*s %-*s %-*s %-*s %-12s %-20s %12s %12s "
               "%9s %9s  %s\n",
               wb, "benchmark", wm, "metric", wmach, "machine", wbr, "branch",
               "commit", "time", "before", "after", "change", "p", "kind");
  for (const SeriesChange& c : changes) {
    const std::string& m = c.series->metric;
    const std::string tagged = TaggedSeriesMetric(c);
    const std::string change =
        FormatChange(std::optional<double>(c.change.ChangePercent()));
    const std::string p =
        absl::StrCat(absl::StrFormat("%.2g", c.change.p),
                     Estimated(c.coverage) ? " (multiplexed)" : "");
    const std::string kind = SeriesChangeKindText(c);
    out +=
        md ? absl::StrCat("| ", c.series->benchmark, " | ", tagged, " | ",
                          c.series->machine, " | ", c.series->branch, " | ",
                          c.first_after->commit, " | ", c.first_after->time,
                          " | ", FormatValue(m, c.change.mean_before), " | ",
                          FormatValue(m, c.change.mean_after), " | ", change,
                          " | ", p, " | ", kind, " |\n")
           : absl::StrFormat(
                 "%-*s %-*s %-*s %-*s %-12s %-20s %12s %12s %9s %9s  "
                 "%s\n",
                 wb, c.series->benchmark, wm, tagged, wmach, c.series->machine,
                 wbr, c.series->branch, c.first_after->commit.substr(0, 12),
                 c.first_after->time, FormatValue(m, c.change.mean_before),
                 FormatValue(m, c.change.mean_after), change, p, kind);
  }
  if (changes.empty() && !md) out += "(no change points)\n";
  return out;
}

}  // namespace perfcounters::tools
