// ab_child.cc: running one benchmark binary for `perfcounters ab` (ab.h):
// posix_spawn with stdout and stderr to files, in a process group of its
// own (a timeout kills the benchmark with whatever it started; ab passes a
// terminal's Ctrl-C on to it), the exit described.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "ab.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace perfcounters::tools {
namespace {

// The process group of the child that runs now (0: none): the one piece
// of global state here, which a signal handler must reach. A terminal's
// Ctrl-C (SIGINT), SIGTERM, SIGHUP and SIGQUIT reach ab's own group only.
std::atomic<pid_t> running_group{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);

// The first passed-on signal ab received (0: none): ab ends as it would
// have once the child is reaped and the rounds' files are removed.
std::atomic<int> interrupted{0};
static_assert(std::atomic<int>::is_always_lock_free);

constexpr int kPassedOn[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static_assert(std::size(kPassedOn) == 4, "AbPassSignalsOn::old_ in ab.h");

// Passes `sig` on to the child's group and records it; a second one kills
// the group (a benchmark that ignores the first).
void PassOn(int sig) {
  int none = 0;
  const bool first = interrupted.compare_exchange_strong(none, sig);
  const pid_t group = running_group.load();
  if (group > 0) kill(-group, first ? sig : SIGKILL);
}

}  // namespace

AbPassSignalsOn::AbPassSignalsOn() {
  struct sigaction on {};
  on.sa_handler = PassOn;
  sigemptyset(&on.sa_mask);
  for (size_t i = 0; i < std::size(kPassedOn); ++i) {
    sigaction(kPassedOn[i], nullptr, &old_[i]);
    if (old_[i].sa_handler != SIG_IGN) sigaction(kPassedOn[i], &on, nullptr);
  }
}

AbPassSignalsOn::~AbPassSignalsOn() {
  for (size_t i = 0; i < std::size(kPassedOn); ++i) {
    sigaction(kPassedOn[i], &old_[i], nullptr);
  }
}

int AbInterruptedBy() { return interrupted.load(); }

void AbEndAsInterrupted() {
  const int sig = interrupted.load();
  if (sig == 0) return;
  signal(sig, SIG_DFL);
  raise(sig);
}

namespace {

// kPassedOn's signals held back while it lives (from before the child
// starts until its group is known), then delivered.
class HoldSignals {
 public:
  HoldSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kPassedOn) sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~HoldSignals() { sigprocmask(SIG_SETMASK, &old_, nullptr); }
  HoldSignals(const HoldSignals&) = delete;
  HoldSignals& operator=(const HoldSignals&) = delete;

 private:
  sigset_t old_;
};

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
      kill(-pid, SIGKILL);  // its group: what it started dies with it
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
  if ((out.interrupted = interrupted.load()) != 0) {
    out.error = "not started: ab was interrupted";
    return out;
  }
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
  // A group of its own (its pid), with no signal blocked and the default
  // dispositions of the signals ab passes on.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : kPassedOn) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  const AbPassSignalsOn pass_on;
  pid_t pid = 0;
  int err = 0;
  {
    const HoldSignals hold;
    err = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
    if (err == 0) running_group.store(pid);
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (err != 0) {
    out.error = std::strerror(err);
    return out;
  }
  out.started = true;
  out.timeout_s = timeout_s;
  const int status = WaitWithin(pid, timeout_s, &out);
  running_group.store(0);
  out.interrupted = interrupted.load();
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
