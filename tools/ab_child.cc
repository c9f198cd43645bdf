// ab_child.cc: running one benchmark binary for `perfcounters ab` (ab.h):
// posix_spawn with stdout and stderr to files, the exit described.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "ab.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace perfcounters::tools {
namespace {

double Now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// Waits for `pid` (its status); past `timeout_s` seconds (0: never) kills
// it and sets out->timed_out. Polls: 1 ms at first, growing to 50 ms, so
// a short benchmark is not slowed and a long one costs little.
int WaitWithin(pid_t pid, double timeout_s, ChildExit* out) {
  const double deadline = timeout_s > 0 ? Now() + timeout_s : 0;
  long sleep_ns = 1'000'000;
  int status = 0;
  while (true) {
    const pid_t r = waitpid(pid, &status, timeout_s > 0 ? WNOHANG : 0);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) {
      out->error = absl::StrCat("waitpid: ", std::strerror(errno));
      return status;
    }
    if (r == 0 && Now() >= deadline) {
      kill(pid, SIGKILL);
      out->timed_out = true;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return status;
    }
    if (r == 0) {
      const timespec tick = {0, sleep_ns};
      nanosleep(&tick, nullptr);
      sleep_ns = std::min(sleep_ns * 2, 50'000'000L);
    }
  }
}

}  // namespace

ChildExit RunChild(const std::vector<std::string>& argv,
                   const std::string& stdout_path,
                   const std::string& stderr_path, double timeout_s) {
  ChildExit out;
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int err =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    out.error = std::strerror(err);
    return out;
  }
  out.started = true;
  out.timeout_s = timeout_s;
  const int status = WaitWithin(pid, timeout_s, &out);
  if (!out.error.empty()) return out;
  if (WIFEXITED(status)) {
    out.exit_code = WEXITSTATUS(status);
    // glibc's posix_spawn reports an exec failure as exit 127.
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

std::string DescribeExit(const ChildExit& exit) {
  if (!exit.started) return absl::StrCat("could not be started: ", exit.error);
  if (exit.timed_out) {
    return absl::StrCat("did not finish within ", exit.timeout_s,
                        " s (--timeout) and was killed");
  }
  if (exit.signal != 0) {
    const char* name = strsignal(exit.signal);
    return absl::StrCat("was killed by signal ", exit.signal, " (",
                        name != nullptr ? name : "unknown", ")");
  }
  return absl::StrCat("exited ", exit.exit_code);
}

std::string FilterEscape(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::strchr(".^$|()[]{}*+?\\", c) != nullptr) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace perfcounters::tools
