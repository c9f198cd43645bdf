// tools_history_export_test: `history export --format csv` read by Apache
// Otava 0.8's CSV rules (written down as code below), on both back ends:
// a value not counted is never a number in it, and the runs and columns
// kept are those that keep the most values (a benchmark added later costs
// its own columns, not the older runs). The PostgreSQL cases start the
// throwaway server of support/pg_server.h; they skip with its reason where
// there is none. Natively only, as tools_history_test.
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "re2/re2.h"
#include "support/pg_server.h"
#include "support/tool_runner.h"

namespace {

using perfcounters::tools::testing::PgServer;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunTool;
using perfcounters::tools::testing::ScratchPath;
using ::testing::HasSubstr;
using ::testing::Not;

// Run `i` of BM_a (instructions 1000 + i, task-clock) as gbench JSON: the
// tests add benchmarks and counters to it.
nlohmann::ordered_json ExportRun(int i) {
  nlohmann::ordered_json bm = {
      {"name", "BM_a"},        {"run_name", "BM_a"}, {"run_type", "iteration"},
      {"repetition_index", 0}, {"iterations", 100},  {"real_time", 50.0},
      {"cpu_time", 49.0},      {"time_unit", "ns"},  {"instructions", 1000 + i},
      {"task-clock", 48.0}};
  return {{"context",
           {{"date", "2026-11-30T10:00:00+00:00"},
            {"host_name", "ci"},
            {"num_cpus", 2},
            {"mhz_per_cpu", 3000},
            {"nonce", i}}},
          {"benchmarks", nlohmann::ordered_json::array({bm})}};
}

// `history add` of `run` to `db` as commit c<i> at 10:<i>: its exit code.
int AddExportRun(const std::string& db, int i,
                 const nlohmann::ordered_json& run) {
  const std::string f = ScratchPath(absl::StrCat("export_run", i, ".json"));
  std::ofstream(f, std::ios::binary) << run.dump();
  return RunTool(absl::StrCat("history add --db ", Quote(db),
                              " --branch main --commit c", i,
                              " --time 2026-11-30T10:",
                              absl::StrFormat("%02d", i), ":00Z ", Quote(f)))
      .code;
}

// ---- The CSV export, read as Apache Otava 0.8 reads it.

// Apache Otava 0.8's CSV reader (otava/importer.py, CsvImporter.fetch_data,
// tag 0.8.0-incubating), its rules as code:
// 1. Python's csv.reader, delimiter ',' and quotechar '"' (its defaults,
//    otava/csv_options.py): the excel dialect, a quoted field may hold ','
//    '"' (doubled) and newlines.
// 2. The first row is the header; the time column ("time"), each
//    attribute column ("commit") and each metric column must be in it, or
//    "Column not found".
// 3. Every row has at least as many fields as the header.
// 4. With a "branch" column and no --branch, rows of more than one branch
//    are refused ("contains data from multiple branches"); with --branch,
//    rows of other branches are skipped.
// 5. The time is parsed by dateparser (util.parse_datetime): ISO 8601.
// 6. Every metric cell is Python's float(cell): optional whitespace, a
//    decimal or exponent number, or nan/inf/infinity; anything else, the
//    empty cell included, stops the import ("Could not convert value in
//    column ...: could not convert string to float: ''").
// `Read` returns the error as Otava would say it, or the columns' values.
struct OtavaSeries {
  OtavaSeries() = default;
  // What Otava says when it stops (`return {"..."}` in Read).
  OtavaSeries(std::string e) : error(std::move(e)) {}  // NOLINT: implicit
  std::string error;
  std::vector<std::string> times;
  std::map<std::string, std::vector<double>> metrics;
};

std::vector<std::vector<std::string>> PythonCsvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, in_quotes = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty() && !quoted) {
      in_quotes = quoted = any = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      quoted = false;
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) row.push_back(field);
      if (!row.empty()) rows.push_back(row);
      row.clear();
      field.clear();
      quoted = any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) row.push_back(field);
  if (!row.empty()) rows.push_back(row);
  return rows;
}

// Python's float() of a string.
bool PythonFloat(const std::string& cell, double* out) {
  const std::string s(absl::StripAsciiWhitespace(cell));
  static const re2::RE2 number(
      R"([+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|(?i:nan|inf|infinity)))");
  if (!re2::RE2::FullMatch(s, number)) return false;
  *out = std::strtod(s.c_str(), nullptr);
  return true;
}

OtavaSeries Read(const std::string& csv, const std::vector<std::string>& cols,
                 const std::string& branch = "") {
  OtavaSeries out;
  const auto rows = PythonCsvRows(csv);
  if (rows.empty()) return {"no header"};
  const std::vector<std::string>& h = rows[0];
  auto index = [&](const std::string& c) -> int {
    for (size_t i = 0; i < h.size(); ++i) {
      if (h[i] == c) return static_cast<int>(i);
    }
    return -1;
  };
  const int time = index("time"), commit = index("commit"),
            branch_col = index("branch");
  if (time < 0 || commit < 0) return {"Column not found time/commit"};
  for (const std::string& c : cols) {
    if (index(c) < 0) return {"Column not found " + c};
  }
  std::set<std::string> branches;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    if (row.size() < h.size()) return {"Number of values in the row"};
    if (branch_col >= 0) {
      branches.insert(row[branch_col]);
      if (!branch.empty() && row[branch_col] != branch) continue;
    }
    static const re2::RE2 iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
    if (!re2::RE2::FullMatch(row[time], iso)) {
      return {"Invalid datetime value: " + row[time]};
    }
    out.times.push_back(row[time]);
    for (const std::string& c : cols) {
      double v = 0;
      if (!PythonFloat(row[index(c)], &v)) {
        return {absl::StrCat("Could not convert value in column ", c,
                             ": could not convert string to float: '",
                             row[index(c)], "'")};
      }
      out.metrics[c].push_back(v);
    }
  }
  if (branch_col >= 0 && branch.empty() && branches.size() > 1) {
    return {"CSV file contains data from multiple branches"};
  }
  return out;
}

class HistoryExportTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      if (!PgServer::Get().ok()) {
        GTEST_SKIP() << "SKIPPED (PostgreSQL): " << PgServer::Get().why();
      }
      db_ = PgServer::Get().NewDatabase();
    } else {
      db_ = ScratchPath(absl::StrCat("export", ++count_, ".db"));
    }
    ASSERT_FALSE(db_.empty()) << PgServer::Get().why();
  }
  std::string db_;
  static inline int count_ = 0;
};

// Runs 1-4 of BM_a (instructions, cycles not counted in run 2), BM_b from
// run 3 on: the export of everything, and of one series, each read by
// Otava's rules; a value not counted is never a number in it.
TEST_P(HistoryExportTest, OtavaReadsTheCsv) {
  for (int i = 1; i <= 4; ++i) {
    nlohmann::ordered_json root = ExportRun(i);
    auto& a = root["benchmarks"][0];
    if (i == 2) {
      a["cycles.not_counted"] = 1;
    } else {
      a["cycles"] = 500 + i;
    }
    if (i >= 3) {
      auto b = a;
      b["name"] = b["run_name"] = "BM_b";
      b["instructions"] = 2000 + i;
      root["benchmarks"].push_back(b);
    }
    ASSERT_EQ(AddExportRun(db_, i, root), 0);
  }
  RunResult r =
      RunTool(absl::StrCat("history export --format csv --db ", Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  OtavaSeries s = Read(r.out, {"BM_a.instructions", "BM_a.cycles",
                               "BM_b.instructions", "BM_a.task-clock"});
  ASSERT_EQ(s.error, "") << r.out;
  // Runs 3 and 4 have every series; 1 (no BM_b) and 2 (cycles not
  // counted) are left out, and said to be.
  EXPECT_THAT(s.times, ::testing::ElementsAre("2026-11-30T10:03:00Z",
                                              "2026-11-30T10:04:00Z"));
  EXPECT_THAT(s.metrics["BM_a.cycles"], ::testing::ElementsAre(503, 504));
  EXPECT_THAT(s.metrics["BM_b.instructions"],
              ::testing::ElementsAre(2003, 2004));
  EXPECT_THAT(r.err, HasSubstr("left out 2 of 4 runs"));
  EXPECT_THAT(r.err, HasSubstr("BM_a.cycles (1 runs)"));
  EXPECT_THAT(r.err, HasSubstr("BM_b.instructions (2 runs)"));
  // One series: every run it has a value in.
  r =
      RunTool(absl::StrCat("history export --format csv --benchmark '^BM_a$' "
                           "--metric instructions --db ",
                           Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  s = Read(r.out, {"BM_a.instructions"});
  ASSERT_EQ(s.error, "") << r.out;
  EXPECT_THAT(s.metrics["BM_a.instructions"],
              ::testing::ElementsAre(1001, 1002, 1003, 1004));
  EXPECT_EQ(r.err, "");
  // cycles: runs 1, 3, 4 (2 was not counted: no point, no number).
  r =
      RunTool(absl::StrCat("history export --format csv --benchmark '^BM_a$' "
                           "--metric cycles --db ",
                           Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  s = Read(r.out, {"BM_a.cycles"});
  ASSERT_EQ(s.error, "") << r.out;
  EXPECT_THAT(s.metrics["BM_a.cycles"], ::testing::ElementsAre(501, 503, 504));
  EXPECT_THAT(s.times, Not(::testing::Contains("2026-11-30T10:02:00Z")));
  // The reader itself: an empty cell is what Otava stops on.
  EXPECT_THAT(Read("time,commit,m\n2026-11-30T10:00:00Z,c,\n", {"m"}).error,
              HasSubstr("could not convert string to float: ''"));
}

// A store of 10 runs of BM_a and BM_b, then an 11th that adds BM_new: the
// export keeps all 11 runs of BM_a and BM_b (BM_new's columns, with a
// value in 1 run of 11, are left out and said to be), not BM_new's run
// alone. Before: 1 data row, "left out 10 of 11 runs", exit 0.
TEST_P(HistoryExportTest, ABenchmarkAddedLaterKeepsTheOlderRuns) {
  for (int i = 0; i <= 10; ++i) {
    nlohmann::ordered_json root = ExportRun(i);
    auto b = root["benchmarks"][0];
    b["name"] = b["run_name"] = "BM_b";
    b["instructions"] = 2000 + i;
    root["benchmarks"].push_back(b);
    if (i == 10) {
      b["name"] = b["run_name"] = "BM_new";
      b["instructions"] = 3000;
      root["benchmarks"].push_back(b);
    }
    ASSERT_EQ(AddExportRun(db_, i, root), 0);
  }
  const RunResult r =
      RunTool(absl::StrCat("history export --format csv --db ", Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  const OtavaSeries s = Read(r.out, {"BM_a.instructions", "BM_b.instructions",
                                     "BM_a.cpu_time", "BM_b.task-clock"});
  ASSERT_EQ(s.error, "") << r.out;
  ASSERT_EQ(s.times.size(), 11u) << r.out << r.err;
  EXPECT_EQ(s.times.front(), "2026-11-30T10:00:00Z");
  EXPECT_EQ(s.metrics.at("BM_a.instructions").front(), 1000);
  EXPECT_EQ(s.metrics.at("BM_b.instructions").back(), 2010);
  EXPECT_THAT(r.out, Not(HasSubstr("BM_new")));
  EXPECT_THAT(r.err, HasSubstr("BM_new.instructions (1 of 11 runs)"));
  EXPECT_THAT(r.err, Not(HasSubstr("runs that have no value")));
  // BM_new on its own: its one run.
  const RunResult one = RunTool(absl::StrCat(
      "history export --format csv --benchmark BM_new --db ", Quote(db_)));
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(
      Read(one.out, {"BM_new.instructions"}).metrics.at("BM_new.instructions"),
      std::vector<double>{3000});
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryExportTest,
                         ::testing::Values("sqlite", "postgresql"));

}  // namespace
