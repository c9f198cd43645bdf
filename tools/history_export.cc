// history_export.cc: `history export`: Bencher Metric Format (the latest
// run, every metric its own measure) and a CSV Apache Otava reads (a row
// per run, a column per benchmark.metric).
#include "history_export.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "counting_source.h"
#include "history.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {
namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\"", "\"\""}}), "\"");
}

// The shortest of %.15g, %.16g, %.17g that reads back as `v` (0.4, not
// 0.40000000000000002).
std::string ShortestDouble(double v) {
  for (int precision : {15, 16}) {
    std::string text = absl::StrFormat("%.*g", precision, v);
    if (std::strtod(text.c_str(), nullptr) == v) return text;
  }
  return absl::StrFormat("%.17g", v);
}

// Which runs to keep so that every kept column has a value in every kept
// run and the most values are kept (ties: more runs). `present[c][r]`:
// column c has a value in run r. The candidates are each column's own runs
// (a run set kept whole by some column; the most common 512 patterns),
// each keeping every column valued in all of them.
std::vector<bool> CsvKeepMostCells(
    const std::vector<std::vector<bool>>& present, size_t run_count) {
  // No column has a value: every run, with no metric column.
  if (present.empty()) return std::vector<bool>(run_count, true);
  std::map<std::vector<bool>, size_t> patterns;
  for (const auto& p : present) ++patterns[p];
  std::vector<std::pair<std::vector<bool>, size_t>> by_count(patterns.begin(),
                                                             patterns.end());
  std::stable_sort(
      by_count.begin(), by_count.end(),
      [](const auto& x, const auto& y) { return x.second > y.second; });
  if (by_count.size() > 512) by_count.resize(512);
  std::vector<bool> best(run_count, false);
  size_t best_cells = 0, best_runs = 0;
  for (const auto& candidate : by_count) {
    const std::vector<bool>& rows = candidate.first;
    const size_t n =
        static_cast<size_t>(std::count(rows.begin(), rows.end(), true));
    size_t columns = 0;
    for (const auto& [other, count] : patterns) {
      bool covers = true;
      for (size_t r = 0; r < run_count && covers; ++r) {
        covers = !rows[r] || other[r];
      }
      if (covers) columns += count;
    }
    const size_t cells = n * columns;
    if (cells > best_cells || (cells == best_cells && n > best_runs)) {
      best = rows;
      best_cells = cells;
      best_runs = n;
    }
  }
  // A run with a value in every kept column is kept too.
  std::vector<const std::vector<bool>*> kept_columns;
  for (const auto& p : present) {
    bool kept = true;
    for (size_t q = 0; q < run_count && kept; ++q) kept = !best[q] || p[q];
    if (kept) kept_columns.push_back(&p);
  }
  std::vector<bool> extended = best;
  for (size_t r = 0; r < run_count; ++r) {
    extended[r] =
        std::all_of(kept_columns.begin(), kept_columns.end(),
                    [r](const std::vector<bool>* p) { return (*p)[r]; });
  }
  return extended;
}

// The first 10 of `items`, joined, and how many more.
std::string CsvJoinSome(const std::vector<std::string>& items) {
  constexpr size_t kShown = 10;
  if (items.size() <= kShown) return absl::StrJoin(items, ", ");
  return absl::StrCat(
      absl::StrJoin(items.begin(), items.begin() + kShown, ", "), " and ",
      items.size() - kShown, " more");
}

}  // namespace

std::string ExportBmf(const std::vector<Series>& series) {
  // The latest run of each benchmark (per machine and branch: the last
  // series point); every metric a measure.
  nlohmann::json out = nlohmann::json::object();
  for (const Series& s : series) {
    if (s.points.empty() || !s.points.back().value) continue;
    const SeriesPoint& p = s.points.back();
    // A measure's name says when its values are not measured (an estimate,
    // or simulated): BMF has no other place for it.
    const std::string measure =
        TaggedMetric(s.metric, SimulatedMachine(s.machine));
    out[s.benchmark][measure] = {
        {"value", *p.value}, {"lower_value", p.lo}, {"upper_value", p.hi}};
    if (p.coverage) {
      out[s.benchmark][absl::StrCat(measure, ".coverage")] = {
          {"value", *p.coverage}};
    }
  }
  return out.dump(2) + "\n";
}

std::string CsvMixedSourcesError(const std::vector<Series>& series) {
  std::set<std::string> simulated, measured;
  for (const Series& s : series) {
    (SimulatedMachine(s.machine) ? simulated : measured).insert(s.machine);
  }
  if (simulated.empty() || measured.empty()) return "";
  return absl::StrCat(
      "--format csv: the selected series hold simulated values (machine ",
      absl::StrJoin(simulated, ", "), ") and measured ones (machine ",
      absl::StrJoin(measured, ", "),
      "); a run is either, so no CSV row has a number in both kinds of "
      "column and one kind would be lost. Export each on its own: --machine "
      "'",
      *simulated.begin(), "' or --machine '", *measured.begin(), "'");
}

namespace {

// The series as a grid: runs in order (time, id) with their commit,
// machine and branch; columns in order of first appearance; the cells that
// have a value.
struct CsvGrid {
  using RunKey = std::tuple<std::string, int64_t>;
  std::map<RunKey, std::tuple<std::string, std::string, std::string>> runs;
  std::vector<std::string> columns;
  std::map<std::pair<RunKey, std::string>, double> cells;
};

CsvGrid CsvGridOf(const std::vector<Series>& series) {
  CsvGrid g;
  std::set<std::string> columns_set;
  for (const Series& s : series) {
    // A value that is not measured says so in its column's name
    // ("BM_A.est_cycles [estimate]", "BM_A.instructions [simulated]",
    // "BM_A.cpu_time [valgrind's time]"), and a simulated row in its machine
    // (" [simulate]"): a simulated value never shares a column with a
    // measured one.
    const std::string column = absl::StrCat(
        s.benchmark, ".", TaggedMetric(s.metric, SimulatedMachine(s.machine)));
    if (columns_set.insert(column).second) g.columns.push_back(column);
    const bool multiplexed = std::any_of(
        s.points.begin(), s.points.end(),
        [](const SeriesPoint& p) { return p.coverage.has_value(); });
    const std::string coverage_column = absl::StrCat(column, ".coverage");
    if (multiplexed && columns_set.insert(coverage_column).second) {
      g.columns.push_back(coverage_column);
    }
    for (const SeriesPoint& p : s.points) {
      const CsvGrid::RunKey key{p.time, p.run_id};
      g.runs[key] = {p.commit, s.machine, s.branch};
      if (p.value) g.cells[{key, column}] = *p.value;
      if (p.value && multiplexed) {
        g.cells[{key, coverage_column}] = p.coverage.value_or(1.0);
      }
    }
  }
  return g;
}

// What the CSV keeps of a grid, and what it leaves out.
struct CsvSelection {
  std::vector<bool> keep_run;  // per run of the grid
  std::vector<std::string> kept;
  std::vector<std::string> empty_columns;  // no value in any run
  std::vector<std::string> sparse;         // "c (n of N runs)"
  std::map<std::string, size_t>
      gaps;  // kept column -> left-out runs lacking it
};

// Otava's CSV reader needs a number in every cell of its metric columns
// (float(''): "could not convert string to float"), and a number is what
// a not-counted value never is. A column with no value in any run is
// left out; of the others, the runs and columns kept are those that keep
// the most values (CsvKeepMostCells): a benchmark added in the last run
// leaves out its columns, not the older runs.
CsvSelection SelectCsvCells(const CsvGrid& g) {
  CsvSelection sel;
  std::vector<std::string> valued_columns;
  std::vector<std::vector<bool>> present;  // per valued column, per run
  for (const std::string& c : g.columns) {
    std::vector<bool> in_run;
    in_run.reserve(g.runs.size());
    size_t valued = 0;
    for (const auto& [key, attrs] : g.runs) {
      in_run.push_back(g.cells.count({key, c}) > 0);
      valued += in_run.back();
    }
    if (valued == 0) {
      sel.empty_columns.push_back(c);
    } else {
      valued_columns.push_back(c);
      present.push_back(std::move(in_run));
    }
  }
  sel.keep_run = CsvKeepMostCells(present, g.runs.size());
  for (size_t i = 0; i < valued_columns.size(); ++i) {
    bool whole = true;
    for (size_t r = 0; r < g.runs.size(); ++r) {
      if (sel.keep_run[r] && !present[i][r]) whole = false;
    }
    if (whole) {
      sel.kept.push_back(valued_columns[i]);
    } else {
      sel.sparse.push_back(
          absl::StrCat(valued_columns[i], " (",
                       std::count(present[i].begin(), present[i].end(), true),
                       " of ", g.runs.size(), " runs)"));
    }
  }
  size_t r = 0;
  for (const auto& [key, attrs] : g.runs) {
    if (!sel.keep_run[r++]) {
      for (const std::string& c : sel.kept) {
        sel.gaps[c] += g.cells.count({key, c}) == 0;
      }
    }
  }
  return sel;
}

// What the export left out and why, for the user.
std::string CsvExportNote(const CsvSelection& sel, size_t runs,
                          size_t left_out) {
  std::string note;
  if (!sel.empty_columns.empty()) {
    absl::StrAppend(&note, "left out ", sel.empty_columns.size(),
                    " column(s) never counted in the exported runs: ",
                    absl::StrJoin(sel.empty_columns, ", "), ". ");
  }
  if (!sel.sparse.empty()) {
    absl::StrAppend(&note, "left out ", sel.sparse.size(),
                    " column(s) with a value in only some runs, to keep "
                    "the most values: ",
                    CsvJoinSome(sel.sparse), ". ");
  }
  if (left_out > 0) {
    std::vector<std::string> why;
    for (const auto& [c, n] : sel.gaps) {
      if (n > 0) why.push_back(absl::StrCat(c, " (", n, " runs)"));
    }
    absl::StrAppend(
        &note, "left out ", left_out, " of ", runs,
        " runs that have no value (not counted, or absent) in some "
        "column: ",
        CsvJoinSome(why),
        "; a CSV cell for Otava must be a number. Export those series on "
        "their own (--benchmark, --metric) to keep the other series' "
        "points of these runs.");
  }
  if (!sel.sparse.empty() && left_out == 0) {
    absl::StrAppend(&note,
                    "Export those series on their own (--benchmark, "
                    "--metric) to keep their points.");
  }
  return note;
}

}  // namespace

std::string ExportCsv(const std::vector<Series>& series, std::string* note) {
  const CsvGrid g = CsvGridOf(series);
  const CsvSelection sel = SelectCsvCells(g);
  std::string out = "time,commit,machine,branch";
  for (const std::string& c : sel.kept) absl::StrAppend(&out, ",", CsvField(c));
  out += "\n";
  size_t left_out = 0, run_index = 0;
  for (const auto& [key, attrs] : g.runs) {
    if (!sel.keep_run[run_index++]) {
      ++left_out;
      continue;
    }
    absl::StrAppend(&out, std::get<0>(key), ",", CsvField(std::get<0>(attrs)),
                    ",", CsvField(std::get<1>(attrs)), ",",
                    CsvField(std::get<2>(attrs)));
    for (const std::string& c : sel.kept) {
      absl::StrAppend(&out, ",", ShortestDouble(g.cells.at({key, c})));
    }
    out += "\n";
  }
  // Both said: the columns and runs left out.
  if (note != nullptr) *note = CsvExportNote(sel, g.runs.size(), left_out);
  return out;
}

}  // namespace perfcounters::tools
