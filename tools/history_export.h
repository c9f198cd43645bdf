// history_export.h: `history export` formats and `history changes`'
// listing (history_export.cc, history_commands.cc).
#ifndef PERFCOUNTERS_TOOLS_HISTORY_EXPORT_H_
#define PERFCOUNTERS_TOOLS_HISTORY_EXPORT_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "history.h"
#include "history_changes.h"

namespace perfcounters::tools {

// Bencher Metric Format JSON: {benchmark: {metric: {value, lower_value,
// upper_value}}} of each series' latest counted point; a multiplexed one
// adds the measure "<metric>.coverage" ({value}).
std::string ExportBmf(const std::vector<Series>& series);

// CSV for Apache Otava (0.8's CSV reader: Python's csv module, a float in
// every metric cell): time,commit,machine,branch, then a column per
// benchmark.metric (and benchmark.metric.coverage for a series with a
// multiplexed point: 1 where not multiplexed); a row per run. A value
// that was not counted is never written as a number: a column with no
// value is left out, and of the rest the runs and columns that keep the
// most values, every kept cell a number (a benchmark added later leaves
// out its columns, not the older runs); `note` (when given) says what was
// left out, empty when nothing was.
// A column of a simulated series (a " [simulate]" machine) carries the
// value's tag (counting_source.h: "BM_A.instructions [simulated]",
// "BM_A.cpu_time [valgrind's time]"); an estimate's always does
// ("BM_A.est_cycles [estimate]").
std::string ExportCsv(const std::vector<Series>& series,
                      std::string* note = nullptr);

// Empty when `series` are all simulated or all measured; otherwise why
// they cannot share one CSV (`history export` refuses, exit 2), naming the
// machines and the --machine that exports each.
std::string CsvMixedSourcesError(const std::vector<Series>& series);

// One fingerprint field that differs between two runs.
struct EnvFieldChange {
  std::string field;
  // nullopt: the run's fingerprint has no such field.
  std::optional<std::string> before;
  std::optional<std::string> after;
};

// The fingerprint fields that differ between two runs of a series and can
// move its metric (empty: none, or a run has no fingerprint): a non-empty
// answer makes a known boundary (ChangeKind::kEnvironment) between them.
using EnvironmentDiffer = std::function<std::vector<EnvFieldChange>(
    const Series& s, const SeriesPoint& before, const SeriesPoint& after)>;

// One change point of one series, as `history changes` lists it.
struct SeriesChange {
  const Series* series = nullptr;
  // The first run after the change (its index among the counted points).
  const SeriesPoint* first_after = nullptr;
  ChangePoint change;
  // The lowest multiplexing coverage of the points before and after it
  // (the segments the change was tested on); empty when none was
  // multiplexed.
  std::optional<double> coverage;
  // A drift's last run.
  const SeriesPoint* last = nullptr;
  // The method that found it.
  ChangeMethod method = ChangeMethod::kRobust;
  // ChangeKind::kEnvironment: the fields that changed.
  std::vector<EnvFieldChange> environment;
};

// The change points of every series (counted points only); with `differ`,
// each environment change between two consecutive counted points is a
// known boundary (FindChangePointsWithin()).
std::vector<SeriesChange> FindSeriesChanges(
    const std::vector<Series>& series, const ChangePointOptions& options,
    const EnvironmentDiffer& differ = nullptr);

// Those of one series, appended to `out` (pointing into `s`).
void AppendSeriesChanges(const Series& s, const ChangePointOptions& options,
                         std::vector<SeriesChange>& out,
                         const EnvironmentDiffer& differ = nullptr);

// table, markdown or json (the array of docs/history.md).
std::string RenderChanges(const std::vector<SeriesChange>& changes,
                          const std::string& format);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_EXPORT_H_
