// history.h: `perfcounters history` without the command line: adding gbench
// JSON runs to a results store (history_store.h), reading the series of one
// benchmark and metric back, change points (E-divisive means with a
// t-test, as Apache Otava does), checking a new run against the history
// with compare's gates, exports (Bencher Metric Format, Otava CSV).
//
// A series is the values of one benchmark's metric on one machine and one
// branch, in run order (time, then the order of adding). A run's value of a
// metric is what compare uses per side: the median over its repetitions
// (or the median/mean aggregate when the file has only aggregates); a metric
// that was not counted in a run is stored as not counted (NULL), never 0,
// and is no point of the series.
#ifndef PERFCOUNTERS_TOOLS_HISTORY_H_
#define PERFCOUNTERS_TOOLS_HISTORY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gbench_json.h"
#include "history_store.h"
#include "name_filter.h"
#include "oom_safe_map.h"

namespace perfcounters::tools {

// Where a run comes from; empty fields take their defaults (RunIdentity()).
struct RunIdentity {
  std::string machine;
  std::string commit;
  std::string branch;
  // ISO 8601; stored as UTC, YYYY-MM-DDTHH:MM:SSZ.
  std::string time;
};

// Fills the empty fields of `given`: machine from the run's context (host
// name, CPU count and frequency), commit and branch from GITHUB_SHA /
// GITHUB_REF_NAME or CI_COMMIT_SHA / CI_COMMIT_REF_NAME, time from the
// run's "date" (else now). A --time that is no ISO 8601 time is an error.
absl::StatusOr<RunIdentity> ResolveIdentity(const BenchmarkFile& file,
                                            const RunIdentity& given);

// The default branch for check/changes: GITHUB_REF_NAME or
// CI_COMMIT_REF_NAME, else empty (every branch).
std::string BranchFromEnvironment();

// What AddRun() did.
struct AddResult {
  int64_t run_id = 0;
  bool already_stored = false;
  size_t points = 0;       // benchmark x metric values (not counted included)
  size_t not_counted = 0;  // of which not counted
  size_t samples = 0;      // repetition values
  size_t aggregates = 0;   // aggregate values
  RunIdentity identity;
};

// Adds one parsed run (`text` is its JSON, whose digest identifies it: the
// same file added twice is stored once) in one transaction.
absl::StatusOr<AddResult> AddRun(HistoryStore& store, const std::string& text,
                                 const BenchmarkFile& file,
                                 const RunIdentity& identity);

// An observer of AddRun() for fault-injection tests: called inside the
// add's transaction after each value is written, with the number written
// so far (tests/support/tool_with_faults.cc stops the process there to kill
// it mid-add). The shipped command never sets one; nullptr removes it.
using AddProgressHook = void (*)(size_t values_written);
void SetAddProgressHook(AddProgressHook hook);

// `history add` of one run's JSON `text`, from the file `path`: parses it
// (a file with no benchmarks is no run), prints its warnings, resolves
// `given` (ResolveIdentity()) and adds it (AddRun()). Errors are as the
// command prints them: parse errors say nothing was stored, AddRun()'s
// that the store is as it was before.
absl::StatusOr<AddResult> AddRunText(HistoryStore& store,
                                     const std::string& text,
                                     const std::string& path,
                                     const RunIdentity& given);

// AddRunText() in two steps: parsing `text` (errors say nothing was
// stored; warnings printed), then adding it. `history add` parses a run
// before it opens (and maybe creates) the store.
absl::StatusOr<BenchmarkFile> ParseRunText(const std::string& text,
                                           const std::string& path);
absl::StatusOr<AddResult> AddParsedRun(HistoryStore& store,
                                       const std::string& text,
                                       const BenchmarkFile& file,
                                       const RunIdentity& given);

// The digest that identifies a run's JSON text (32 hex digits).
std::string RunDigest(const std::string& text);

// One point of a series.
struct SeriesPoint {
  int64_t run_id = 0;
  std::string commit;
  std::string time;
  // Empty: not counted in this run, or (absent) not stored at all.
  std::optional<double> value;
  // The run stored no value of the metric for the benchmark (the metric
  // or the benchmark was absent from its file): a point only
  // AddAbsentRuns() makes, for charts that keep every run on their axis.
  bool absent = false;
  // The range of the run's repetitions (value when there was one).
  double lo = 0;
  double hi = 0;
  // The lowest multiplexing coverage of the run's repetitions; empty when
  // on the PMU the whole time (or a time, or stored before coverage was).
  std::optional<double> coverage;
};

struct Series {
  std::string benchmark;
  std::string metric;
  std::string machine;
  std::string branch;
  std::vector<SeriesPoint> points;  // run order
};

// Which series to read; empty fields select all.
struct SeriesQuery {
  std::optional<NameFilter> benchmark;
  std::string metric;
  std::string machine;
  std::string branch;
};

// Every series the query selects, ordered by benchmark, metric, machine,
// branch.
absl::StatusOr<std::vector<Series>> ReadSeries(HistoryStore& store,
                                               const SeriesQuery& query);

// Fills a point's commit and time (ForEachSeries()).
using PointLabeler = std::function<void(SeriesPoint& point)>;

// ReadSeries() one series at a time: `visit` gets each series in that
// order, read one benchmark at a time (memory for one benchmark's points,
// not the store's). Its points carry no commit and time (most callers
// need them for few points, and a string per point is much of the cost
// of reading): `label` fills them in, valid during the call.
absl::Status ForEachSeries(
    HistoryStore& store, const SeriesQuery& query,
    const std::function<void(Series& series, const PointLabeler& label)>&
        visit);

// Adds to each series a point without a value (absent) for each run of
// its machine and branch between its first and last point that stored no
// value of it, so that a chart's x axis keeps every run (with commit and
// time). Change points are found on counted points only: unchanged.
absl::Status AddAbsentRuns(HistoryStore& store, std::vector<Series>& series);

// OK when each field of `query` that is set selects something stored;
// else InvalidArgument naming the option, the nearest stored names ("did
// you mean") and what is stored.
absl::Status CheckSeriesQuery(HistoryStore& store, const SeriesQuery& query);

// The machines of the stored runs (of `branch`; empty: every branch), each
// with its number of runs, by name.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> StoredMachines(
    HistoryStore& store, const std::string& branch);

// The points of each series of one benchmark, by metric, in run order
// (without commit and time).
using RecentHistory = OomSafeMap<std::string, std::vector<SeriesPoint>>;

// Calls `visit(i, history)` for each of `benchmarks` in order with the
// points of its series of `metrics` (empty: every metric) on `machine` and
// `branch` (empty: every branch) among the latest `lookback` runs there,
// but the run `exclude_digest` (the run being checked, when it is stored
// already). One benchmark at a time: one query per benchmark (and metric),
// memory for one benchmark's points.
absl::Status ForEachRecentHistory(
    HistoryStore& store, const std::vector<std::string>& benchmarks,
    const std::vector<std::string>& metrics, const std::string& machine,
    const std::string& branch, size_t lookback,
    const std::string& exclude_digest,
    const std::function<void(size_t i, RecentHistory& history)>& visit);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_H_
