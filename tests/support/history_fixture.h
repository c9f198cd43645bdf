// history_fixture.h: what the `perfcounters history` tests
// (tools_history_test, tools_history_changes_test) share: synthetic gbench
// runs and the HistoryTest fixture, parameterized by the
// back end (SQLite, or PostgreSQL through support/pg_server.h).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_HISTORY_FIXTURE_H_
#define PERFCOUNTERS_TESTS_SUPPORT_HISTORY_FIXTURE_H_

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "history.h"
#include "history_store.h"
#include "nlohmann/json.hpp"
#include "support/pg_server.h"
#include "support/tool_runner.h"

namespace perfcounters::tools::testing {

// A gbench JSON run of BM_a with `instructions` (and, unless
// `cycles_counted` is false, cycles).
inline std::string RunJson(double instructions, int i,
                           bool cycles_counted = true) {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "2026-11-30T10:00:00+00:00"},
                     {"host_name", "ci"},
                     {"num_cpus", 2},
                     {"mhz_per_cpu", 3000},
                     {"nonce", i}};
  nlohmann::ordered_json e = {{"name", "BM_a"},
                              {"run_name", "BM_a"},
                              {"run_type", "iteration"},
                              {"repetition_index", 0},
                              {"iterations", 100},
                              {"real_time", 50.0 + i % 3},
                              {"cpu_time", 49.0},
                              {"time_unit", "ns"},
                              {"instructions", instructions}};
  if (cycles_counted) {
    e["cycles"] = instructions / 2;
  } else {
    e["cycles.not_counted"] = 1;
  }
  root["benchmarks"] = nlohmann::ordered_json::array({e});
  return root.dump();
}

inline std::string Write(const std::string& name, const std::string& text) {
  std::string path = ScratchPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

class HistoryTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql" && !PgServer::Get().ok()) {
      GTEST_SKIP() << "SKIPPED (PostgreSQL): " << PgServer::Get().why();
    }
    db_ = NewStore();
    ASSERT_FALSE(db_.empty()) << "no database: " << PgServer::Get().why();
  }

  // A new, empty store of this back end (empty when CREATE DATABASE failed).
  std::string NewStore() {
    if (GetParam() == "sqlite") {
      return ScratchPath(absl::StrCat("store", ++count_, ".db"));
    }
    return PgServer::Get().NewDatabase();
  }

  // Run n of a series (AddSeries()): its file, and its identity (commit
  // c<n>, branch main, n minutes after 10:00).
  static std::string SeriesFile(double value, int n) {
    return Write(absl::StrCat("run", n, ".json"), RunJson(value, n));
  }
  static RunIdentity SeriesIdentity(int n) {
    RunIdentity id;
    id.commit = absl::StrCat("c", n);
    id.branch = "main";
    id.time = absl::StrCat("2026-11-30T", 10 + n / 60, ":",
                           absl::StrFormat("%02d", n % 60), ":00Z");
    return id;
  }

  // Adds runs `first`, `first` + 1, ... of `values`, each stored as
  // `history add --commit c<n> --branch main --time ...` of its file stores
  // it: by the command's own add of one file (AddRunText()), on one open
  // store. (A command per run costs a process and, on PostgreSQL, a
  // connection with its SCRAM login per point.)
  // SeriesInProcessIsStoredAsTheCommandStoresIt holds the two equal.
  void AddSeries(const std::vector<double>& values, int first = 1) {
    auto store = perfcounters::tools::OpenHistoryStore(db_);
    ASSERT_TRUE(store.ok()) << store.status();
    for (size_t i = 0; i < values.size(); ++i) {
      const int n = first + static_cast<int>(i);
      const std::string f = SeriesFile(values[i], n);
      const auto r = perfcounters::tools::AddRunText(**store, Slurp(f), f,
                                                     SeriesIdentity(n));
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_FALSE(r->already_stored) << f;
    }
  }

  // The same through the command: one `history add` per run.
  void AddSeriesWithTheCommand(const std::vector<double>& values,
                               int first = 1) {
    for (size_t i = 0; i < values.size(); ++i) {
      const int n = first + static_cast<int>(i);
      const std::string f = SeriesFile(values[i], n);
      const RunIdentity id = SeriesIdentity(n);
      const RunResult r = RunTool(absl::StrCat(
          "history add --db ", Quote(db_), " --commit ", id.commit,
          " --branch ", id.branch, " --time ", id.time, " ", Quote(f)));
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }

  // `history changes` by `method` (the tests of Otava's behaviour name it;
  // the simple cases hold the default method to the same answers).
  nlohmann::json Changes(const std::string& method = "otava") {
    const RunResult r =
        RunTool(absl::StrCat("history changes --format json --db ", Quote(db_),
                             " --metric instructions --method ", method));
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  int RunCount() {
    const RunResult r =
        RunTool(absl::StrCat("history export --format csv --db ", Quote(db_)));
    if (r.code != 0) return -1;
    int lines = 0;
    for (char c : r.out) lines += c == '\n';
    return lines - 1;
  }

  // Everything the store holds of its runs but their "added" time, a row
  // of text each: the runs, their points, and the numbers of runs,
  // repetition values and aggregate values.
  std::vector<std::string> Stored() {
    using perfcounters::tools::SqlType;
    using perfcounters::tools::SqlValue;
    auto store = perfcounters::tools::OpenHistoryStore(db_);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return {};
    std::vector<std::string> rows;
    const auto append = [&](const std::vector<SqlValue>& row) {
      std::string& out = rows.emplace_back();
      for (const SqlValue& v : row) {
        if (const auto* i = std::get_if<int64_t>(&v)) {
          absl::StrAppend(&out, *i, "|");
        } else if (const auto* d = std::get_if<double>(&v)) {
          absl::StrAppend(&out, absl::StrFormat("%.17g", *d), "|");
        } else if (const auto* t = std::get_if<std::string>(&v)) {
          absl::StrAppend(&out, *t, "|");
        } else {
          out += "NULL|";
        }
      }
    };
    const SqlType kInt = SqlType::kInt, kDouble = SqlType::kDouble,
                  kText = SqlType::kText;
    for (const auto& [sql, types] :
         std::vector<std::pair<const char*, std::vector<SqlType>>>{
             {"SELECT id, digest, machine, commit_sha, branch, time, source, "
              "context FROM runs ORDER BY id",
              {kInt, kText, kText, kText, kText, kText, kText, kText}},
             {"SELECT p.run_id, b.name, m.name, p.value, p.lo, p.hi, "
              "p.samples, p.not_counted, p.from_aggregate, p.coverage FROM "
              "points p JOIN benchmarks b ON b.id = p.benchmark_id JOIN "
              "metrics m ON m.id = p.metric_id ORDER BY p.run_id, b.name, "
              "m.name",
              {kInt, kText, kText, kDouble, kDouble, kDouble, kInt, kInt, kInt,
               kDouble}},
             {"SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM "
              "samples), (SELECT COUNT(*) FROM aggregates)",
              {kInt, kInt, kInt}}}) {
      const absl::Status s = (*store)->Query(sql, {}, types, append);
      EXPECT_TRUE(s.ok()) << s;
    }
    return rows;
  }

  std::string db_;
  static inline int count_ = 0;
};

}  // namespace perfcounters::tools::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_HISTORY_FIXTURE_H_
