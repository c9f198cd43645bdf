// history_read.cc: reading series back from the history store (history.h).
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "history.h"

namespace perfcounters::tools {
namespace {

absl::StatusOr<absl::flat_hash_map<int64_t, std::string>> Names(
    HistoryStore& store, const char* table) {
  absl::flat_hash_map<int64_t, std::string> names;
  absl::Status s = store.Query(
      absl::StrCat("SELECT id, name FROM ", table), {},
      {SqlType::kInt, SqlType::kText}, [&](const std::vector<SqlValue>& r) {
        names[std::get<int64_t>(r[0])] = std::get<std::string>(r[1]);
      });
  if (!s.ok()) return s;
  return names;
}

SeriesPoint PointFrom(const std::vector<SqlValue>& r, size_t first) {
  SeriesPoint p;
  p.run_id = std::get<int64_t>(r[first]);
  p.commit = std::get<std::string>(r[first + 1]);
  p.time = std::get<std::string>(r[first + 2]);
  if (const auto* v = std::get_if<double>(&r[first + 3])) {
    p.value = *v;
    p.lo = *v;
    p.hi = *v;
    if (const auto* lo = std::get_if<double>(&r[first + 4])) p.lo = *lo;
    if (const auto* hi = std::get_if<double>(&r[first + 5])) p.hi = *hi;
  }
  return p;
}

const std::vector<SqlType> kPointTypes = {SqlType::kInt,    SqlType::kText,
                                          SqlType::kText,   SqlType::kDouble,
                                          SqlType::kDouble, SqlType::kDouble};

}  // namespace

absl::StatusOr<std::vector<Series>> ReadSeries(HistoryStore& store,
                                               const SeriesQuery& query) {
  absl::StatusOr<absl::flat_hash_map<int64_t, std::string>> benchmarks =
      Names(store, "benchmarks");
  if (!benchmarks.ok()) return benchmarks.status();
  absl::StatusOr<absl::flat_hash_map<int64_t, std::string>> metrics =
      Names(store, "metrics");
  if (!metrics.ok()) return metrics.status();

  std::string sql =
      "SELECT p.benchmark_id, p.metric_id, r.machine, r.branch, r.id, "
      "r.commit_sha, r.time, p.value, p.lo, p.hi FROM points p JOIN runs r ON "
      "r.id = p.run_id WHERE 1 = 1";
  std::vector<SqlValue> params;
  if (!query.machine.empty()) {
    sql += " AND r.machine = ?";
    params.emplace_back(query.machine);
  }
  if (!query.branch.empty()) {
    sql += " AND r.branch = ?";
    params.emplace_back(query.branch);
  }
  if (!query.metric.empty()) {
    int64_t id = -1;
    for (const auto& [k, v] : *metrics) {
      if (v == query.metric) id = k;
    }
    sql += " AND p.metric_id = ?";
    params.emplace_back(id);
  }
  // Series keyed by (benchmark, metric, machine, branch).
  using Key = std::tuple<int64_t, int64_t, std::string, std::string>;
  absl::flat_hash_map<Key, size_t> index;
  std::vector<Series> out;
  absl::flat_hash_map<int64_t, bool> wanted;
  std::vector<SqlType> types = {SqlType::kInt, SqlType::kInt, SqlType::kText,
                                SqlType::kText};
  types.insert(types.end(), kPointTypes.begin(), kPointTypes.end());
  absl::Status s =
      store.Query(sql, params, types, [&](const std::vector<SqlValue>& r) {
        const int64_t bid = std::get<int64_t>(r[0]);
        if (query.benchmark) {
          auto [it, inserted] = wanted.try_emplace(bid, false);
          if (inserted)
            it->second = query.benchmark->Matches((*benchmarks)[bid]);
          if (!it->second) return;
        }
        Key key{bid, std::get<int64_t>(r[1]), std::get<std::string>(r[2]),
                std::get<std::string>(r[3])};
        auto [it, inserted] = index.try_emplace(key, out.size());
        if (inserted) {
          Series series;
          series.benchmark = (*benchmarks)[bid];
          series.metric = (*metrics)[std::get<int64_t>(r[1])];
          series.machine = std::get<std::string>(r[2]);
          series.branch = std::get<std::string>(r[3]);
          out.push_back(std::move(series));
        }
        out[it->second].points.push_back(PointFrom(r, 4));
      });
  if (!s.ok()) return s;
  for (Series& series : out) {
    std::sort(series.points.begin(), series.points.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) {
                return std::tie(a.time, a.run_id) < std::tie(b.time, b.run_id);
              });
  }
  std::sort(out.begin(), out.end(), [](const Series& a, const Series& b) {
    return std::tie(a.benchmark, a.metric, a.machine, a.branch) <
           std::tie(b.benchmark, b.metric, b.machine, b.branch);
  });
  return out;
}

absl::StatusOr<std::vector<SeriesPoint>> ReadRecentPoints(
    HistoryStore& store, const std::string& benchmark,
    const std::string& metric, const std::string& machine,
    const std::string& branch, size_t limit,
    const std::string& exclude_digest) {
  std::string sql =
      "SELECT r.id, r.commit_sha, r.time, p.value, p.lo, p.hi FROM points p "
      "JOIN runs r ON r.id = p.run_id WHERE p.benchmark_id = (SELECT id FROM "
      "benchmarks WHERE name = ?) AND p.metric_id = (SELECT id FROM metrics "
      "WHERE name = ?) AND r.machine = ? AND r.digest <> ?";
  std::vector<SqlValue> params = {benchmark, metric, machine, exclude_digest};
  if (!branch.empty()) {
    sql += " AND r.branch = ?";
    params.emplace_back(branch);
  }
  sql += " ORDER BY r.time DESC, r.id DESC LIMIT ?";
  params.emplace_back(static_cast<int64_t>(limit));
  std::vector<SeriesPoint> points;
  absl::Status s = store.Query(sql, params, kPointTypes,
                               [&](const std::vector<SqlValue>& r) {
                                 points.push_back(PointFrom(r, 0));
                               });
  if (!s.ok()) return s;
  std::reverse(points.begin(), points.end());
  return points;
}

}  // namespace perfcounters::tools
