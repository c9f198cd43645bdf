// history_read.cc: reading series back from the history store (history.h).
// The runs' attributes are read once; points are read without a join, in
// the points table's key order (benchmark, metric, run), so that a
// series' points arrive together.
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "edit_distance.h"
#include "history.h"
#include "status_macros.h"

namespace perfcounters::tools {
namespace {

struct RunInfo {
  std::string commit;
  std::string time;
  std::string machine;
  std::string branch;
  // The same for runs of the same machine and branch.
  int64_t group = 0;
};

using RunMap = absl::flat_hash_map<int64_t, RunInfo>;

absl::StatusOr<absl::flat_hash_map<int64_t, std::string>> Names(
    HistoryStore& store, const char* table) {
  absl::flat_hash_map<int64_t, std::string> names;
  RETURN_IF_ERROR(store.Query(
      absl::StrCat("SELECT id, name FROM ", table), {},
      {SqlType::kInt, SqlType::kText}, [&](const std::vector<SqlValue>& r) {
        names[std::get<int64_t>(r[0])] = std::get<std::string>(r[1]);
      }));
  return names;
}

// The runs on `machine` and `branch` (empty: any), but `exclude_digest`;
// with `limit` > 0 only the latest `limit` of them.
absl::StatusOr<RunMap> ReadRuns(HistoryStore& store, const std::string& machine,
                                const std::string& branch,
                                const std::string& exclude_digest,
                                size_t limit) {
  std::string sql =
      "SELECT id, commit_sha, time, machine, branch FROM runs WHERE digest "
      "<> ?";
  std::vector<SqlValue> params = {exclude_digest};
  if (!machine.empty()) {
    sql += " AND machine = ?";
    params.emplace_back(machine);
  }
  if (!branch.empty()) {
    sql += " AND branch = ?";
    params.emplace_back(branch);
  }
  if (limit > 0) {
    sql += " ORDER BY time DESC, id DESC LIMIT ?";
    params.emplace_back(static_cast<int64_t>(limit));
  }
  RunMap runs;
  absl::flat_hash_map<std::pair<std::string, std::string>, int64_t> groups;
  RETURN_IF_ERROR(store.Query(
      sql, params,
      {SqlType::kInt, SqlType::kText, SqlType::kText, SqlType::kText,
       SqlType::kText},
      [&](const std::vector<SqlValue>& r) {
        RunInfo& run = runs[std::get<int64_t>(r[0])];
        run.commit = std::get<std::string>(r[1]);
        run.time = std::get<std::string>(r[2]);
        run.machine = std::get<std::string>(r[3]);
        run.branch = std::get<std::string>(r[4]);
        run.group = groups
                        .try_emplace({run.machine, run.branch},
                                     static_cast<int64_t>(groups.size()))
                        .first->second;
      }));
  return runs;
}

std::optional<double> OptionalDouble(const SqlValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

// A point from (run_id, value, lo, hi, coverage) at r[first...].
SeriesPoint PointFrom(const std::vector<SqlValue>& r, size_t first,
                      const RunInfo& run) {
  SeriesPoint p;
  p.run_id = std::get<int64_t>(r[first]);
  p.commit = run.commit;
  p.time = run.time;
  p.value = OptionalDouble(r[first + 1]);
  if (p.value) {
    p.lo = OptionalDouble(r[first + 2]).value_or(*p.value);
    p.hi = OptionalDouble(r[first + 3]).value_or(*p.value);
    p.coverage = OptionalDouble(r[first + 4]);
  }
  return p;
}

// The columns PointFrom() reads, after benchmark_id and metric_id.
constexpr const char* kPointColumns =
    "SELECT benchmark_id, metric_id, run_id, value, lo, hi, coverage FROM "
    "points";
const std::vector<SqlType> kPointTypes = {
    SqlType::kInt,    SqlType::kInt,    SqlType::kInt,   SqlType::kDouble,
    SqlType::kDouble, SqlType::kDouble, SqlType::kDouble};

void SortPoints(std::vector<SeriesPoint>& points) {
  std::sort(points.begin(), points.end(),
            [](const SeriesPoint& a, const SeriesPoint& b) {
              return std::tie(a.time, a.run_id) < std::tie(b.time, b.run_id);
            });
}

int64_t IdOf(const absl::flat_hash_map<int64_t, std::string>& names,
             const std::string& name) {
  for (const auto& [id, n] : names) {
    if (n == name) return id;
  }
  return -1;
}

absl::StatusOr<std::vector<std::string>> Distinct(HistoryStore& store,
                                                  const char* sql) {
  std::vector<std::string> out;
  RETURN_IF_ERROR(store.Query(sql, {}, {SqlType::kText},
                              [&](const std::vector<SqlValue>& r) {
                                out.push_back(std::get<std::string>(r[0]));
                              }));
  return out;
}

// "--metric 'x' matches no metric of the store; did you mean 'y'? (the
// store has: ...)".
absl::Status NothingMatches(const char* option, const std::string& given,
                            const char* what,
                            const std::vector<std::string>& stored) {
  const std::vector<std::string> close =
      internal::ClosestNames(given, stored, 3);
  std::vector<std::string> shown(
      stored.begin(), stored.begin() + std::min<size_t>(stored.size(), 12));
  return absl::InvalidArgumentError(absl::StrCat(
      option, " '", given, "' matches no ", what, " of the store",
      close.empty() ? ""
                    : absl::StrCat("; did you mean '",
                                   absl::StrJoin(close, "', '"), "'?"),
      stored.empty()
          ? " (it has none)"
          : absl::StrCat(" (it has ", stored.size(), ": ",
                         absl::StrJoin(shown, ", "),
                         shown.size() < stored.size() ? ", ..." : "", ")")));
}

}  // namespace

absl::Status CheckSeriesQuery(HistoryStore& store, const SeriesQuery& query) {
  if (query.benchmark) {
    ASSIGN_OR_RETURN(auto names, Distinct(store,
                                          "SELECT name FROM benchmarks ORDER "
                                          "BY name"));
    if (std::none_of(names.begin(), names.end(), [&](const std::string& n) {
          return query.benchmark->Matches(n);
        })) {
      return NothingMatches("--benchmark", query.benchmark->pattern(),
                            "benchmark", names);
    }
  }
  if (!query.metric.empty()) {
    ASSIGN_OR_RETURN(auto names,
                     Distinct(store, "SELECT name FROM metrics ORDER BY name"));
    if (std::find(names.begin(), names.end(), query.metric) == names.end()) {
      return NothingMatches("--metric", query.metric, "metric", names);
    }
  }
  for (const auto& [option, given, sql] :
       {std::tuple{"--machine", &query.machine,
                   "SELECT DISTINCT machine FROM runs ORDER BY machine"},
        std::tuple{"--branch", &query.branch,
                   "SELECT DISTINCT branch FROM runs ORDER BY branch"}}) {
    if (given->empty()) continue;
    ASSIGN_OR_RETURN(auto names, Distinct(store, sql));
    if (std::find(names.begin(), names.end(), *given) == names.end()) {
      return NothingMatches(option, *given, option + 2, names);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> StoredMachines(
    HistoryStore& store, const std::string& branch) {
  std::vector<std::pair<std::string, int64_t>> out;
  std::string sql = "SELECT machine, COUNT(*) FROM runs";
  std::vector<SqlValue> params;
  if (!branch.empty()) {
    sql += " WHERE branch = ?";
    params.emplace_back(branch);
  }
  sql += " GROUP BY machine ORDER BY machine";
  RETURN_IF_ERROR(store.Query(sql, params, {SqlType::kText, SqlType::kInt},
                              [&](const std::vector<SqlValue>& r) {
                                out.emplace_back(std::get<std::string>(r[0]),
                                                 std::get<int64_t>(r[1]));
                              }));
  return out;
}

absl::StatusOr<std::vector<Series>> ReadSeries(HistoryStore& store,
                                               const SeriesQuery& query) {
  ASSIGN_OR_RETURN(auto benchmarks, Names(store, "benchmarks"));
  ASSIGN_OR_RETURN(auto metrics, Names(store, "metrics"));
  ASSIGN_OR_RETURN(RunMap runs,
                   ReadRuns(store, query.machine, query.branch, "", 0));

  // The benchmarks asked for: all (one scan), or those the filter matches
  // (a scan of each one's key range).
  std::vector<int64_t> wanted;
  if (query.benchmark) {
    for (const auto& [id, name] : benchmarks) {
      if (query.benchmark->Matches(name)) wanted.push_back(id);
    }
    std::sort(wanted.begin(), wanted.end());
  }
  std::string sql = kPointColumns;
  std::vector<SqlValue> params;
  if (query.benchmark) sql += " WHERE benchmark_id = ?";
  if (!query.metric.empty()) {
    sql += query.benchmark ? " AND metric_id = ?" : " WHERE metric_id = ?";
    params.emplace_back(IdOf(metrics, query.metric));
  }
  // Series keyed by (benchmark, metric, machine and branch).
  using Key = std::tuple<int64_t, int64_t, int64_t>;
  absl::flat_hash_map<Key, size_t> index;
  std::vector<Series> out;
  auto row = [&](const std::vector<SqlValue>& r) {
    const auto run = runs.find(std::get<int64_t>(r[2]));
    if (run == runs.end()) return;
    const int64_t bid = std::get<int64_t>(r[0]);
    const int64_t mid = std::get<int64_t>(r[1]);
    const Key key{bid, mid, run->second.group};
    auto [it, inserted] = index.try_emplace(key, out.size());
    if (inserted) {
      Series series;
      series.benchmark = benchmarks[bid];
      series.metric = metrics[mid];
      series.machine = run->second.machine;
      series.branch = run->second.branch;
      out.push_back(std::move(series));
    }
    out[it->second].points.push_back(PointFrom(r, 2, run->second));
  };
  if (query.benchmark) {
    for (int64_t bid : wanted) {
      std::vector<SqlValue> p = {bid};
      p.insert(p.end(), params.begin(), params.end());
      RETURN_IF_ERROR(store.Query(sql, p, kPointTypes, row));
    }
  } else {
    RETURN_IF_ERROR(store.Query(sql, params, kPointTypes, row));
  }
  for (Series& series : out) SortPoints(series.points);
  std::sort(out.begin(), out.end(), [](const Series& a, const Series& b) {
    return std::tie(a.benchmark, a.metric, a.machine, a.branch) <
           std::tie(b.benchmark, b.metric, b.machine, b.branch);
  });
  return out;
}

absl::StatusOr<RecentHistory> ReadRecentHistory(
    HistoryStore& store, const std::vector<std::string>& benchmarks,
    const std::string& machine, const std::string& branch, size_t lookback,
    const std::string& exclude_digest) {
  ASSIGN_OR_RETURN(auto metrics, Names(store, "metrics"));
  ASSIGN_OR_RETURN(RunMap runs,
                   ReadRuns(store, machine, branch, exclude_digest, lookback));
  RecentHistory out;
  if (runs.empty()) return out;
  const std::string sql =
      absl::StrCat(kPointColumns,
                   " WHERE benchmark_id = (SELECT id FROM benchmarks WHERE "
                   "name = ?)");
  for (const std::string& name : benchmarks) {
    RETURN_IF_ERROR(store.Query(
        sql, {name}, kPointTypes, [&](const std::vector<SqlValue>& r) {
          const auto run = runs.find(std::get<int64_t>(r[2]));
          if (run == runs.end()) return;
          out[{name, metrics[std::get<int64_t>(r[1])]}].push_back(
              PointFrom(r, 2, run->second));
        }));
  }
  for (auto& [key, points] : out) SortPoints(points);
  return out;
}

}  // namespace perfcounters::tools
