// simulate_run.cc: the parent of --perf_counters_source=simulate — finds
// valgrind, makes a private directory for callgrind's dumps, re-executes
// this program under callgrind with a fixed cache geometry and address
// space randomisation off, waits for it and reports how it ended — and the
// child's check that it runs under callgrind.
#include <dirent.h>
#include <fcntl.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef PERFCOUNTERS_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "benchmark/benchmark.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/grammar.h"
#include "perfcounters/plan.h"
#include "perfcounters/profile.h"
#include "simulate.h"
#include "simulate_profile.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

// The simulated caches: fixed, whatever the host's (docs/simulate.md;
// perfcounters/simulated_events.h).
constexpr const auto& kCacheOptions = kSimCacheOptions;
constexpr const char* kGeometry = kSimGeometry;
// Iterations per benchmark when the user gives no --benchmark_min_time
// (gbench 1.8 and newer take "<N>x"; 1.7 runs one, see below).
[[maybe_unused]] constexpr int kIterations = 100;

// The valgrind that execvp() runs: the first on PATH ("valgrind" when none).
std::string ValgrindPath() {
  const char* path = std::getenv("PATH");
  for (absl::string_view d : absl::StrSplit(path != nullptr ? path : "", ':')) {
    std::string file = absl::StrCat(d.empty() ? "." : d, "/valgrind");
    if (access(file.c_str(), X_OK) == 0) return file;
  }
  return "valgrind";
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Why the simulator cannot take --perf_profile=`event` ("" when it can):
// an event it does not count, or a sampling rate (it counts every event).
std::string SimProfileError(const std::string& event, bool rate) {
  absl::StatusOr<std::vector<SimEvent>> inputs = SimProfileInputs(event);
  if (!inputs.ok()) return std::string(inputs.status().message());
  if (rate) {
    return "--perf_profile_period and --perf_profile_freq are for sampling; "
           "the simulated profile counts every event, leave them out";
  }
  return "";
}

// --perf_profile=`event` is one the simulator profiles and the PMU cannot
// sample here (auto never: on the PMU it falls back to cpu-clock).
bool PmuCannotSample(const std::string& event) {
  if (event == "auto" || !SimProfileInputs(event).ok()) return false;
  ProfileOptions o;
  o.event = event;
  o.callchain = true;
  return !Profiler::Open(o).ok();
}

// `valgrind --version`'s output ("valgrind-3.19.0"), or an error message
// when it cannot be run.
bool ValgrindVersion(std::string* version, std::string* error) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    *error = absl::StrCat("pipe: ", std::strerror(errno));
    return false;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    *error = absl::StrCat("fork: ", std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    execlp("valgrind", "valgrind", "--version", static_cast<char*>(nullptr));
    _exit(errno == ENOENT ? 127 : 126);
  }
  close(pipe_fds[1]);
  char buf[256];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0) version->append(buf, n);
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *version = std::string(absl::StripAsciiWhitespace(*version));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    *error =
        "valgrind was not found on PATH; install Debian's package valgrind "
        "(apt-get install valgrind), or count with the PMU "
        "(--perf_counters_source=pmu)";
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error =
        absl::StrCat("`valgrind --version` failed (",
                     WIFEXITED(status) ? "exit status " : "signal ",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                     "); reinstall Debian's package valgrind");
    return false;
  }
  if (!absl::StartsWith(*version, "valgrind-")) {
    const std::string said =
        version->empty() ? std::string("printed nothing")
                         : absl::StrCat("printed '", version->substr(0, 40),
                                        version->size() > 40 ? "...'" : "'");
    *error = absl::StrCat(
        "`valgrind --version` ", said,
        " where Valgrind prints its version (valgrind-3.19.0): the valgrind "
        "on PATH (",
        ValgrindPath(),
        ") is not Valgrind; put Debian's package valgrind "
        "first on PATH");
    return false;
  }
  return true;
}

bool GivesMinTime(const std::vector<std::string>& args) {
  if (std::getenv("BENCHMARK_MIN_TIME") != nullptr) return true;
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view a = args[i];
    if (!absl::ConsumePrefix(&a, "--")) absl::ConsumePrefix(&a, "-");
    if (absl::StartsWith(a, "benchmark_min_time")) return true;
  }
  return false;
}

// The child under valgrind while the parent waits (0 otherwise).
volatile sig_atomic_t g_child = 0;

void ForwardSignal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// Valgrind's own messages (its --log-file), less its notes on the host's
// caches, which the fixed geometry replaces.
void PrintValgrindLog(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StrContains(line, "warning: L3 cache found") ||
        absl::StrContains(line, "LL cache: line_size")) {
      continue;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

void RemoveDir(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str()); d != nullptr) {
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] != '.')
        unlink(absl::StrCat(dir, "/", e->d_name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

}  // namespace

void MarkSimulatorChild(const char* stage) {
  const char* dir = std::getenv(kChildEnvVar);
  if (dir == nullptr) return;
  const int fd = open(absl::StrCat(dir, "/", stage).c_str(),
                      O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
}

bool DescribeSimulatorChild() {
  if (RUNNING_ON_VALGRIND == 0) {
    std::fprintf(stderr,
                 "perfcounters: error: %s is set but this program does not "
                 "run under valgrind: unset it (it is the simulator's own "
                 "marker) and use --perf_counters_source=simulate\n",
                 kChildEnvVar);
    return false;
  }
  const char* description = std::getenv(kDescriptionEnvVar);
  benchmark::AddCustomContext(
      "perfcounters.source",
      description != nullptr ? description : "simulate (callgrind)");
  return true;
}

void AddSimulatedCountingContext(bool pass) {
  benchmark::AddCustomContext(
      "perfcounters.counting",
      pass ? "by the simulator: benchmarks that use perfcounters::Measure in "
             "their own run (every thread; callgrind client requests around "
             "each batch and pause, the brackets' own costs subtracted); the "
             "others (rows with perfcounters.pass_threads=1) in Google "
             "Benchmark's extra run of each repetition (its ProfilerManager), "
             "with the repetition's iteration count, on one thread, "
             "state.PauseTiming() regions included, only the benchmark "
             "function's own costs (from callgrind's call graph: gbench's "
             "call of it less gbench's loop functions it calls)"
           : "by the simulator: benchmarks that use perfcounters::Measure, in "
             "their own run (callgrind client requests around each batch and "
             "pause, the brackets' own costs subtracted); this Google "
             "Benchmark (older than 1.9) has no ProfilerManager, so the "
             "others are not counted (every event <name>.not_counted=1)");
}

std::optional<int> MaybeSimulate(const SourceFlag& source,
                                 std::string_view list,
                                 const std::string& profile_event,
                                 bool profile_rate,
                                 const std::vector<std::string>& args) {
  const bool profiling = !profile_event.empty();
  if (source.source == Source::kAuto) {
    // The simulator where the PMU cannot count the requested events: then
    // it counts them all and takes the profile too (one source per run).
    if (list.empty()) return std::nullopt;
    absl::StatusOr<Plan> plan = SetBenchmarkEvents(list);
    if (!plan.ok()) return std::nullopt;  // the main reports it
    const std::vector<std::string> simulatable = SimulatableKeys(list);
    std::vector<std::string> missing;
    for (const Unavailable& u : plan->unavailable) {
      if (absl::c_linear_search(simulatable, u.key)) missing.push_back(u.key);
    }
    if (profiling && missing.empty() && PmuCannotSample(profile_event)) {
      missing.push_back(absl::StrCat("--perf_profile=", profile_event));
    }
    if (missing.empty()) return std::nullopt;
    if (profiling) {
      if (std::string error = SimProfileError(profile_event, profile_rate);
          !error.empty()) {
        std::fprintf(stderr,
                     "perfcounters: error: %s=auto: the PMU cannot count %s "
                     "here, so the simulator would count and profile, but: "
                     "%s\n",
                     source.origin.c_str(),
                     absl::StrJoin(missing, ", ").c_str(), error.c_str());
        return 1;
      }
    }
    std::fprintf(stderr,
                 "perfcounters: note: %s=auto: the PMU cannot count %s here; "
                 "every event%s is counted by the simulator (Valgrind's "
                 "callgrind)\n",
                 source.origin.c_str(), absl::StrJoin(missing, ", ").c_str(),
                 profiling ? " and the profile" : "");
    return RunUnderSimulator(args, profiling);
  }
  if (list.empty()) {
    std::fprintf(stderr,
                 "perfcounters: note: %s=simulate: no events are requested "
                 "(--perf_counters), so nothing is simulated; the benchmarks "
                 "run natively\n",
                 source.origin.c_str());
    return std::nullopt;
  }
  if (profiling) {
    if (std::string error = SimProfileError(profile_event, profile_rate);
        !error.empty()) {
      std::fprintf(stderr, "perfcounters: error: %s=simulate: %s\n",
                   source.origin.c_str(), error.c_str());
      return 1;
    }
  }
  ParseOptions parse_options;
  parse_options.default_user_only = true;
  if (absl::StatusOr<Request> r = ParseRequest(list, parse_options); !r.ok()) {
    return std::nullopt;  // the main reports it
  }
  return RunUnderSimulator(args, profiling);
}

void NoteSimulatable(std::string_view list, const Plan& plan) {
  if (plan.unavailable.empty()) return;
  const std::vector<std::string> simulatable = SimulatableKeys(list);
  std::vector<std::string> keys;
  for (const Unavailable& u : plan.unavailable) {
    if (absl::c_linear_search(simulatable, u.key)) keys.push_back(u.key);
  }
  if (keys.empty()) return;
  std::fprintf(stderr,
               "perfcounters: note: --perf_counters_source=simulate would "
               "count %s (Valgrind's callgrind: exact, simulated; "
               "docs/simulate.md)\n",
               absl::StrJoin(keys, ", ").c_str());
}

namespace {

// valgrind's command line: callgrind with the fixed cache geometry, its
// dumps in `dir`, then this program (`exe`) with the user's `args` and the
// fixed iteration count, which `iterations` describes.
std::vector<std::string> ValgrindArgv(const char* exe, const std::string& dir,
                                      const std::vector<std::string>& args,
                                      bool profiling, std::string* iterations) {
  std::vector<std::string> argv = {"valgrind",
                                   "-q",
                                   "--tool=callgrind",
                                   "--collect-atstart=no",
                                   "--cache-sim=yes",
                                   "--branch-sim=yes",
                                   "--separate-threads=yes"};
  for (const char* o : kCacheOptions) argv.emplace_back(o);
  if (profiling) {
    for (std::string& o : SimProfileOptions()) argv.push_back(std::move(o));
  }
  argv.push_back(absl::StrCat("--callgrind-out-file=", dir, "/callgrind.out"));
  argv.push_back(absl::StrCat("--log-file=", dir, "/valgrind.log"));
  argv.emplace_back(exe);
  argv.insert(argv.end(), args.begin() + 1, args.end());
  *iterations = "as the user's --benchmark_min_time gives";
  if (!GivesMinTime(args)) {
#ifdef PERFCOUNTERS_GBENCH_HAS_MIN_TIME_ITERATIONS
    argv.push_back(absl::StrCat("--benchmark_min_time=", kIterations, "x"));
    *iterations =
        absl::StrCat("fixed: --benchmark_min_time=", kIterations, "x");
#else
    // gbench 1.7 has no "<N>x": a minimum time of 0 ends its search at
    // the first batch, of one iteration.
    argv.emplace_back("--benchmark_min_time=0");
    *iterations =
        "fixed: --benchmark_min_time=0, one per run (gbench 1.7 has no "
        "<N>x)";
#endif
  }
  return argv;
}

// Runs `argv` (valgrind) in a child with address space randomisation off,
// SIGINT and SIGTERM forwarded to it, and waits: 0 and its wait status in
// `status`, or 1 after saying why it could not start.
int RunValgrind(std::vector<std::string>& argv, int* status) {
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::fflush(nullptr);
  // SIGINT and SIGTERM go on to the child (which writes its output whole
  // and stops); the parent waits for it and cleans up.
  struct sigaction forward {};
  forward.sa_handler = ForwardSignal;
  sigemptyset(&forward.sa_mask);
  struct sigaction old_int {};
  struct sigaction old_term {};
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  const pid_t pid = fork();
  if (pid > 0) g_child = pid;
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (personality(ADDR_NO_RANDOMIZE) == -1) {
      static constexpr char kWarn[] =
          "perfcounters: warning: --perf_counters_source=simulate: address "
          "space randomisation could not be turned off (personality(2) "
          "refused, e.g. by a container's seccomp profile): simulated cache "
          "misses may differ between runs\n";
      (void)!write(2, kWarn, sizeof kWarn - 1);
    }
    execvp("valgrind", c_argv.data());
    _exit(127);
  }
  int rc = 0;
  if (pid < 0) {
    std::fprintf(stderr, "perfcounters: error: fork: %s\n",
                 std::strerror(errno));
    rc = 1;
  } else {
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
  }
  g_child = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return rc;
}

// What the child's wait `status` and its marks (`started`, `finished`: its
// main() began and ended) say, as the parent's exit status.
int ChildOutcome(int status, bool started, bool finished, const char* exe) {
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: the "
                 "benchmark died of signal %d (%s) under valgrind; its "
                 "results are incomplete\n",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    return 128 + WTERMSIG(status);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: the "
                 "benchmark exited with status %d under valgrind (%s)\n",
                 WEXITSTATUS(status), exe);
    return WEXITSTATUS(status);
  }
  if (!started) {
    // A `valgrind` that exits 0 without running anything (a stub, a
    // wrapper) must not pass for a run with no results.
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: %s "
                 "exited with status 0 without running the benchmark (%s): "
                 "nothing was counted and no results were written; is it "
                 "Debian's package valgrind?\n",
                 ValgrindPath().c_str(), exe);
    return 1;
  }
  if (!finished) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: the "
                 "benchmark exited with status 0 under valgrind before its "
                 "main() finished (exit() in a benchmark?); its results are "
                 "incomplete (%s)\n",
                 exe);
    return 1;
  }
  return 0;
}

}  // namespace

int RunUnderSimulator(const std::vector<std::string>& args, bool profiling) {
#ifndef PERFCOUNTERS_HAVE_VALGRIND_H
  std::fprintf(stderr,
               "perfcounters: error: --perf_counters_source=simulate: this "
               "perfcounters was built without valgrind's headers "
               "(valgrind/callgrind.h); install Debian's package valgrind and "
               "rebuild\n");
  return 1;
#endif
  std::string version;
  std::string error;
  if (!ValgrindVersion(&version, &error)) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: %s\n",
                 error.c_str());
    return 1;
  }
  char exe[4096];
  const ssize_t exe_len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (exe_len <= 0) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: "
                 "cannot read /proc/self/exe to re-execute this program: "
                 "%s\n",
                 std::strerror(errno));
    return 1;
  }
  exe[exe_len] = '\0';
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                 "/perfcounters-simulate-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) {
    std::fprintf(stderr,
                 "perfcounters: error: --perf_counters_source=simulate: "
                 "cannot make a directory for callgrind's dumps (%s): %s\n",
                 dir.c_str(), std::strerror(errno));
    return 1;
  }
  std::string iterations;
  std::vector<std::string> argv =
      ValgrindArgv(exe, dir, args, profiling, &iterations);
  const std::string description = absl::StrCat(
      "simulate: ", version, " callgrind, ", kGeometry,
      ", address space randomisation off; iterations ", iterations);
  setenv(kChildEnvVar, dir.c_str(), 1);
  setenv(kDescriptionEnvVar, description.c_str(), 1);
  int status = 0;
  const int rc = RunValgrind(argv, &status);
  unsetenv(kChildEnvVar);
  unsetenv(kDescriptionEnvVar);
  PrintValgrindLog(dir + "/valgrind.log");
  const bool started = Exists(dir + "/started");
  const bool finished = Exists(dir + "/finished");
  RemoveDir(dir);
  if (rc != 0) return rc;
  return ChildOutcome(status, started, finished, exe);
}

}  // namespace perfcounters::benchmark_ext_internal
