// history_read.cc: reading series back from the history store (history.h).
// The runs' attributes are read once, with their place in run order; the
// points are read without a join, one benchmark at a time (a range of the
// points table's key: benchmark, metric, run), and carry their run's
// place, not its commit and time (a string per point was most of the cost
// of reading a large store).
#include <malloc.h>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "history.h"
#include "oom_safe_map.h"
#include "perfcounters/internal/edit_distance.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

struct RunInfo {
  std::string commit;
  std::string time;
  std::string machine;
  std::string branch;
  // The same for runs of the same machine and branch.
  int64_t group = 0;
  // The run's place in run order (time, then id) among the runs read.
  int64_t rank = 0;
};

using RunMap = OomSafeMap<int64_t, RunInfo>;

absl::StatusOr<OomSafeMap<int64_t, std::string>> Names(HistoryStore& store,
                                                       const char* table) {
  OomSafeMap<int64_t, std::string> names;
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
  OomSafeMap<std::pair<std::string, std::string>, int64_t> groups;
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
  std::vector<std::pair<const RunInfo*, int64_t>> order;
  order.reserve(runs.size());
  for (const auto& [id, run] : runs) order.emplace_back(&run, id);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first->time, a.second) <
           std::tie(b.first->time, b.second);
  });
  for (size_t i = 0; i < order.size(); ++i) {
    runs[order[i].second].rank = static_cast<int64_t>(i);
  }
  return runs;
}

// The runs of a RunMap by id: a table indexed by id where the ids are
// dense (SQLite's and PostgreSQL's are numbered from 1), the map
// otherwise. Every point read looks its run up.
class RunTable {
 public:
  explicit RunTable(const RunMap& runs) : runs_(runs) {
    int64_t top = -1;
    for (const auto& [id, run] : runs) top = std::max(top, id);
    if (top < 0 || static_cast<uint64_t>(top) > 4 * runs.size() + 1024) return;
    dense_.assign(static_cast<size_t>(top) + 1, nullptr);
    for (const auto& [id, run] : runs) {
      if (id >= 0) dense_[static_cast<size_t>(id)] = &run;
    }
    negative_ = std::any_of(runs.begin(), runs.end(),
                            [](const auto& r) { return r.first < 0; });
  }

  const RunInfo* Find(int64_t id) const {
    if (!dense_.empty() && id >= 0) {
      return static_cast<uint64_t>(id) < dense_.size()
                 ? dense_[static_cast<size_t>(id)]
                 : nullptr;
    }
    if (!dense_.empty() && !negative_) return nullptr;
    const auto it = runs_.find(id);
    return it == runs_.end() ? nullptr : &it->second;
  }

 private:
  const RunMap& runs_;
  std::vector<const RunInfo*> dense_;
  bool negative_ = false;
};

// A point from a row of kPointColumns (metric_id, run_id, value, lo, hi,
// coverage), without its run's commit and time.
SeriesPoint PointFrom(const SqlNumber* r) {
  SeriesPoint p;
  p.run_id = r[1].i;
  if (!r[2].null) {
    p.value = r[2].d;
    p.lo = r[3].null ? r[2].d : r[3].d;
    p.hi = r[4].null ? r[2].d : r[4].d;
    if (!r[5].null) p.coverage = r[5].d;
  }
  return p;
}

// The columns PointFrom() reads (the benchmark is the query's).
constexpr const char* kPointColumns =
    "SELECT metric_id, run_id, value, lo, hi, coverage FROM points";
const std::vector<SqlType> kPointTypes = {SqlType::kInt,    SqlType::kInt,
                                          SqlType::kDouble, SqlType::kDouble,
                                          SqlType::kDouble, SqlType::kDouble};

// A series' points as read, with their runs' places in run order.
struct RankedPoints {
  std::vector<int64_t> ranks;
  std::vector<SeriesPoint> points;
  void Reserve(size_t n) {
    ranks.reserve(n);
    points.reserve(n);
  }
  void Add(int64_t rank, SeriesPoint point) {
    ranks.push_back(rank);
    points.push_back(std::move(point));
  }
};

// The points in run order (they are read in run id order, which is run
// order unless runs were added out of time order).
std::vector<SeriesPoint> InRunOrder(RankedPoints& ranked) {
  if (std::is_sorted(ranked.ranks.begin(), ranked.ranks.end())) {
    return std::move(ranked.points);
  }
  std::vector<size_t> order(ranked.points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranked.ranks[a] < ranked.ranks[b];
  });
  std::vector<SeriesPoint> points;
  points.reserve(order.size());
  for (size_t i : order) points.push_back(std::move(ranked.points[i]));
  return points;
}

// glibc gives the heap's top back to the system whenever more than 128 KB
// of it are free: reading a store one benchmark at a time would grow and
// trim it once per benchmark (page faults: a third of the CPU time of
// `history changes` on a large store). Kept up to 64 MB instead.
void KeepHeapTop() {
  static const bool once = [] {
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    return true;
  }();
  (void)once;
}

int64_t IdOf(const OomSafeMap<int64_t, std::string>& names,
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

absl::Status ForEachSeries(
    HistoryStore& store, const SeriesQuery& query,
    const std::function<void(Series& series, const PointLabeler& label)>&
        visit) {
  ASSIGN_OR_RETURN(auto benchmarks, Names(store, "benchmarks"));
  ASSIGN_OR_RETURN(auto metrics, Names(store, "metrics"));
  ASSIGN_OR_RETURN(RunMap runs,
                   ReadRuns(store, query.machine, query.branch, "", 0));
  // The benchmarks asked for, by name: the series come in name order.
  std::vector<std::pair<std::string, int64_t>> wanted;
  for (const auto& [id, name] : benchmarks) {
    if (!query.benchmark || query.benchmark->Matches(name)) {
      wanted.emplace_back(name, id);
    }
  }
  std::sort(wanted.begin(), wanted.end());
  std::string sql = absl::StrCat(kPointColumns, " WHERE benchmark_id = ?");
  std::vector<SqlValue> params = {int64_t{0}};
  if (!query.metric.empty()) {
    sql += " AND metric_id = ?";
    params.emplace_back(IdOf(metrics, query.metric));
  }
  const PointLabeler label = [&runs](SeriesPoint& p) {
    const auto run = runs.find(p.run_id);
    if (run == runs.end()) return;
    p.commit = run->second.commit;
    p.time = run->second.time;
  };
  // One benchmark's series, keyed by (metric, machine and branch).
  struct Partial {
    const RunInfo* run = nullptr;  // of the first point: machine, branch
    int64_t metric = 0;
    RankedPoints points;
  };
  // A series holds at most its group's runs: its vectors are sized once.
  std::vector<size_t> group_runs;
  for (const auto& [id, run] : runs) {
    const size_t g = static_cast<size_t>(run.group);
    if (g >= group_runs.size()) group_runs.resize(g + 1, 0);
    ++group_runs[g];
  }
  const RunTable run_of(runs);
  KeepHeapTop();
  OomSafeMap<std::pair<int64_t, int64_t>, size_t> index;
  std::vector<Partial> partial;
  for (const auto& [name, bid] : wanted) {
    index.clear();
    partial.clear();
    params[0] = bid;
    // The rows come in key order (metric, run): most rows belong to the
    // series of the row before.
    std::pair<int64_t, int64_t> last_key = {-1, -1};
    size_t last = 0;
    RETURN_IF_ERROR(
        store.QueryNumbers(sql, params, kPointTypes, [&](const SqlNumber* r) {
          const RunInfo* run = run_of.Find(r[1].i);
          if (run == nullptr) return;
          const std::pair<int64_t, int64_t> key = {r[0].i, run->group};
          if (key != last_key) {
            auto [it, inserted] = index.try_emplace(key, partial.size());
            if (inserted) {
              partial.push_back({run, key.first, {}});
              partial.back().points.Reserve(
                  group_runs[static_cast<size_t>(key.second)]);
            }
            last_key = key;
            last = it->second;
          }
          partial[last].points.Add(run->rank, PointFrom(r));
        }));
    std::vector<Series> series(partial.size());
    for (size_t i = 0; i < partial.size(); ++i) {
      series[i].benchmark = name;
      series[i].metric = metrics[partial[i].metric];
      series[i].machine = partial[i].run->machine;
      series[i].branch = partial[i].run->branch;
      series[i].points = InRunOrder(partial[i].points);
    }
    std::sort(series.begin(), series.end(),
              [](const Series& a, const Series& b) {
                return std::tie(a.metric, a.machine, a.branch) <
                       std::tie(b.metric, b.machine, b.branch);
              });
    for (Series& one : series) visit(one, label);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Series>> ReadSeries(HistoryStore& store,
                                               const SeriesQuery& query) {
  std::vector<Series> out;
  RETURN_IF_ERROR(ForEachSeries(
      store, query, [&out](Series& series, const PointLabeler& label) {
        for (SeriesPoint& p : series.points) label(p);
        out.push_back(std::move(series));
      }));
  return out;
}

absl::Status AddAbsentRuns(HistoryStore& store, std::vector<Series>& series) {
  ASSIGN_OR_RETURN(RunMap runs, ReadRuns(store, "", "", "", 0));
  // Each machine and branch's runs in run order.
  struct Ranked {
    int64_t rank;
    int64_t id;
    const RunInfo* run;
    bool operator<(const Ranked& o) const { return rank < o.rank; }
  };
  OomSafeMap<std::pair<std::string, std::string>, std::vector<Ranked>> groups;
  for (const auto& [id, run] : runs) {
    groups[{run.machine, run.branch}].push_back({run.rank, id, &run});
  }
  for (auto& [key, group] : groups) std::sort(group.begin(), group.end());
  auto rank_of = [&runs](const SeriesPoint& p) {
    const auto it = runs.find(p.run_id);
    return it == runs.end() ? int64_t{-1} : it->second.rank;
  };
  for (Series& s : series) {
    const auto group = groups.find(std::pair{s.machine, s.branch});
    if (s.points.empty() || group == groups.end()) continue;
    const int64_t first = rank_of(s.points.front());
    const int64_t last = rank_of(s.points.back());
    if (first < 0 || last < 0 ||
        static_cast<int64_t>(s.points.size()) > last - first) {
      continue;  // every run of the span has its point
    }
    std::vector<SeriesPoint> all;
    all.reserve(static_cast<size_t>(last - first + 1));
    size_t next = 0;
    for (const auto& [rank, id, run] : group->second) {
      if (rank < first || rank > last) continue;
      while (next < s.points.size() && rank_of(s.points[next]) < rank) {
        all.push_back(std::move(s.points[next++]));
      }
      if (next < s.points.size() && rank_of(s.points[next]) == rank) {
        all.push_back(std::move(s.points[next++]));
        continue;
      }
      SeriesPoint p;
      p.run_id = id;
      p.absent = true;
      p.commit = run->commit;
      p.time = run->time;
      all.push_back(std::move(p));
    }
    while (next < s.points.size()) all.push_back(std::move(s.points[next++]));
    s.points = std::move(all);
  }
  return absl::OkStatus();
}

absl::Status ForEachRecentHistory(
    HistoryStore& store, const std::vector<std::string>& benchmarks,
    const std::vector<std::string>& metrics, const std::string& machine,
    const std::string& branch, size_t lookback,
    const std::string& exclude_digest,
    const std::function<void(size_t i, RecentHistory& history)>& visit) {
  ASSIGN_OR_RETURN(auto names, Names(store, "metrics"));
  ASSIGN_OR_RETURN(RunMap runs,
                   ReadRuns(store, machine, branch, exclude_digest, lookback));
  // The metrics asked for that the store has (none: nothing to read).
  std::vector<int64_t> metric_ids;
  for (const std::string& metric : metrics) {
    if (const int64_t id = IdOf(names, metric); id >= 0) {
      metric_ids.push_back(id);
    }
  }
  const bool read = !runs.empty() && (metrics.empty() || !metric_ids.empty());
  // Only the points of runs from the lowest id of those read on (with a
  // metric given, a seek in the key benchmark, metric, run), so that a
  // check reads about `lookback` points a series however many runs the
  // store holds; runs added out of time order, and other machines' and
  // branches' runs since, only widen it (`row` keeps the runs read).
  int64_t first_run = std::numeric_limits<int64_t>::max();
  for (const auto& entry : runs) first_run = std::min(first_run, entry.first);
  std::string sql =
      absl::StrCat(kPointColumns,
                   " WHERE benchmark_id = (SELECT id FROM benchmarks WHERE "
                   "name = ?)");
  if (!metrics.empty()) sql += " AND metric_id = ?";
  sql += " AND run_id >= ?";
  OomSafeMap<int64_t, RankedPoints> by_metric;
  KeepHeapTop();
  RecentHistory history;
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    by_metric.clear();
    history.clear();
    auto row = [&](const SqlNumber* r) {
      const auto run = runs.find(r[1].i);
      if (run == runs.end()) return;
      by_metric[r[0].i].Add(run->second.rank, PointFrom(r));
    };
    if (read && metrics.empty()) {
      RETURN_IF_ERROR(store.QueryNumbers(sql, {benchmarks[i], first_run},
                                         kPointTypes, row));
    } else if (read) {
      for (int64_t mid : metric_ids) {
        RETURN_IF_ERROR(store.QueryNumbers(sql, {benchmarks[i], mid, first_run},
                                           kPointTypes, row));
      }
    }
    for (auto& [mid, points] : by_metric) {
      history[names[mid]] = InRunOrder(points);
    }
    visit(i, history);
  }
  return absl::OkStatus();
}

}  // namespace perfcounters::tools
