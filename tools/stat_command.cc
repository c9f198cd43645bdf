// stat_command.cc: `perfcounters stat [-e LIST] [-r N] [-x SEP | -j |
// --json] [-o FILE] [--] COMMAND...`: counts a command the way `perf stat`
// does. The output formats are in stat_output.cc.
//
// Per run, as perf's evlist__prepare_workload: fork; the child closes the
// "ready" pipe and blocks on the "go" pipe; the parent, once the child is
// ready, opens every event on it (disabled, enable_on_exec, inherit:
// children included), writes "go" and waits in waitpid. The counters start
// at exec. The parent sleeps in waitpid from before the exec until the child
// exits: nothing wakes it at the exec (an exec failure is reported through
// a close-on-exec pipe read only after the child has exited), so counting
// `true` pinned to one CPU sees no context switch of ours.
//
// Events are read one by one (inherit and PERF_FORMAT_GROUP reads do not
// mix), each scaled by its own time_enabled/time_running. Events the user
// put in braces (`-e '{cycles,instructions}'`) are opened as one kernel
// group, as perf stat does: the leader is enabled at exec and the members
// count exactly when it does.
//
// An event the kernel refuses for lack of privilege (EACCES/EPERM: kernel
// counting at perf_event_paranoid >= 2) is reopened for user space only, as
// perf stat falls back, and stat says so.
//
// Signals: SIGINT, SIGTERM and SIGHUP to stat are forwarded to the child;
// stat then waits for it, prints the counts so far (all completed runs and
// the interrupted one), and runs no more. Ctrl-C (SIGINT to the process
// group) thus prints partial counts like perf, and a signal to stat alone
// never leaves the child running. The child also gets SIGKILL if stat dies
// without a chance to forward (PR_SET_PDEATHSIG).
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "commands.h"
#include "output_file.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/internal/status_macros.h"
#include "stat.h"
#include "stat_simulate.h"

namespace perfcounters::tools {
namespace {

// Arguments of `perfcounters stat`.
struct StatArgs {
  std::string events =
      "task-clock,context-switches,cpu-migrations,page-faults,cycles,"
      "instructions,branches,branch-misses";
  int repeat = 1;
  std::string separator;
  bool json = false;           // one JSON object (stdout, or -o)
  bool json_lines = false;     // perf's -j: a JSON object per event
  std::string output;          // -o FILE: the counts go there
  std::string source = "pmu";  // --source: pmu or simulate
  std::vector<std::string> command;
};

// The signal that asked stat to stop (0: none) and the child to forward it
// to (0: none running). Set and read from the signal handler.
volatile sig_atomic_t g_stop_signal = 0;
volatile sig_atomic_t g_child = 0;

void OnStopSignal(int sig) {
  g_stop_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Installs OnStopSignal (no SA_RESTART: waitpid returns EINTR) for the
// lifetime of the object; restores the old dispositions after.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kStopSignals); ++i) {
      sigaction(kStopSignals[i], &sa, &old_[i]);
      // A signal the caller ignores (SIGINT for a background job) stays
      // ignored, by stat and by the command.
      if (old_[i].sa_handler == SIG_IGN) {
        sigaction(kStopSignals[i], &old_[i], nullptr);
      }
    }
  }
  ~StopSignals() {
    for (size_t i = 0; i < std::size(kStopSignals); ++i) {
      sigaction(kStopSignals[i], &old_[i], nullptr);
    }
  }

 private:
  struct sigaction old_[std::size(kStopSignals)];
};

using RunOutcome = StatRunOutcome;

// Closes an fd when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

absl::Status Pipe(Fd& read_end, Fd& write_end) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  read_end.fd = p[0];
  write_end.fd = p[1];
  return absl::OkStatus();
}

// Opens series[i] on `pid`, falling back to user space only as perf does.
void OpenOne(std::vector<StatSeries>& series, size_t i,
             std::vector<std::optional<Event>>& events, pid_t pid,
             int& fallback_paranoid) {
  StatSeries& s = series[i];
  const int leader = s.leader;
  const bool member = leader >= 0;
  if (member && !events[leader]) {
    s.unsupported = absl::StrCat("its group leader ", series[leader].spec.label,
                                 " cannot be opened");
    return;
  }
  Attr attr = s.spec.attr;
  attr.disabled = !member;
  attr.enable_on_exec = !member;
  attr.inherit = true;
  attr.read_format =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  if (s.user_only_fallback) {
    attr.exclude_kernel = attr.exclude_hv = true;
  }
  const int group_fd = member ? events[leader]->fd() : -1;
  absl::StatusOr<Event> e =
      Event::Open(attr, s.spec.label, Target::Thread(pid), group_fd);
  if (!e.ok() && absl::IsPermissionDenied(e.status()) && !attr.exclude_kernel &&
      !attr.exclude_user) {
    // perf's evsel__fallback: count user space only, label + "u".
    attr.exclude_kernel = attr.exclude_hv = true;
    absl::StatusOr<Event> user =
        Event::Open(attr, s.spec.label, Target::Thread(pid), group_fd);
    if (user.ok()) {
      s.user_only_fallback = true;
      const bool has_modifiers =
          s.spec.label.find_first_of(":/") != std::string::npos;
      s.spec.label += has_modifiers ? "u" : ":u";
      if (fallback_paranoid == 0) {
        fallback_paranoid = ProbeCapabilities().paranoid.value_or(-1);
      }
      e = std::move(user);
    } else if (!absl::IsPermissionDenied(user.status())) {
      // User space alone fails for another reason (no PMU, no such event):
      // that is the real one, not the permission the kernel checked first.
      e = std::move(user);
    }
  }
  if (!e.ok()) {
    s.unsupported = std::string(e.status().message());
    return;
  }
  events[i] = *std::move(e);
}

// What one run counted, into each series: the elapsed time for
// duration_time, else its event's scaled count (or one more run not
// counted).
void RecordStatCounts(std::vector<StatSeries>& series,
                      std::vector<std::optional<Event>>& events,
                      double seconds) {
  for (size_t i = 0; i < series.size(); ++i) {
    StatSeries& s = series[i];
    if (s.duration_time) {
      s.values.push_back(seconds * 1e9);
      s.coverages.push_back(1);
      s.running_ns.push_back(seconds * 1e9);
      continue;
    }
    if (!events[i]) continue;
    absl::StatusOr<Count> c = events[i]->ReadCount();
    if (!c.ok() || !Scale(*c).counted()) {
      ++s.not_counted;
      continue;
    }
    const ScaledCount scaled = Scale(*c);
    s.values.push_back(scaled.value() * s.spec.scale);
    s.coverages.push_back(scaled.coverage());
    s.running_ns.push_back(static_cast<double>(scaled.running()));
  }
}

// Runs the command once, counting `series`. An error when the command
// cannot be executed.
absl::StatusOr<RunOutcome> RunOnce(const std::vector<std::string>& command,
                                   std::vector<StatSeries>& series,
                                   int& fallback_paranoid) {
  Fd ready_r, ready_w, go_r, go_w, err_r, err_w;
  for (auto [r, w] : {std::pair{&ready_r, &ready_w}, std::pair{&go_r, &go_w},
                      std::pair{&err_r, &err_w}}) {
    RETURN_IF_ERROR(Pipe(*r, *w));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    for (int sig : kStopSignals) {
      struct sigaction now {};
      sigaction(sig, nullptr, &now);
      if (now.sa_handler == OnStopSignal) signal(sig, SIG_DFL);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    close(ready_r.fd);
    close(go_w.fd);
    close(err_r.fd);
    close(ready_w.fd);  // ready
    char c;
    if (read(go_r.fd, &c, 1) != 1) _exit(127);  // stat gave up
    // The "go" may have woken us on stat's CPU before stat got to waitpid:
    // let it go to sleep there first, so it does not preempt the command
    // once the counters run (a context switch perf's child can suffer).
    sched_yield();
    std::vector<char*> argv;
    for (const std::string& a : command) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    (void)!write(err_w.fd, &err, sizeof err);
    _exit(127);
  }
  g_child = pid;
  ready_w.Close();
  go_r.Close();
  err_w.Close();
  char c;
  while (read(ready_r.fd, &c, 1) < 0 && errno == EINTR) {
  }
  std::vector<std::optional<Event>> events(series.size());
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i].unsupported.empty() && !series[i].duration_time) {
      OpenOne(series, i, events, pid, fallback_paranoid);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  if (g_stop_signal == 0) {
    (void)!write(go_w.fd, "g", 1);  // the child may exec now
  }
  go_w.Close();  // without "g": the child exits 127 unexecuted
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  g_child = 0;
  RunOutcome out;
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  out.user_seconds = static_cast<double>(usage.ru_utime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
  out.sys_seconds = static_cast<double>(usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_stime.tv_usec) * 1e-6;
  int err = 0;
  if (read(err_r.fd, &err, sizeof err) == sizeof err) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot execute '", command[0], "': ", std::strerror(err)));
  }
  if (WIFSIGNALED(status)) {
    out.term_signal = WTERMSIG(status);
  } else {
    out.exit_status = WEXITSTATUS(status);
  }
  RecordStatCounts(series, events, out.seconds);
  return out;
}

// The arguments stat checks before it parses the events; false (said on
// stderr) for a usage error.
bool CheckStatArgs(const StatArgs& args) {
  if (args.command.empty()) {
    std::fprintf(stderr, "perfcounters stat: no command to run\n");
    return false;
  }
  if (args.repeat < 1) {
    std::fprintf(stderr, "perfcounters stat: -r must be >= 1, not %d\n",
                 args.repeat);
    return false;
  }
  const int formats = (args.json ? 1 : 0) + (args.json_lines ? 1 : 0) +
                      (args.separator.empty() ? 0 : 1);
  if (formats > 1) {
    std::fprintf(stderr,
                 "perfcounters stat: -x, -j and --json exclude each other; "
                 "choose one output format\n");
    return false;
  }
  if (args.source != "pmu" && args.source != "simulate") {
    std::fprintf(stderr,
                 "perfcounters stat: --source %s: unknown counting source; "
                 "write pmu (perf_event_open, the default) or simulate "
                 "(Valgrind's callgrind: exact simulated counts, "
                 "docs/simulate.md)\n",
                 args.source.c_str());
    return false;
  }
  return true;
}

// The series of `groups` in `result`: a `{}` group's members join its
// first event, its leader.
void AddStatSeries(const std::vector<GroupSpec>& groups, StatResult& result) {
  int user_groups = 0;
  for (const GroupSpec& g : groups) {
    const int group = g.user_group ? user_groups++ : -1;
    // The first event of a `{}` group leads it; the others join its fd.
    const int leader = static_cast<int>(result.series.size());
    for (const EventSpec& e : g.events) {
      StatSeries s;
      s.spec = e;
      s.group = group;
      s.duration_time = e.pmu == "tool";
      if (group >= 0 && static_cast<int>(result.series.size()) != leader) {
        s.leader = leader;
      }
      result.series.push_back(std::move(s));
    }
  }
}

// The counts in the output format the arguments chose.
std::string FormatStatOutput(const StatArgs& args, const StatResult& result) {
  if (args.json) return FormatStatJson(result);
  if (args.json_lines) return FormatStatJsonLines(result);
  if (!args.separator.empty()) return FormatStatCsv(result, args.separator);
  return FormatStatTable(result);
}

int RunStat(const StatArgs& args) {
  if (!CheckStatArgs(args)) return kExitUsage;
  const bool simulate = args.source == "simulate";
  ParseOptions options;
  options.tool_events = true;
  // The simulator sees user space only: `instructions` is instructions:u.
  options.default_user_only = simulate;
  absl::StatusOr<std::vector<GroupSpec>> groups =
      ParseEventList(args.events, options);
  if (!groups.ok()) {
    std::fprintf(stderr, "perfcounters stat: -e: %s\n",
                 std::string(groups.status().message()).c_str());
    return kExitUsage;
  }
  StatResult result;
  result.command = args.command;
  result.runs_asked = args.repeat;
  AddStatSeries(*groups, result);
  if (simulate) {
    if (absl::Status s = PrepareSimulatedStat(result); !s.ok()) {
      std::fprintf(stderr, "perfcounters stat: %s\n",
                   std::string(s.message()).c_str());
      return kExitUsage;
    }
  }
  {
    g_stop_signal = 0;
    const StopSignals handlers;
    for (int r = 0; r < args.repeat && g_stop_signal == 0; ++r) {
      absl::StatusOr<RunOutcome> out =
          simulate
              ? RunSimulatedStat(args.command, result, &g_child)
              : RunOnce(args.command, result.series, result.fallback_paranoid);
      if (!out.ok()) {
        std::fprintf(stderr, "perfcounters stat: %s\n",
                     std::string(out.status().message()).c_str());
        return kExitUsage;
      }
      result.seconds.push_back(out->seconds);
      result.user_seconds = out->user_seconds;
      result.sys_seconds = out->sys_seconds;
      result.exit_status = out->exit_status;
      result.term_signal = out->term_signal;
      ++result.runs_done;
    }
    result.interrupted_by = g_stop_signal;
  }
  const std::string out = FormatStatOutput(args, result);
  const std::string notes = StatNotes(result);
  std::fwrite(notes.data(), 1, notes.size(), stderr);
  if (!args.output.empty()) {
    if (absl::Status s = WriteOutputFile(args.output, out); !s.ok()) {
      std::fprintf(stderr, "perfcounters stat: %s\n",
                   std::string(s.message()).c_str());
      return kExitUsage;
    }
  } else {
    // Like perf, the counts go to stderr (the command owns stdout); one
    // JSON object goes to stdout, after the command has finished.
    std::fflush(stdout);
    std::fwrite(out.data(), 1, out.size(), args.json ? stdout : stderr);
  }
  if (result.interrupted_by != 0 && result.ExitCode() == 0) {
    return 128 + result.interrupted_by;
  }
  return result.ExitCode();
}

// `perfcounters stat OPTIONS [--] COMMAND...`: the options end at the first
// argument that is not an option (or at "--"); everything from there on is
// the command's, as perf stat reads its command line. Returns how many of
// argv's arguments CLI11 gets; the command goes to `command`.
int SplitStatCommandLine(int argc, char** argv,
                         std::vector<std::string>& command) {
  if (argc < 2 || std::strcmp(argv[1], "stat") != 0) return argc;
  constexpr std::string_view kShortWithValue = "erxo";
  const std::vector<std::string_view> long_with_value = {
      "--events", "--repeat", "--field-separator", "--output", "--source"};
  int i = 2;
  while (i < argc) {
    const std::string_view a = argv[i];
    if (a == "--") {
      for (int j = i + 1; j < argc; ++j) command.emplace_back(argv[j]);
      return i;
    }
    if (a.size() < 2 || a[0] != '-') break;  // the command
    if (a[1] == '-') {
      bool takes_value = false;
      for (std::string_view name : long_with_value) takes_value |= a == name;
      i += takes_value ? 2 : 1;
    } else {
      // -e LIST, -eLIST, -x, (a value) or a flag such as -j.
      i += kShortWithValue.find(a[1]) != std::string_view::npos && a.size() == 2
               ? 2
               : 1;
    }
  }
  if (i > argc) return argc;  // a value is missing: CLI11 says so
  for (int j = i; j < argc; ++j) command.emplace_back(argv[j]);
  return i;
}

}  // namespace

Command AddStatCommand(CLI::App& app, int* argc, char** argv) {
  auto args = std::make_shared<StatArgs>();
  CLI::App* st = app.add_subcommand(
      "stat", "Count a command like perf stat (children included)");
  st->add_option("-e,--events", args->events, "events in perf's -e grammar")
      ->capture_default_str();
  st->add_option("-r,--repeat", args->repeat,
                 "run the command N times; mean and spread")
      ->capture_default_str();
  st->add_option("-x,--field-separator", args->separator,
                 "CSV-like output with this separator (as perf -x)");
  st->add_flag("-j,--json-output", args->json_lines,
               "perf's JSON lines: one JSON object per event");
  st->add_flag("--json", args->json,
               "one JSON object, on stdout after the command has finished");
  st->add_option("-o,--output", args->output,
                 "write the counts to this file (as perf -o)");
  st->add_option("--source", args->source,
                 "pmu (perf_event_open) or simulate (the command and its "
                 "children under Valgrind's callgrind: exact user-space "
                 "instructions, simulated caches and branches; "
                 "docs/simulate.md)")
      ->capture_default_str();
  st->footer(
      "Usage: perfcounters stat [OPTIONS] [--] COMMAND [ARGS...]. Options end "
      "at the first argument that is not one: the rest is the "
      "command's. Counts go to stderr (as perf stat), --json to stdout, -o "
      "FILE to FILE. Exit code: the command's (128+N when a signal killed "
      "it); 2 when it cannot be executed or the arguments are bad.");
  *argc = SplitStatCommandLine(*argc, argv, args->command);
  return WhenGiven(st, [args] { return RunStat(*args); });
}

}  // namespace perfcounters::tools
