// pg_server.h: a throwaway PostgreSQL server for a test binary (the
// history tests' PostgreSQL back end): initdb into a scratch directory
// (without syncing), the postmaster started as this process's child on a
// Unix socket there only (no TCP), without fsync, as nobody when the test
// runs as root (the server refuses root). It lives as long as the test
// binary: its destructor (at exit, before the scratch directory goes) stops
// it at once (SIGQUIT, pg_ctl's immediate mode), and the kernel sends it
// SIGQUIT when the binary dies without exiting (setpriv --pdeathsig), so no
// server outlives its test.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_PG_SERVER_H_
#define PERFCOUNTERS_TESTS_SUPPORT_PG_SERVER_H_

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "history_store.h"
#include "support/subprocess.h"
#include "support/tool_runner.h"

namespace perfcounters::tools::testing {

class PgServer {
 public:
  static constexpr const char* kBin = "/usr/lib/postgresql/15/bin";

  // The binary's server, started by the first call.
  static PgServer& Get() {
    static PgServer server;
    return server;
  }
  bool ok() const { return ready_; }
  const std::string& why() const { return why_; }
  // The directory of its socket.
  const std::string& dir() const { return dir_; }

  // A fresh database's URL; empty (and why() says why) when it could not
  // be made. CREATE DATABASE on one connection that stays open (a createdb
  // per test costs a process and a login); FILE_COPY copies template1's
  // files, faster here than WAL_LOG's page by page copy through the WAL.
  std::string NewDatabase() {
    if (admin_ == nullptr) {
      auto admin = OpenPostgresStore(Url("postgres"));
      if (!admin.ok()) {
        why_ = admin.status().ToString();
        return "";
      }
      admin_ = *std::move(admin);
    }
    const std::string name = absl::StrCat("t", ++databases_);
    const absl::Status s = admin_->Exec(
        absl::StrCat("CREATE DATABASE ", name, " STRATEGY FILE_COPY"), {});
    if (!s.ok()) {
      why_ = s.ToString();
      return "";
    }
    return Url(name);
  }

  ~PgServer() {
    admin_.reset();
    if (pid_ > 0) {
      kill(pid_, SIGQUIT);
      waitpid(pid_, nullptr, 0);
    }
  }

 private:
  PgServer() {
    if (!Exists(absl::StrCat(kBin, "/initdb"))) {
      why_ = absl::StrCat("no PostgreSQL server binaries in ", kBin,
                          " (apt-get install postgresql)");
      return;
    }
    dir_ = ScratchPath("pg");
    RunShell(
        absl::StrCat("rm -rf ", Quote(dir_), " && mkdir -p ", Quote(dir_)));
    std::ofstream(dir_ + "/pw") << "secret\n";
    std::vector<std::string> as;
    if (geteuid() == 0) {
      as = {"--reuid=65534", "--regid=65534", "--clear-groups"};
      RunShell(absl::StrCat("chown 65534:65534 ", Quote(dir_), " ",
                            Quote(dir_ + "/pw")));
    }
    const std::string data = dir_ + "/data";
    ::perfcounters::testing::Command initdb;
    initdb.argv = {"setpriv"};
    initdb.argv.insert(initdb.argv.end(), as.begin(), as.end());
    initdb.argv.insert(initdb.argv.end(),
                       {absl::StrCat(kBin, "/initdb"), "--no-sync",
                        "--no-instructions", "-D", data, "-U", "perfcounters",
                        "--auth=scram-sha-256", "--pwfile=" + dir_ + "/pw"});
    const RunResult r = ::perfcounters::testing::RunCommand(initdb);
    if (r.code != 0) {
      why_ = absl::StrCat("initdb failed: ", r.err);
      return;
    }
    Start(as, data);
  }

  // Starts the postmaster and waits until it accepts connections, as
  // pg_ctl -w does (postmaster.pid's status line reads "ready"), but in
  // steps of 10 ms rather than 100 ms.
  void Start(std::vector<std::string> argv, const std::string& data) {
    argv.insert(argv.begin(), "setpriv");
    argv.insert(
        argv.end(),
        {"--pdeathsig", "SIGQUIT", absl::StrCat(kBin, "/postgres"), "-D", data,
         "-k", dir_, "-c", "listen_addresses=", "-c", "fsync=off"});
    const std::string log = dir_ + "/log";
    ::perfcounters::testing::Command command;
    const int rc = ::perfcounters::testing::Spawn(
        command, argv, ::perfcounters::testing::CommandEnvironment(command),
        log, log + ".err", &pid_);
    if (rc != 0) {
      pid_ = -1;
      why_ = absl::StrCat("cannot start postgres: ", strerror(rc));
      return;
    }
    for (int i = 0; i < 6000; ++i) {  // 60 s
      const std::vector<std::string> lines =
          absl::StrSplit(Slurp(data + "/postmaster.pid"), '\n');
      if (lines.size() > 7 && lines[7].starts_with("ready")) {
        ready_ = true;
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      const timespec tick = {0, 10'000'000};
      nanosleep(&tick, nullptr);
    }
    why_ = absl::StrCat("postgres did not start: ", Slurp(log),
                        Slurp(log + ".err"));
  }

  std::string Url(const std::string& database) const {
    return absl::StrCat("postgresql://perfcounters:secret@/", database,
                        "?host=", dir_);
  }

  std::string dir_, why_;
  std::unique_ptr<HistoryStore> admin_;
  pid_t pid_ = -1;
  bool ready_ = false;
  int databases_ = 0;
};

}  // namespace perfcounters::tools::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_PG_SERVER_H_
