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
    const std::string text = absl::StrFormat("%.*g", precision, v);
    if (std::strtod(text.c_str(), nullptr) == v) return text;
  }
  return absl::StrFormat("%.17g", v);
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

std::string ExportCsv(const std::vector<Series>& series, std::string* note) {
  // Runs in order (time, id), with their machine, branch and commit.
  using RunKey = std::tuple<std::string, int64_t>;
  std::map<RunKey, std::tuple<std::string, std::string, std::string>> runs;
  std::set<std::string> columns_set;
  std::vector<std::string> columns;
  std::map<std::pair<RunKey, std::string>, double> cells;
  for (const Series& s : series) {
    // An estimate says so in its column's name ("BM_A.est_cycles
    // [estimate]"); a simulated row in its machine (" [simulate]").
    const std::string column = absl::StrCat(
        s.benchmark, ".", TaggedMetric(s.metric, /*simulated=*/false));
    if (columns_set.insert(column).second) columns.push_back(column);
    const bool multiplexed = std::any_of(
        s.points.begin(), s.points.end(),
        [](const SeriesPoint& p) { return p.coverage.has_value(); });
    const std::string coverage_column = absl::StrCat(column, ".coverage");
    if (multiplexed && columns_set.insert(coverage_column).second) {
      columns.push_back(coverage_column);
    }
    for (const SeriesPoint& p : s.points) {
      const RunKey key{p.time, p.run_id};
      runs[key] = {p.commit, s.machine, s.branch};
      if (p.value) cells[{key, column}] = *p.value;
      if (p.value && multiplexed) {
        cells[{key, coverage_column}] = p.coverage.value_or(1.0);
      }
    }
  }
  // Otava's CSV reader needs a number in every cell of its metric columns
  // (float(''): "could not convert string to float"), and a number is what
  // a not-counted value never is: a column with no value in any run is
  // left out, and so is a run with no value in some column; both said.
  std::vector<std::string> empty_columns, kept;
  std::map<std::string, size_t> gaps;  // column -> runs without a value
  for (const std::string& c : columns) {
    size_t valued = 0;
    for (const auto& [key, attrs] : runs) valued += cells.count({key, c});
    if (valued == 0) {
      empty_columns.push_back(c);
    } else {
      kept.push_back(c);
      if (valued < runs.size()) gaps[c] = runs.size() - valued;
    }
  }
  std::string out = "time,commit,machine,branch";
  for (const std::string& c : kept) absl::StrAppend(&out, ",", CsvField(c));
  out += "\n";
  size_t left_out = 0;
  for (const auto& [key, attrs] : runs) {
    // A copy: clang 14 cannot capture a structured binding.
    const auto& run_key = key;
    const bool whole = std::all_of(kept.begin(), kept.end(), [&](auto& c) {
      return cells.count({run_key, c}) > 0;
    });
    if (!whole) {
      ++left_out;
      continue;
    }
    absl::StrAppend(&out, std::get<0>(key), ",", CsvField(std::get<0>(attrs)),
                    ",", CsvField(std::get<1>(attrs)), ",",
                    CsvField(std::get<2>(attrs)));
    for (const std::string& c : kept) {
      absl::StrAppend(&out, ",", ShortestDouble(cells.at({key, c})));
    }
    out += "\n";
  }
  if (note != nullptr) {
    note->clear();
    if (!empty_columns.empty()) {
      absl::StrAppend(note, "left out ", empty_columns.size(),
                      " column(s) never counted in the exported runs: ",
                      absl::StrJoin(empty_columns, ", "), ". ");
    }
    if (left_out > 0) {
      std::vector<std::string> why;
      for (const auto& [c, n] : gaps) {
        why.push_back(absl::StrCat(c, " (", n, " runs)"));
      }
      absl::StrAppend(
          note, "left out ", left_out, " of ", runs.size(),
          " runs that have no value (not counted, or absent) in some "
          "column: ",
          absl::StrJoin(why, ", "),
          "; a CSV cell for Otava must be a number. Export those series on "
          "their own (--benchmark, --metric) to keep the other series' "
          "points of these runs.");
    }
  }
  return out;
}

}  // namespace perfcounters::tools
