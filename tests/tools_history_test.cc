// tools_history_test: `perfcounters history` on both back ends: SQLite (a
// temporary file) and a real PostgreSQL server the test starts itself
// (support/pg_server.h: initdb into a temporary directory, the server on a
// Unix socket there, as nobody when the test runs as root; a throwaway
// server, without fsync, that goes when the test binary does).
// What a store keeps of a run (not-counted values, repetitions, coverage,
// context), its schema, concurrent and interrupted adds, export, and the
// faults of a store; change points and check: tools_history_changes_test
// (the fixture: support/history_fixture.h). Every command runs as the built
// `perfcounters`, but the runs of a series are put into the store in this
// process, by `history add`'s own add of a run (AddRunText(); a test holds
// it to what the command stores): a series of 60 runs costs no 60
// processes and PostgreSQL logins.
// Natively only: the emulated arm64 machine has no PostgreSQL server, and
// nothing here touches the PMU.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history.h"
#include "history_store.h"
#include "nlohmann/json.hpp"
#include "support/history_fixture.h"
#include "support/pg_server.h"
#include "support/status_matchers.h"
#include "support/tool_runner.h"

namespace {

using ::perfcounters::testing::IsOk;
using perfcounters::tools::testing::HistoryTest;
using perfcounters::tools::testing::PgServer;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunJson;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunShell;
using perfcounters::tools::testing::RunTool;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::Write;
using ::testing::HasSubstr;
using ::testing::Not;

// AddSeries() stores runs as `history add` of the same files does.
TEST_P(HistoryTest, SeriesInProcessIsStoredAsTheCommandStoresIt) {
  const std::vector<double> v = {1000, 1000.2, 999.9, 1020.5};
  AddSeriesWithTheCommand(v, 59);  // 10:59, then 11:00 (n / 60)
  const std::vector<std::string> by_command = Stored();
  EXPECT_THAT(by_command, ::testing::Contains(
                              HasSubstr("|c60|main|2026-11-30T11:00:00Z|")));
  // 4 runs, 6 points each (IPC and cpi derived), no repetition values.
  ASSERT_EQ(by_command.size(), 4u + 4 * 6 + 1);
  EXPECT_EQ(by_command.back(), "4|0|0|");
  db_ = NewStore();
  ASSERT_FALSE(db_.empty()) << "no database: " << PgServer::Get().why();
  AddSeries(v, 59);
  const std::vector<std::string> in_process = Stored();
  ASSERT_EQ(in_process.size(), by_command.size());
  for (size_t i = 0; i < by_command.size(); ++i) {
    EXPECT_EQ(in_process[i], by_command[i]);
  }
}

TEST_P(HistoryTest, NotCountedStaysNotCounted) {
  const std::string f = Write("nc.json", RunJson(1000, 1, false));
  RunResult r = RunTool(absl::StrCat("history add --db ", Quote(db_),
                                     " --branch main ", Quote(f)));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("3 not counted"));
  r = RunTool(absl::StrCat("history export --format csv --db ", Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  // cycles was never counted: no column (a CSV cell for Otava must be a
  // number, and 0 would be a lie), said on stderr. (No field of this run
  // has a comma.)
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("BM_a.cycles")));
  EXPECT_THAT(r.err, HasSubstr("never counted"));
  EXPECT_THAT(r.err, HasSubstr("BM_a.cycles"));
  const std::string row = r.out.substr(r.out.find('\n') + 1);
  const std::string header = r.out.substr(0, r.out.find('\n'));
  std::vector<std::string> h = absl::StrSplit(header, ',');
  std::vector<std::string> c =
      absl::StrSplit(row.substr(0, row.find('\n')), ',');
  ASSERT_EQ(h.size(), c.size());
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i] == "BM_a.instructions") {
      EXPECT_EQ(c[i], "1000");
    }
  }
  // check cannot check cycles, and says so (exit 2: checked nothing).
  AddSeries({1000, 1000.2, 999.9});
  const std::string g = Write("nc2.json", RunJson(1000, 99, false));
  r = RunTool(absl::StrCat("history check --db ", Quote(db_),
                           " --branch main --fail-on 'cycles>+1%' ", Quote(g)));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("not counted in the new run"));
}

TEST_P(HistoryTest, SameRunTwiceIsStoredOnce) {
  const std::string f = Write("twice.json", RunJson(1000, 1));
  for (int i = 0; i < 2; ++i) {
    const RunResult r =
        RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)));
    ASSERT_EQ(r.code, 0) << r.err;
    if (i == 1) {
      EXPECT_THAT(r.err, HasSubstr("stored already"));
    }
  }
  EXPECT_EQ(RunCount(), 1);
}

TEST_P(HistoryTest, BadRunJsonIsRefusedAndNothingStored) {
  AddSeries({1000});
  const std::string full = RunJson(1000, 77);
  const std::string truncated =
      Write("trunc.json", full.substr(0, full.size() / 2));
  const std::string other = Write("other.json", "{\"hello\": [1, 2]}");
  for (const std::string& f : {truncated, other}) {
    const RunResult r =
        RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)));
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr(f));
  }
  EXPECT_EQ(RunCount(), 1);
}

TEST_P(HistoryTest, NewerSchemaIsRefused) {
  AddSeries({1000});
  {
    auto store = perfcounters::tools::OpenHistoryStore(db_);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_THAT(
        (*store)->Exec("UPDATE perfcounters_meta SET value = '99' WHERE "
                       "key = 'schema_version'"),
        IsOk());
  }
  const std::string f = Write("newer.json", RunJson(1000, 5));
  const RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("schema version 99"));
  EXPECT_THAT(r.err, HasSubstr("newer perfcounters"));
}

TEST_P(HistoryTest, ConcurrentAddsLoseNothing) {
  AddSeries({1000});  // the schema exists
  std::vector<std::string> a, b;
  for (int i = 0; i < 15; ++i) {
    a.push_back(Write(absl::StrCat("ca", i, ".json"), RunJson(1000, 100 + i)));
    b.push_back(Write(absl::StrCat("cb", i, ".json"), RunJson(1000, 200 + i)));
  }
  const std::string tool = Quote(perfcounters::tools::testing::ToolPath());
  std::string cmd;
  for (const auto* files : {&a, &b}) {
    absl::StrAppend(&cmd, tool, " history add --db ", Quote(db_));
    for (const std::string& f : *files) absl::StrAppend(&cmd, " ", Quote(f));
    cmd += " & p$((++n))=$!; ";
  }
  cmd = absl::StrCat("n=0; ", cmd, "wait $p1 && wait $p2");
  const RunResult r = RunShell(absl::StrCat("bash -c ", Quote(cmd)));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(RunCount(), 31);
}

TEST_P(HistoryTest, AddKilledMidwayLeavesTheStoreAsItWas) {
  AddSeries({1000, 1001});
  const std::string f = Write("killed.json", RunJson(1000, 300));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The command built with its fault-injection points (tests only).
    setenv("PERFCOUNTERS_HISTORY_STOP_AFTER", "3", 1);
    const std::string tool = PERFCOUNTERS_TOOL_FAULTS;
    execl(tool.c_str(), tool.c_str(), "history", "add", "--db", db_.c_str(),
          f.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
  ASSERT_TRUE(WIFSTOPPED(status)) << "the add did not reach its stop point";
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(RunCount(), 2);
  // Usable: the same run adds whole now.
  const RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(RunCount(), 3);
}

TEST_P(HistoryTest, ExportsBencherMetricFormat) {
  AddSeries({1000, 1002});
  const RunResult r =
      RunTool(absl::StrCat("history export --format bmf --db ", Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["BM_a"]["instructions"]["value"], 1002);
  EXPECT_EQ(j["BM_a"]["cycles"]["value"], 501);
  EXPECT_TRUE(j["BM_a"].contains("IPC"));  // derived: instructions / cycles
  EXPECT_DOUBLE_EQ(j["BM_a"]["IPC"]["value"].get<double>(), 2.0);
}

TEST_P(HistoryTest, RepetitionsAndAggregatesAreStored) {
  nlohmann::ordered_json root = nlohmann::json::parse(RunJson(1000, 1, false));
  nlohmann::ordered_json e = root["benchmarks"][0];
  root["benchmarks"] = nlohmann::ordered_json::array();
  for (int r = 0; r < 3; ++r) {
    e["repetition_index"] = r;
    e["instructions"] = 1000 + r;
    root["benchmarks"].push_back(e);
  }
  e["name"] = "BM_a_mean";
  e["run_type"] = "aggregate";
  e["aggregate_name"] = "mean";
  e["instructions"] = 1001;
  e.erase("repetition_index");
  root["benchmarks"].push_back(e);
  const std::string f = Write("reps.json", root.dump());
  const RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)));
  ASSERT_EQ(r.code, 0) << r.err;
  // real_time, cpu_time, instructions, cycles (not counted) per entry.
  EXPECT_THAT(r.err, HasSubstr("12 repetition values, 4 aggregate values"));
  const RunResult bmf =
      RunTool(absl::StrCat("history export --format bmf --db ", Quote(db_)));
  ASSERT_EQ(bmf.code, 0) << bmf.err;
  const nlohmann::json j = nlohmann::json::parse(bmf.out);
  EXPECT_EQ(j["BM_a"]["instructions"]["value"], 1001);
  EXPECT_EQ(j["BM_a"]["instructions"]["lower_value"], 1000);
  EXPECT_EQ(j["BM_a"]["instructions"]["upper_value"], 1002);
  EXPECT_FALSE(j["BM_a"].contains("cycles"));  // not counted: no value
}

// A run whose instructions were multiplexed (on the PMU 40 % of the
// batch) and whose cycles were not: both kept as such.
std::string MultiplexedRunJson(double instructions, int i) {
  nlohmann::ordered_json root = nlohmann::json::parse(RunJson(instructions, i));
  root["benchmarks"][0]["instructions.coverage"] = 0.4;
  return root.dump();
}

TEST_P(HistoryTest, CoverageIsStoredAndFlagged) {
  AddSeries({1000, 1000.1, 999.9, 1000.05});
  const std::string f = Write("mux.json", MultiplexedRunJson(1000, 50));
  RunResult r = RunTool(absl::StrCat(
      "history add --db ", Quote(db_),
      " --branch main --commit cmux --time 2026-11-30T12:00:00Z ", Quote(f)));
  ASSERT_EQ(r.code, 0) << r.err;
  // Read back as stored: the point's and the repetition-free run's
  // coverage; the other counters have none (on the PMU the whole time).
  auto store = perfcounters::tools::OpenHistoryStore(db_);
  ASSERT_TRUE(store.ok()) << store.status();
  std::vector<std::pair<std::string, std::string>> stored;
  ASSERT_THAT(
      (*store)->Query("SELECT m.name, p.coverage FROM points p JOIN "
                      "metrics m ON m.id = p.metric_id JOIN runs r ON "
                      "r.id = p.run_id WHERE r.commit_sha = 'cmux' ORDER "
                      "BY m.name",
                      {},
                      {perfcounters::tools::SqlType::kText,
                       perfcounters::tools::SqlType::kDouble},
                      [&](const auto& row) {
                        const auto* c = std::get_if<double>(&row[1]);
                        stored.emplace_back(
                            std::get<std::string>(row[0]),
                            c != nullptr ? absl::StrCat(*c) : "NULL");
                      }),
      IsOk());
  EXPECT_THAT(stored,
              ::testing::IsSupersetOf(
                  {std::pair<std::string, std::string>("IPC", "0.4"),
                   std::pair<std::string, std::string>("cpu_time", "NULL"),
                   std::pair<std::string, std::string>("cycles", "NULL"),
                   std::pair<std::string, std::string>("instructions", "0.4"),
                   std::pair<std::string, std::string>("real_time", "NULL")}));
  // Exports carry it.
  r = RunTool(absl::StrCat("history export --format bmf --db ", Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["BM_a"]["instructions.coverage"]["value"], 0.4);
  EXPECT_FALSE(j["BM_a"].contains("cycles.coverage"));
  r = RunTool(absl::StrCat("history export --format csv --db ", Quote(db_),
                           " --metric instructions"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("BM_a.instructions.coverage"));
  EXPECT_THAT(r.out, HasSubstr(",1000,1\n"));    // on the PMU throughout
  EXPECT_THAT(r.out, HasSubstr(",1000,0.4\n"));  // multiplexed
  // check flags a multiplexed value: its verdict rests on an estimate.
  const std::string g = Write("mux2.json", MultiplexedRunJson(1000.1, 51));
  r = RunTool(absl::StrCat("history check --db ", Quote(db_),
                           " --branch main --format json --fail-on "
                           "'instructions>+5%' ",
                           Quote(g)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["coverage"], 0.4);
  EXPECT_EQ(j["rows"][0]["history_coverage"], 0.4);  // the cmux run
  r = RunTool(absl::StrCat("history check --db ", Quote(db_),
                           " --branch main --fail-on 'instructions>+5%' ",
                           Quote(g)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("(multiplexed)"));
  EXPECT_THAT(r.out, HasSubstr("on the PMU 40.0% of the batch"));
}

TEST_P(HistoryTest, ContextIsStoredWhole) {
  nlohmann::ordered_json root = nlohmann::json::parse(RunJson(1000, 1));
  const nlohmann::json caches = nlohmann::json::parse(
      R"([{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1},
          {"type": "Unified", "level": 3, "size": 33554432,
           "num_sharing": 16}])");
  root["context"]["caches"] = caches;
  root["context"]["load_avg"] = {1.5, 0.25, 0};
  root["context"]["library_build_type"] = "release";
  root["context"]["cpu_scaling_enabled"] = false;
  root["context"]["perfcounters.events"] = "cycles,instructions";
  root["context"]["perfcounters.read_path"] = "read(2)";
  const std::string f = Write("ctx.json", root.dump());
  ASSERT_EQ(
      RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)))
          .code,
      0);
  auto store = perfcounters::tools::OpenHistoryStore(db_);
  ASSERT_TRUE(store.ok()) << store.status();
  std::string text;
  ASSERT_THAT(
      (*store)->Query(
          "SELECT context FROM runs", {}, {perfcounters::tools::SqlType::kText},
          [&](const auto& row) { text = std::get<std::string>(row[0]); }),
      IsOk());
  const nlohmann::json context = nlohmann::json::parse(text);
  EXPECT_EQ(context["caches"], caches);
  EXPECT_EQ(context["load_avg"], nlohmann::json({1.5, 0.25, 0}));
  EXPECT_EQ(context["host_name"], "ci");
  EXPECT_EQ(context["num_cpus"], "2");
  EXPECT_EQ(context["mhz_per_cpu"], "3000");
  EXPECT_EQ(context["library_build_type"], "release");
  EXPECT_EQ(context["cpu_scaling_enabled"], "false");
  EXPECT_EQ(context["perfcounters.events"], "cycles,instructions");
  EXPECT_EQ(context["perfcounters.read_path"], "read(2)");
}

TEST_P(HistoryTest, OlderSchemaIsMigratedForward) {
  using perfcounters::tools::SqlType;
  {
    // A store as the first schema version wrote it, with one run.
    auto raw = perfcounters::tools::IsPostgresUrl(db_)
                   ? perfcounters::tools::OpenPostgresStore(db_)
                   : perfcounters::tools::OpenSqliteStore(db_);
    ASSERT_TRUE(raw.ok()) << raw.status();
    ASSERT_THAT(perfcounters::tools::PrepareSchema(**raw, 1), IsOk());
    for (const char* sql :
         {"INSERT INTO runs (digest, machine, commit_sha, branch, time, "
          "source, context, added) VALUES ('old', 'ci / 2 CPUs / 3000 MHz', "
          "'c0', 'main', '2026-11-30T09:00:00Z', 'old.json', '{}', "
          "'2026-11-30T09:00:00Z')",
          "INSERT INTO benchmarks (name) VALUES ('BM_a')",
          "INSERT INTO metrics (name) VALUES ('instructions')",
          "INSERT INTO points (benchmark_id, metric_id, run_id, value, lo, hi, "
          "samples, not_counted, from_aggregate) SELECT b.id, m.id, r.id, "
          "1000, 1000, 1000, 1, 0, 0 FROM benchmarks b, metrics m, runs r"}) {
      ASSERT_TRUE((*raw)->Exec(sql).ok()) << sql;
    }
    // Version 1 has no coverage column.
    EXPECT_THAT((*raw)->Exec("SELECT coverage FROM points"),
                ::testing::Not(IsOk()));
  }
  const std::string f = Write("mig.json", MultiplexedRunJson(1000.2, 60));
  const RunResult r = RunTool(absl::StrCat("history add --db ", Quote(db_),
                                           " --branch main ", Quote(f)));
  ASSERT_EQ(r.code, 0) << r.err;
  auto store = perfcounters::tools::OpenHistoryStore(db_);
  ASSERT_TRUE(store.ok()) << store.status();
  std::string version;
  ASSERT_THAT((*store)->Query("SELECT value FROM perfcounters_meta WHERE key = "
                              "'schema_version'",
                              {}, {SqlType::kText},
                              [&](const auto& row) {
                                version = std::get<std::string>(row[0]);
                              }),
              IsOk());
  EXPECT_EQ(version, absl::StrCat(perfcounters::tools::kHistorySchemaVersion));
  // The old run is kept (no coverage: none was stored), the new one has
  // its coverage.
  const RunResult csv = RunTool(absl::StrCat(
      "history export --format csv --metric instructions --db ", Quote(db_)));
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_THAT(csv.out, HasSubstr("2026-11-30T09:00:00Z,c0,"));
  EXPECT_THAT(csv.out, HasSubstr(",1000,1\n"));
  EXPECT_THAT(csv.out, HasSubstr(",1000.2,0.4\n"));
}

TEST_P(HistoryTest, IdentityDefaultsComeFromTheCiEnvironment) {
  const std::string f = Write("env1.json", RunJson(1000, 1));
  const std::string g = Write("env2.json", RunJson(1000, 2));
  RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(f)), "",
              "env -u CI_COMMIT_SHA -u CI_COMMIT_REF_NAME GITHUB_SHA=abc123 "
              "GITHUB_REF_NAME=feature");
  ASSERT_EQ(r.code, 0) << r.err;
  r = RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(g)), "",
              "env -u GITHUB_SHA -u GITHUB_REF_NAME CI_COMMIT_SHA=def456 "
              "CI_COMMIT_REF_NAME=release");
  ASSERT_EQ(r.code, 0) << r.err;
  r =
      RunTool(absl::StrCat("history export --format csv --metric "
                           "instructions --db ",
                           Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  // The time is the run's date; the machine its host and CPUs (no CPU
  // model in this context; never the clock).
  EXPECT_THAT(
      r.out, HasSubstr("2026-11-30T10:00:00Z,abc123,ci / 2 CPUs,feature,1000"));
  EXPECT_THAT(
      r.out, HasSubstr("2026-11-30T10:00:00Z,def456,ci / 2 CPUs,release,1000"));
}

TEST_P(HistoryTest, SimulatedRunsAreASeriesOfTheirOwn) {
  nlohmann::ordered_json simulated =
      nlohmann::ordered_json::parse(RunJson(1000, 2));
  simulated["context"]["perfcounters.source"] =
      "simulate: valgrind-3.19.0 callgrind";
  const std::string f = Write("measured.json", RunJson(1000, 1));
  const std::string g = Write("simulated.json", simulated.dump());
  for (const std::string& file : {f, g}) {
    RunResult r =
        RunTool(absl::StrCat("history add --db ", Quote(db_), " ", Quote(file)),
                "", "env GITHUB_SHA=abc123 GITHUB_REF_NAME=main");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const std::string q = absl::StrCat(
      "history export --format csv --metric instructions --db ", Quote(db_));
  // One CSV of both would put simulated and measured values in one column
  // (or lose one kind's runs): refused, naming both machines.
  RunResult r = RunTool(q);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("simulated values (machine ci / 2 CPUs "
                               "[simulate]) and measured ones (machine ci / "
                               "2 CPUs)"));
  EXPECT_THAT(r.err, HasSubstr("--machine 'ci / 2 CPUs [simulate]'"));
  r = RunTool(q + " --machine 'ci / 2 CPUs'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(",abc123,ci / 2 CPUs,main,1000"));
  EXPECT_THAT(r.out, Not(HasSubstr("simulate")));
  r = RunTool(q + " --machine 'ci / 2 CPUs [simulate]'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(",abc123,ci / 2 CPUs [simulate],main,1000"));
  // Its column says the values are simulated.
  const std::string header = r.out.substr(0, r.out.find('\n'));
  EXPECT_THAT(header, ::testing::EndsWith(".instructions [simulated]"));
  // BMF keeps the two apart by the measure's name.
  r = RunTool(absl::StrCat(
      "history export --format bmf --metric instructions --db ", Quote(db_)));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"instructions [simulated]\""));
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryTest,
                         ::testing::Values("sqlite", "postgresql"));

// ---- Faults of one back end.

TEST(HistorySqliteTest, NotAStoreFile) {
  const std::string db = Write("notadb.db", std::string(4096, 'x'));
  const std::string f = Write("n.json", RunJson(1000, 1));
  const RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(db), " ", Quote(f)));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("not a perfcounters history store"));
}

TEST(HistorySqliteTest, ReadOnlyStore) {
  const std::string dir = ScratchPath("ro");
  RunShell(absl::StrCat("mkdir -p ", Quote(dir)));
  const std::string db = dir + "/store.db";
  const std::string f = Write("ro.json", RunJson(1000, 1));
  const std::string g = Write("ro2.json", RunJson(1000, 2));
  ASSERT_EQ(
      RunTool(absl::StrCat("history add --db ", Quote(db), " ", Quote(f))).code,
      0);
  RunShell(absl::StrCat("chmod 0755 ", Quote(dir), " && chmod 0644 ", Quote(db),
                        "*"));
  // As root the file is writable whatever its mode: add as nobody.
  const std::string as =
      geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups "
                     : "";
  if (geteuid() != 0) RunShell(absl::StrCat("chmod 0444 ", Quote(db), "*"));
  RunShell(absl::StrCat("chmod 0644 ", Quote(g)));
  const RunResult r =
      RunShell(absl::StrCat(as, Quote(perfcounters::tools::testing::ToolPath()),
                            " history add --db ", Quote(db), " ", Quote(g)));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr(db));
  EXPECT_THAT(r.err, HasSubstr("not writable"));
}

TEST(HistorySqliteTest, FullFileLeavesTheStoreAsItWas) {
  const std::string db = ScratchPath("full.db");
  const std::string f = Write("full1.json", RunJson(1000, 1));
  ASSERT_EQ(
      RunTool(absl::StrCat("history add --db ", Quote(db), " ", Quote(f))).code,
      0);
  // A run with many benchmarks, added under a file size limit just above
  // the store's size.
  nlohmann::ordered_json root = nlohmann::json::parse(RunJson(1000, 2));
  for (int i = 0; i < 3000; ++i) {
    auto e = root["benchmarks"][0];
    e["name"] = e["run_name"] = absl::StrCat("BM_many/", i);
    root["benchmarks"].push_back(e);
  }
  const std::string big = Write("full2.json", root.dump());
  const RunResult r = RunShell(absl::StrCat(
      "bash -c ",
      Quote(absl::StrCat("ulimit -f 200; trap '' XFSZ; exec ",
                         Quote(perfcounters::tools::testing::ToolPath()),
                         " history add --db ", Quote(db), " ", Quote(big)))));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("as it was before"));
  const RunResult csv =
      RunTool(absl::StrCat("history export --format csv --db ", Quote(db)));
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_THAT(csv.out, ::testing::Not(HasSubstr("BM_many")));
}

TEST(HistoryPostgresTest, ConnectionFaultsAreClear) {
  PgServer& pg = PgServer::Get();
  const std::string f = Write("pgf.json", RunJson(1000, 1));
  auto add = [&](const std::string& db) {
    return RunTool(absl::StrCat("history add --db ", Quote(db), " ", Quote(f)));
  };
  RunResult r = add("postgresql://perfcounters@/postgres?host=" +
                    ScratchPath("nosuchdir"));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot connect"));
  EXPECT_THAT(r.err, HasSubstr("no server socket"));
  r = add("postgresql://[::1/db");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("PostgreSQL URL"));
  if (!pg.ok()) GTEST_SKIP() << "SKIPPED (PostgreSQL): " << pg.why();
  r = add(absl::StrCat("postgresql://perfcounters:wrong@/postgres?host=",
                       pg.dir()));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("password"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("wrong")));  // redacted
}

}  // namespace
