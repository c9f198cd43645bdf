// ab_child.cc: running one benchmark binary for `perfcounters ab` (ab.h):
// posix_spawn with stdout and stderr to files, the exit described.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "ab.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace perfcounters::tools {

ChildExit RunChild(const std::vector<std::string>& argv,
                   const std::string& stdout_path,
                   const std::string& stderr_path) {
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
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      out.error = absl::StrCat("waitpid: ", std::strerror(errno));
      return out;
    }
  }
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
