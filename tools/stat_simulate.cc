// stat_simulate.cc: `perfcounters stat --source simulate` (stat_simulate.h).
//
// Per run: valgrind -q --tool=callgrind --trace-children=yes with the
// fixed cache geometry and branch simulation, every process's costs dumped
// into a private directory (callgrind.out.<pid>), read back and summed.
// A process that forks without exec inherits callgrind's costs so far, so
// every process dumps (and so zeroes) them when it enters glibc's _Fork:
// each instruction is in exactly one dump. Address space randomisation is
// off (personality(2)) so that the simulated caches see the same addresses
// every run.
#include "stat_simulate.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "perfcounters/simulated_events.h"

namespace perfcounters::tools {
// Named (not anonymous): unity builds put the cli layer in one source.
namespace stat_sim {

constexpr char kNoValgrind[] =
    "--source simulate: valgrind was not found on PATH; install Debian's "
    "package valgrind (apt-get install valgrind), or count with the PMU "
    "(--source pmu, the default)";

// The file `name` resolves to as execvp would look it up, or "" when
// there is none that can be executed.
std::string FindExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return access(name.c_str(), X_OK) == 0 ? name : "";
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    std::string file =
        absl::StrCat(dir.empty() ? "." : std::string(dir), "/", name);
    if (access(file.c_str(), X_OK) == 0) return file;
  }
  return "";
}

// `valgrind --version` ("valgrind-3.19.0").
absl::StatusOr<std::string> ValgrindRelease(const std::string& valgrind) {
  const std::string shell = absl::StrCat("'", valgrind, "' --version 2>&1");
  FILE* p = popen(shell.c_str(), "r");
  if (p == nullptr) return absl::FailedPreconditionError(kNoValgrind);
  std::string out;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  out = std::string(absl::StripAsciiWhitespace(out));
  if (status != 0 || !absl::StartsWith(out, "valgrind-")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--source simulate: `", valgrind, " --version` ",
        out.empty() ? std::string("printed nothing")
                    : absl::StrCat("printed '", out.substr(0, 200), "'"),
        status == 0 ? "" : absl::StrCat(" and failed (status ", status, ")"),
        " where Valgrind prints its version (valgrind-3.19.0): it is not "
        "Valgrind, or is broken; reinstall Debian's package valgrind"));
  }
  return out;
}

bool WantsEstimates(const StatResult& r) {
  for (const StatSeries& s : r.series) {
    if (s.spec.attr.type == PERF_TYPE_HARDWARE &&
        ((s.spec.attr.config & 0xffffffffu) == PERF_COUNT_HW_INSTRUCTIONS ||
         (s.spec.attr.config & 0xffffffffu) == PERF_COUNT_HW_CPU_CYCLES)) {
      return true;
    }
  }
  return false;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Valgrind's own messages (its log files, less its notes on the host's
// caches, which the fixed geometry replaces), and the directory's dumps'
// summed costs; the directory is emptied and removed. `dumps`: how many.
SimCosts CollectAndRemove(const std::string& dir, int* dumps,
                          std::string* error) {
  SimCosts sum{};
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str()); d != nullptr) {
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    closedir(d);
  }
  for (const std::string& name : names) {
    const std::string path = absl::StrCat(dir, "/", name);
    const std::string text = Slurp(path);
    unlink(path.c_str());
    if (absl::StartsWith(name, "valgrind.log")) {
      for (absl::string_view line : absl::StrSplit(text, '\n')) {
        if (line.empty() || absl::StrContains(line, "cache found") ||
            absl::StrContains(line, "LL cache: line_size")) {
          continue;
        }
        std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()),
                     line.data());
      }
      continue;
    }
    absl::StatusOr<SimCosts> costs = ParseCallgrindTotals(text);
    if (!costs.ok()) {
      *error = absl::StrCat(name, ": ", costs.status().message());
      continue;
    }
    for (int e = 0; e < kSimEventCount; ++e) sum[e] += (*costs)[e];
    ++*dumps;
  }
  rmdir(dir.c_str());
  return sum;
}

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

// What callgrind counted (`costs`), into each series of `result`: the
// simulated events' sums, the estimates from them.
void RecordSimulatedCounts(const SimCosts& costs, StatResult& result) {
  const double est_cycles = EstimatedCycles(costs);
  for (StatSeries& s : result.series) {
    double value = 0;
    if (s.estimate) {
      value =
          s.spec.label == "est_cycles"
              ? est_cycles
              : (est_cycles > 0 ? static_cast<double>(costs[kIr]) / est_cycles
                                : 0);
    } else if (s.unsupported.empty()) {
      absl::StatusOr<std::vector<SimEvent>> inputs = SimulatedInputs(s.spec);
      if (!inputs.ok()) continue;
      for (SimEvent e : *inputs) value += static_cast<double>(costs[e]);
    } else {
      continue;
    }
    s.values.push_back(value);
    s.coverages.push_back(1);
    s.running_ns.push_back(0);
  }
}

}  // namespace stat_sim

absl::Status PrepareSimulatedStat(StatResult& result) {
  const std::string valgrind = stat_sim::FindExecutable("valgrind");
  if (valgrind.empty())
    return absl::FailedPreconditionError(stat_sim::kNoValgrind);
  absl::StatusOr<std::string> release = stat_sim::ValgrindRelease(valgrind);
  if (!release.ok()) return release.status();
  result.source =
      absl::StrCat("simulate: ", *release, " callgrind, ", kSimGeometry,
                   ", address space randomisation off, children traced");
  for (StatSeries& s : result.series) {
    if (s.duration_time) {
      s.duration_time = false;
      s.unsupported =
          "not counted by the simulator: under valgrind there is no time of "
          "the command's own";
      continue;
    }
    absl::StatusOr<std::vector<SimEvent>> inputs = SimulatedInputs(s.spec);
    if (!inputs.ok()) {
      s.unsupported = absl::StrCat("not counted by the simulator: ",
                                   inputs.status().message());
    }
  }
  if (stat_sim::WantsEstimates(result)) {
    for (const char* name : {"est_cycles", "est_ipc"}) {
      StatSeries& s = result.series.emplace_back();
      s.spec.label = name;
      s.spec.text = name;
      s.spec.attr.type = PERF_TYPE_SOFTWARE;
      s.spec.attr.config = PERF_COUNT_SW_DUMMY;
      s.estimate = true;
      s.fractional = std::strcmp(name, "est_ipc") == 0;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<StatRunOutcome> RunSimulatedStat(
    const std::vector<std::string>& command, StatResult& result,
    volatile sig_atomic_t* child) {
  if (stat_sim::FindExecutable(command[0]).empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot execute '", command[0], "': ", std::strerror(ENOENT)));
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                 "/perfcounters-stat-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot make a directory for callgrind's dumps (", dir,
                     "): ", std::strerror(errno)));
  }
  std::vector<std::string> argv = {"valgrind",           "-q",
                                   "--tool=callgrind",   "--trace-children=yes",
                                   "--cache-sim=yes",    "--branch-sim=yes",
                                   "--dump-before=_Fork"};
  for (const char* o : kSimCacheOptions) argv.emplace_back(o);
  argv.push_back(
      absl::StrCat("--callgrind-out-file=", dir, "/callgrind.out.%p"));
  argv.push_back(absl::StrCat("--log-file=", dir, "/valgrind.log.%p"));
  argv.insert(argv.end(), command.begin(), command.end());
  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::fflush(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (personality(ADDR_NO_RANDOMIZE) < 0) {
      std::fprintf(stderr,
                   "perfcounters stat: warning: --source simulate: cannot "
                   "turn off address space randomisation (%s): simulated "
                   "cache misses may differ between runs\n",
                   std::strerror(errno));
    }
    execvp("valgrind", c_argv.data());
    std::fprintf(stderr, "perfcounters stat: %s\n", stat_sim::kNoValgrind);
    _exit(127);
  }
  *child = pid;
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  *child = 0;
  StatRunOutcome run;
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  run.user_seconds = stat_sim::Seconds(usage.ru_utime);
  run.sys_seconds = stat_sim::Seconds(usage.ru_stime);
  if (WIFSIGNALED(status)) {
    run.term_signal = WTERMSIG(status);
  } else {
    run.exit_status = WEXITSTATUS(status);
  }
  int dumps = 0;
  std::string error;
  const SimCosts costs = stat_sim::CollectAndRemove(dir, &dumps, &error);
  if (dumps == 0) {
    return absl::InternalError(absl::StrCat(
        "--source simulate: callgrind wrote no costs for '", command[0], "' (",
        run.term_signal != 0 ? "signal " : "exit status ",
        run.term_signal != 0 ? run.term_signal : run.exit_status, ")",
        error.empty() ? "" : absl::StrCat(": ", error)));
  }
  if (!error.empty()) {
    return absl::DataLossError(absl::StrCat(
        "--source simulate: a callgrind dump is unreadable: ", error));
  }
  stat_sim::RecordSimulatedCounts(costs, result);
  return run;
}

}  // namespace perfcounters::tools
