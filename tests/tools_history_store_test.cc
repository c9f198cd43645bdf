// tools_history_store_test: the safety of `perfcounters history`'s store,
// as a new user meets it: a PostgreSQL password never printed by any
// failing command, the connect timeout the user set, another program's
// SQLite file refused, readers that work without write access (as
// nobody), a mistyped --db, --metric or --benchmark that is said to be
// one, and a machine identity that does not move with the CPU's clock.
// The CSV export read by Apache Otava's rules: tools_history_export_test.
// The PostgreSQL cases start the throwaway server of support/pg_server.h;
// they skip with its reason where there is none. Natively only, as
// tools_history_test.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "history.h"
#include "history_store.h"
#include "nlohmann/json.hpp"
#include "support/as_nobody.h"
#include "support/pg_server.h"
#include "support/status_matchers.h"
#include "support/tool_runner.h"

namespace {

using ::perfcounters::testing::IsOk;
using perfcounters::tools::testing::Exists;
using perfcounters::tools::testing::PgServer;
using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::RunResult;
using perfcounters::tools::testing::RunShell;
using perfcounters::tools::testing::RunTool;
using perfcounters::tools::testing::ScratchPath;
using perfcounters::tools::testing::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

// A gbench JSON run of BM_a (instructions, task-clock) on host `host`
// whose clock read `mhz`.
std::string RunJson(double instructions, int i, int mhz = 3000,
                    const std::string& host = "ci") {
  nlohmann::ordered_json root;
  root["context"] = {{"date", "2026-11-30T10:00:00+00:00"},
                     {"host_name", host},
                     {"num_cpus", 2},
                     {"mhz_per_cpu", mhz},
                     {"nonce", i}};
  root["benchmarks"] =
      nlohmann::ordered_json::array({{{"name", "BM_a"},
                                      {"run_name", "BM_a"},
                                      {"run_type", "iteration"},
                                      {"repetition_index", 0},
                                      {"iterations", 100},
                                      {"real_time", 50.0},
                                      {"cpu_time", 49.0},
                                      {"time_unit", "ns"},
                                      {"instructions", instructions},
                                      {"task-clock", 48.0}}});
  return root.dump();
}

std::string Write(const std::string& name, const std::string& text) {
  std::string path = ScratchPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The reading commands, each against `db` (the store), as a shell
// argument string for RunTool().
std::vector<std::string> Readers(const std::string& db,
                                 const std::string& run) {
  return {
      absl::StrCat("history changes --db ", Quote(db)),
      absl::StrCat("history export --format csv --db ", Quote(db)),
      absl::StrCat("history export --format bmf --db ", Quote(db)),
      absl::StrCat("history check --fail-on 'instructions>+5%' --db ",
                   Quote(db), " ", Quote(run)),
      absl::StrCat("report --db ", Quote(db), " -o ",
                   Quote(ScratchPath("trends.html"))),
  };
}

// ---- PostgreSQL: passwords, timeouts, messages.

constexpr char kPassword[] = "Pw-7kz9Q";  // in no message by chance

// Every failing command's output, on every error path of a connection,
// has no password: not the URL's (as written or percent-encoded), not a
// ?password= parameter's, not PGPASSWORD's.
TEST(HistoryStoreTest, NoErrorPrintsThePassword) {
  const std::string run = Write("pw.json", RunJson(1000, 1));
  RunShell(absl::StrCat("chmod 0644 ", Quote(run)));
  std::vector<std::string> urls = {
      // Malformed (libpq quotes the whole URL in its message).
      absl::StrCat("postgresql://ci:", kPassword, "@[::1/case_a"),
      absl::StrCat("postgresql://ci@[::1/case_a?password=", kPassword),
      // Percent-encoded '-' in the password.
      "postgresql://ci:Pw%2D7kz9Q@[::1/case_a",
      // A raw '/' or '@' in the password, malformed after it.
      absl::StrCat("postgresql://ci:", kPassword, "/x@[::1/db"),
      // A raw '@' inside the password of a well-formed URL: libpq ends the
      // password at the first '@' and would name the rest as the host.
      absl::StrCat("postgresql://ci:Zq@", kPassword, "@127.0.0.1:1/db"),
      // Unreachable: no socket, a refused port, a bad port.
      absl::StrCat("postgresql://ci:", kPassword,
                   "@/db?host=", ScratchPath("nosuchdir")),
      absl::StrCat("postgresql://ci:", kPassword, "@127.0.0.1:1/db"),
      absl::StrCat("postgresql://ci:", kPassword, "@127.0.0.1:99999/db"),
      absl::StrCat("postgresql://ci:", kPassword, "@127.0.0.1:abc/db"),
      absl::StrCat("postgresql://ci@127.0.0.1:1/db?password=", kPassword),
  };
  PgServer& pg = PgServer::Get();
  if (pg.ok()) {
    // A refused login, an unknown database, an unknown user.
    urls.push_back(absl::StrCat("postgresql://perfcounters:", kPassword,
                                "@/postgres?host=", pg.dir()));
    urls.push_back(absl::StrCat("postgresql://perfcounters@/nosuchdb?host=",
                                pg.dir(), "&password=", kPassword));
    urls.push_back(absl::StrCat("postgresql://nouser:", kPassword,
                                "@/postgres?host=", pg.dir()));
  }
  size_t commands = 0;
  for (const std::string& url : urls) {
    std::vector<std::string> lines = Readers(url, run);
    lines.push_back(
        absl::StrCat("history add --db ", Quote(url), " ", Quote(run)));
    for (const std::string& line : lines) {
      for (const std::string& env :
           {std::string(), absl::StrCat("PGPASSWORD=", kPassword)}) {
        const RunResult r = RunTool(line, "", env);
        ++commands;
        EXPECT_EQ(r.code, 2) << line << "\n" << r.err;
        EXPECT_THAT(r.out + r.err, Not(HasSubstr(kPassword))) << line;
        EXPECT_THAT(r.out + r.err, Not(HasSubstr("Pw%2D7kz9Q"))) << line;
        // libpq's hint lines are joined: no literal "\n" or "\t".
        EXPECT_THAT(r.err, Not(HasSubstr("\\n"))) << line;
        EXPECT_THAT(r.err, Not(HasSubstr("\\t"))) << line;
        EXPECT_FALSE(r.err.empty()) << line;
        if (absl::StrContains(url, "Zq@")) {
          EXPECT_THAT(r.err, HasSubstr("write an '@' inside the user name, "
                                       "password or database name as %40"))
              << line;
        }
      }
    }
  }
  EXPECT_GE(commands, 10u * 6 * 2);
  if (!pg.ok()) GTEST_SKIP() << "SKIPPED (PostgreSQL): " << pg.why();
  // The right password, a database that does not exist.
  const RunResult r = RunTool(absl::StrCat(
      "history changes --db ",
      Quote(absl::StrCat("postgresql://perfcounters:secret@/nosuchdb?host=",
                         pg.dir()))));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("does not exist"));
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("secret")));
}

// A port that nothing listens on is said to be one; a port that is no
// number, too.
TEST(HistoryStoreTest, BadPortIsNamed) {
  RunResult r = RunTool("history changes --db postgresql://ci@127.0.0.1:1/db");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("nothing accepts connections on host "
                               "127.0.0.1 port 1"));
  EXPECT_THAT(r.err, HasSubstr("check the port"));
  r = RunTool("history changes --db postgresql://ci@127.0.0.1:99999/db");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("1 to 65535"));
}

// A parameter libpq refuses is named, not "check the host and port ...
// and that the server runs" (review-39 D11). libpq checks it before it
// connects: no server needed.
TEST(HistoryStoreTest, BadUrlParameterIsNamed) {
  const RunResult r = RunTool(
      "history changes --db 'postgresql://ci@127.0.0.1:1/db?sslmode=bogus'");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("invalid sslmode value"));
  EXPECT_THAT(r.err, HasSubstr("(the URL's ?sslmode= has a value libpq does "
                               "not accept: disable, allow, prefer, require, "
                               "verify-ca or verify-full"));
  EXPECT_THAT(r.err, Not(HasSubstr("server runs")));
  const RunResult timeout = RunTool(
      "history changes --db "
      "'postgresql://ci@127.0.0.1:1/db?connect_timeout=abc'");
  EXPECT_EQ(timeout.code, 2);
  EXPECT_THAT(
      timeout.err,
      HasSubstr("(the URL's ?connect_timeout= must be a whole number)"));
  EXPECT_THAT(timeout.err, Not(HasSubstr("a port is")));
}

double Now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
}

// A TCP port that accepts connections (the kernel completes them) but
// never answers: a connection to it waits for the connect timeout.
class SilentPort {
 public:
  SilentPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port_ = ntohs(a.sin_port);
  }
  ~SilentPort() {
    if (fd_ >= 0) close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// ?connect_timeout= and PGCONNECT_TIMEOUT are the user's: not replaced by
// a fixed 10 s. libpq's smallest timeout is 2 s, and it counts its
// deadline in whole seconds of time(2) (time(NULL) + timeout), so a wait of
// 2 s ends after 1 to 2 s: the lower bound is 0.9 s. The upper bound of 7 s
// leaves room for a loaded machine and is still far below 10 s.
TEST(HistoryStoreTest, ConnectTimeoutIsTheUsers) {
  SilentPort silent;
  ASSERT_GT(silent.port(), 0);
  const std::string url =
      absl::StrCat("postgresql://ci@127.0.0.1:", silent.port(), "/db");
  for (const auto& [db, env] :
       {std::pair{url + "?connect_timeout=2", std::string()},
        std::pair{url, std::string("PGCONNECT_TIMEOUT=2")}}) {
    const double start = Now();
    const RunResult r =
        RunTool(absl::StrCat("history changes --db ", Quote(db)), "", env);
    const double took = Now() - start;
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_GE(took, 0.9) << db << " " << env;
    EXPECT_LT(took, 7.0) << db << " " << env;
    EXPECT_THAT(r.err, HasSubstr("connect timeout of 2 s")) << r.err;
  }
}

// ---- SQLite: another program's file, readers, missing stores.

// A database of another program is no store: add refuses it and writes
// nothing into it. An empty file is a new store.
TEST(HistoryStoreTest, AnotherProgramsDatabaseIsRefused) {
  const std::string other = ScratchPath("other.db");
  RunShell(absl::StrCat("rm -f ", Quote(other), "* ",
                        Quote(ScratchPath("empty.db")), "*"));
  {
    auto db = perfcounters::tools::OpenSqliteStore(other);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_THAT((*db)->Exec("CREATE TABLE customers (id INT)"), IsOk());
  }
  const std::string run = Write("o.json", RunJson(1000, 1));
  RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(other), " ", Quote(run)));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("not a perfcounters history store"));
  EXPECT_THAT(r.err, HasSubstr("customers"));
  std::vector<std::string> tables;
  {
    auto db = perfcounters::tools::OpenSqliteStore(other, /*read_only=*/true);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_THAT((*db)->Query("SELECT name FROM sqlite_master WHERE type = "
                             "'table'",
                             {}, {perfcounters::tools::SqlType::kText},
                             [&](const auto& row) {
                               tables.push_back(std::get<std::string>(row[0]));
                             }),
                IsOk());
  }
  EXPECT_THAT(tables, ::testing::ElementsAre("customers"));
  for (const std::string& line : Readers(other, run)) {
    r = RunTool(line);
    EXPECT_EQ(r.code, 2) << line;
    EXPECT_THAT(r.err, HasSubstr("not a perfcounters history store")) << line;
  }
  const std::string empty = Write("empty.db", "");
  r = RunTool(absl::StrCat("history add --db ", Quote(empty), " ", Quote(run)));
  EXPECT_EQ(r.code, 0) << r.err;
}

// Only add creates a store: a mistyped --db of a reader exits 2 naming
// it, and creates nothing; an add whose run is bad leaves no store.
TEST(HistoryStoreTest, OnlyAddCreatesAStore) {
  const std::string run = Write("m.json", RunJson(1000, 1));
  const std::string typo = ScratchPath("typo.db");
  RunShell(absl::StrCat("rm -f ", Quote(ScratchPath("trends.html"))));
  for (const std::string& line : Readers(typo, run)) {
    const RunResult r = RunTool(line);
    EXPECT_EQ(r.code, 2) << line;
    EXPECT_THAT(r.err, HasSubstr(typo + " does not exist")) << line;
    EXPECT_FALSE(Exists(typo)) << line;
  }
  EXPECT_FALSE(Exists(ScratchPath("trends.html")));
  const std::string bad = Write("bad.json", "{\"benchmarks\": [");
  const std::string h = ScratchPath("h.db");
  RunShell(absl::StrCat("rm -f ", Quote(h), "*"));
  const RunResult r =
      RunTool(absl::StrCat("history add --db ", Quote(h), " ", Quote(bad)));
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(Exists(h));
  // A store with no run in it (made by add's schema step) reads as one
  // that holds no history.
  { ASSERT_THAT(perfcounters::tools::OpenHistoryStore(h), IsOk()); }
  const RunResult c = RunTool(absl::StrCat("history changes --db ", Quote(h)));
  EXPECT_EQ(c.code, 0) << c.err;
}

// Readers open the store read-only: a user who may read the store but not
// write it or its directory (nobody, when the test runs as root) runs
// every reader, and the store is left byte for byte as it was.
TEST(HistoryStoreTest, ReadersNeedNoWriteAccess) {
  const std::string dir = ScratchPath("readonly");
  RunShell(absl::StrCat("mkdir -p ", Quote(dir)));
  const std::string db = dir + "/store.db";
  for (int i = 1; i <= 3; ++i) {
    const std::string f =
        Write(absl::StrCat("ro", i, ".json"), RunJson(1000 + i, i));
    ASSERT_EQ(RunTool(absl::StrCat("history add --db ", Quote(db),
                                   " --commit c", i, " ", Quote(f)))
                  .code,
              0);
  }
  const std::string before = Slurp(db);
  const std::string run = Write("ro_new.json", RunJson(1001, 9));
  const bool root = geteuid() == 0;
  RunShell(absl::StrCat("chmod 0555 ", Quote(dir), " && chmod 0444 ", Quote(db),
                        " && chmod 0644 ", Quote(run)));
  // As nobody through support/as_nobody.h's helper: the emulated arm64
  // machine's busybox setpriv cannot change ids.
  const std::string as =
      root ? perfcounters::testing::AsNobodyCommand() + " " : "";
  // (The report goes to the temporary directory, where nobody may write.)
  for (const std::string& line : Readers(db, run)) {
    const RunResult r = RunShell(absl::StrCat(
        as, Quote(perfcounters::tools::testing::ToolPath()), " ", line));
    EXPECT_EQ(r.code, 0) << line << "\n" << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("readonly"))) << line;
  }
  EXPECT_TRUE(Slurp(db) == before);
  EXPECT_FALSE(Exists(db + "-wal"));
  RunShell(
      absl::StrCat("chmod 0755 ", Quote(dir), " && chmod 0644 ", Quote(db)));
}

// --metric, --benchmark, --machine that select nothing exit 2, with the
// nearest stored names.
TEST(HistoryStoreTest, SelectionsThatMatchNothingAreErrors) {
  const std::string db = ScratchPath("sel.db");
  const std::string f = Write("sel.json", RunJson(1000, 1));
  ASSERT_EQ(
      RunTool(absl::StrCat("history add --db ", Quote(db), " ", Quote(f))).code,
      0);
  for (const std::string& command :
       {std::string("history changes"), std::string("history export "
                                                    "--format csv")}) {
    RunResult r = RunTool(
        absl::StrCat(command, " --db ", Quote(db), " --metric task_clock"));
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("--metric 'task_clock' matches no metric"));
    EXPECT_THAT(r.err, HasSubstr("did you mean 'task-clock'?"));
    r = RunTool(
        absl::StrCat(command, " --db ", Quote(db), " --benchmark BM_Nope"));
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("--benchmark 'BM_Nope' matches no benchmark"));
    EXPECT_THAT(r.err, HasSubstr("BM_a"));
    r = RunTool(
        absl::StrCat(command, " --db ", Quote(db), " --benchmark BM_A"));
    EXPECT_THAT(r.err, HasSubstr("did you mean 'BM_a'?"));
    r = RunTool(
        absl::StrCat(command, " --db ", Quote(db), " --machine 'ci / 3 CPUs'"));
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("did you mean 'ci / 2 CPUs'?"));
  }
  const RunResult r = RunTool(absl::StrCat("report --db ", Quote(db),
                                           " --benchmark BM_Nope -o ",
                                           Quote(ScratchPath("sel.html"))));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("matches no benchmark"));
}

// The machine is the host and CPU model (or CPU count), not the clock: runs
// at 2695 and 2701 MHz are one series; a run of another machine is told
// which machines have a history, and --machine.
TEST(HistoryStoreTest, MachineIdentityIgnoresTheClock) {
  const std::string db = ScratchPath("mhz.db");
  for (int i = 1; i <= 8; ++i) {
    const std::string f =
        Write(absl::StrCat("mhz", i, ".json"), RunJson(1000, i, 2695));
    ASSERT_EQ(RunTool(absl::StrCat("history add --db ", Quote(db),
                                   " --commit c", i, " ", Quote(f)))
                  .code,
              0);
  }
  const std::string next = Write("mhz_next.json", RunJson(1000, 20, 2701));
  RunResult r = RunTool(
      absl::StrCat("history check --fail-on 'task-clock>+5%' --format json "
                   "--db ",
                   Quote(db), " ", Quote(next)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["machine"], "ci / 2 CPUs");
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["history_runs"], 8);
  // The same benchmarks from another host: no history there; the message
  // names the machine that has one, and --machine.
  const std::string other =
      Write("mhz_other.json", RunJson(1000, 21, 2701, "ci2"));
  r = RunTool(absl::StrCat("history check --fail-on 'task-clock>+5%' --db ",
                           Quote(db), " ", Quote(other)));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("no run of machine 'ci2 / 2 CPUs'"));
  EXPECT_THAT(r.out + r.err, HasSubstr("'ci / 2 CPUs' (8 runs)"));
  EXPECT_THAT(r.out + r.err, HasSubstr("--machine 'ci / 2 CPUs'"));
  r = RunTool(absl::StrCat("history check --fail-on 'task-clock>+5%' --db ",
                           Quote(db), " --machine 'ci / 2 CPUs' ",
                           Quote(other)));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

// `history changes`' table: a machine name longer than its column's
// default keeps the columns under their headers.
TEST(HistoryStoreTest, ChangesTableColumnsFitTheirEntries) {
  const std::string db = ScratchPath("wide.db");
  {
    auto store = perfcounters::tools::OpenHistoryStore(db);
    ASSERT_TRUE(store.ok()) << store.status();
    for (int i = 1; i <= 40; ++i) {
      const std::string f = Write(absl::StrCat("wide", i, ".json"),
                                  RunJson(i <= 20 ? 1000 : 1100, i));
      perfcounters::tools::RunIdentity id;
      id.machine = "build-runner-17 / AMD EPYC 7B13 64-Core Processor";
      id.commit = absl::StrCat("c", i);
      id.branch = "main";
      id.time =
          absl::StrCat("2026-11-30T10:", absl::StrFormat("%02d", i), ":00Z");
      ASSERT_THAT(perfcounters::tools::AddRunText(**store, Slurp(f), f, id),
                  IsOk());
    }
  }
  const RunResult r = RunTool(
      absl::StrCat("history changes --metric instructions --db ", Quote(db)));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  ASSERT_GE(lines.size(), 2u) << r.out;
  const size_t branch = lines[0].find("branch");
  ASSERT_NE(branch, std::string::npos);
  EXPECT_EQ(lines[1].find(" main "), branch - 1) << r.out;
}

}  // namespace
