// subprocess.h: the one way tests run another program. A Command is an
// argv (argv[0] a path, or a name looked up in PATH) or a shell line (run
// by /bin/sh -c), with environment additions and removals, a working
// directory, soft RLIMIT_NOFILE / RLIMIT_MEMLOCK limits and optionally as
// nobody (support/as_nobody.h). RunCommand() waits for it and returns its exit
// code (128 + the signal when a signal killed it), stdout and stderr.
//
// bench_runner.h (the e2e benchmarks) and tool_runner.h (the command) are
// built on it.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_SUBPROCESS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_SUBPROCESS_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "support/as_nobody.h"

extern char** environ;

namespace perfcounters::testing {

struct Command {
  // The program and its arguments; used when `shell` is empty.
  std::vector<std::string> argv;
  // A command line for /bin/sh -c (already quoted for sh).
  std::string shell;
  // Added to (or replacing in) this process's environment.
  std::map<std::string, std::string> env;
  // Removed from the environment.
  std::set<std::string> unset_env;
  // The working directory; empty: this process's.
  std::string dir;
  // The soft RLIMIT_NOFILE and RLIMIT_MEMLOCK the program starts with.
  std::optional<rlim_t> nofile;
  std::optional<rlim_t> memlock;
  // Run as nobody:nogroup without supplementary groups, so without
  // capabilities (perfcounters_as_nobody). Needs root.
  bool as_nobody = false;
};

// What a run gave.
struct RunResult {
  // The exit status; 128 + the signal when killed by one; -1 when the
  // program could not be started (why: in `err`).
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The environment `command` asks for: this process's, less `unset_env` and
// the keys of `env`, plus `env`.
inline std::vector<std::string> CommandEnvironment(const Command& command) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (command.unset_env.count(key) > 0 || command.env.count(key) > 0) {
      continue;
    }
    env.push_back(kv);
  }
  for (const auto& [k, v] : command.env) env.push_back(k + "=" + v);
  return env;
}

// The argv that runs `command`: the shell line through /bin/sh, and the
// as-nobody helper in front when asked.
inline std::vector<std::string> CommandArgv(const Command& command) {
  std::vector<std::string> argv;
  if (command.as_nobody) {
#ifdef PERFCOUNTERS_AS_NOBODY
    argv.push_back(AsNobodyPath());
#else
    ADD_FAILURE() << "as_nobody needs the perfcounters_as_nobody helper "
                  << "(PERFCOUNTERS_AS_NOBODY)";
#endif
  }
  if (command.shell.empty()) {
    argv.insert(argv.end(), command.argv.begin(), command.argv.end());
  } else {
    argv.insert(argv.end(), {"/bin/sh", "-c", command.shell});
  }
  return argv;
}

// posix_spawn(p)s `argv` with `env`, stdout and stderr into the files; the
// limits of `command` are in force while it is spawned (the child inherits
// them). Returns posix_spawn's error (0: started).
inline int Spawn(const Command& command, std::vector<std::string> argv,
                 std::vector<std::string> env, const std::string& out_path,
                 const std::string& err_path, pid_t* pid) {
  std::vector<char*> argv_p;
  for (std::string& a : argv) argv_p.push_back(a.data());
  argv_p.push_back(nullptr);
  std::vector<char*> env_p;
  for (std::string& e : env) env_p.push_back(e.data());
  env_p.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!command.dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, command.dir.c_str());
  }
  const std::pair<int, std::optional<rlim_t>> limits[] = {
      {RLIMIT_NOFILE, command.nofile}, {RLIMIT_MEMLOCK, command.memlock}};
  rlimit saved[2] = {};
  for (int i = 0; i < 2; ++i) {
    getrlimit(limits[i].first, &saved[i]);
    if (!limits[i].second.has_value()) continue;
    rlimit lowered = saved[i];
    lowered.rlim_cur = *limits[i].second;
    EXPECT_EQ(setrlimit(limits[i].first, &lowered), 0);
  }
  const int rc = posix_spawnp(pid, argv_p[0], &actions, nullptr, argv_p.data(),
                              env_p.data());
  for (int i = 0; i < 2; ++i) {
    if (limits[i].second.has_value()) setrlimit(limits[i].first, &saved[i]);
  }
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// Runs `command` to its end.
inline RunResult RunCommand(const Command& command) {
  RunResult result;
  std::vector<std::string> argv = CommandArgv(command);
  if (argv.empty()) {
    result.err = "no program to run";
    return result;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
      "/pc_run_XXXXXX";
  if (mkdtemp(dir_template.data()) == nullptr) {
    result.err = std::string("mkdtemp failed: ") + std::strerror(errno);
    return result;
  }
  const std::string dir = dir_template;
  const std::string out_path = dir + "/stdout";
  const std::string err_path = dir + "/stderr";
  const std::string program = argv[0];
  pid_t pid = 0;
  const int rc = Spawn(command, std::move(argv), CommandEnvironment(command),
                       out_path, err_path, &pid);
  if (rc == 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.code =
        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = ReadFile(out_path);
    result.err = ReadFile(err_path);
  } else {
    result.err = "cannot start " + program +
                 (command.dir.empty() ? "" : " in " + command.dir) + ": " +
                 std::strerror(rc);
  }
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  rmdir(dir.c_str());
  return result;
}

// Runs a program with `argv` in this process's environment.
inline RunResult RunArgv(std::vector<std::string> argv) {
  Command command;
  command.argv = std::move(argv);
  return RunCommand(command);
}

// Runs the shell line `line`.
inline RunResult RunShellLine(const std::string& line) {
  Command command;
  command.shell = line;
  return RunCommand(command);
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_SUBPROCESS_H_
