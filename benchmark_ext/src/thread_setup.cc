// thread_setup.cc: a benchmark thread's counter groups — opened on first
// use within the file descriptor budget, calibrated through Measure's own
// loop, reopened when the configuration changed — and the main thread's
// setup report.
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "console.h"
#include "measure_internal.h"
#include "perfcounters/counters.h"
#include "perfcounters/internal/counter_set.h"
#include "perfcounters/plan.h"
#include "registry.h"
#include "simulate.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

// The number of open file descriptors (entries of /proc/self/fd, less the
// one used to list them), or -1 when /proc cannot be read.
long OpenDescriptors() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  long n = 0;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;
}

// This thread's groups (the calling thread's; each benchmark thread has
// its own).
thread_local std::unique_ptr<ThreadCounters> t_counters;

}  // namespace

// This thread's groups for `config`, opened on first use (and reopened
// when the configuration changed), calibrated when the options say so.
ThreadCounters* CountersFor(const std::shared_ptr<const Config>& config) {
  if (t_counters != nullptr && t_counters->config == config) {
    return t_counters.get();
  }
  CountersOptions options;
  options.read_mode = config->options.read_mode;
  // Calibrated below, through Measure's own loop (CalibrateBrackets).
  options.calibrate = false;
  if (config->simulated) {
    // No group: the simulator's brackets count (simulate.h).
    t_counters = std::make_unique<ThreadCounters>(ThreadCounters{
        config, absl::OkStatus(), Counters::Open(Plan{}, options),
        std::make_shared<SimThread>()});
    if (config->options.calibrate) CalibrateBrackets(t_counters.get());
    return t_counters.get();
  }
  absl::Status budget = CheckDescriptorBudget(config->plan.event_count());
  if (!budget.ok()) {
    WarnOnce("budget/" + std::string(budget.message()),
             absl::StrCat("nothing is counted on a benchmark thread (every "
                          "counter of its runs is reported not counted): ",
                          budget.message()));
    // No group: Start/Stop do nothing and the batch is published as not
    // counted.
    t_counters = std::make_unique<ThreadCounters>(ThreadCounters{
        config, std::move(budget), Counters::Open(Plan{}, options)});
    return t_counters.get();
  }
  t_counters = std::make_unique<ThreadCounters>(ThreadCounters{
      config, absl::OkStatus(), Counters::Open(config->plan, options)});
  ThreadCounters& c = *t_counters;
  const CounterSet& groups = internal::CounterSetOf(c.counters);
  for (size_t g = 0; g < groups.group_count(); ++g) {
    if (groups.group_status(g).ok() && !groups.user_space(g)) {
      c.outside_timer = true;
    }
  }
  if (config->options.calibrate) {
    CalibrateBrackets(&c);
    const std::vector<std::string> missed = c.counters.Uncalibrated();
    if (!missed.empty()) {
      WarnNotCounted(
          missed,
          "could not be calibrated (the group was never on the PMU for a "
          "whole empty interval in 0.25 s of calibration: more groups than "
          "the PMU has turns for?), so the measurement's own count is not "
          "subtracted from them (a few dozen per batch)");
    }
  }
  const CounterSet& set = internal::CounterSetOf(c.counters);
  for (size_t g = 0; g < set.group_count(); ++g) {
    if (set.group_status(g).ok()) continue;
    std::vector<std::string> keys;
    for (const PlannedEvent& e : config->plan.groups[g].events) {
      keys.push_back(e.key);
    }
    WarnNotCounted(keys, absl::StrCat("could not be opened on a benchmark "
                                      "thread, so not counted in that run: ",
                                      set.group_status(g).message()));
  }
  return &c;
}

absl::Status CheckDescriptorBudget(size_t needed) {
  if (needed == 0) return absl::OkStatus();
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 ||
      limit.rlim_cur == RLIM_INFINITY) {
    return absl::OkStatus();
  }
  const long open = OpenDescriptors();
  if (open < 0) return absl::OkStatus();
  const long soft = static_cast<long>(limit.rlim_cur);
  const long free = soft - open;
  if (static_cast<long>(needed) + kReservedDescriptors <= free) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "the ", needed, " counters need ", needed,
      " file descriptors per benchmark thread and perfcounters keeps ",
      kReservedDescriptors,
      " free for the benchmark and gbench (its --benchmark_out file, the "
      "files it reads), but only ",
      std::max(free, 0L), " are free (RLIMIT_NOFILE soft limit ", soft, ", ",
      open, " open); raise the limit (ulimit -n ",
      open + static_cast<long>(needed) + kReservedDescriptors,
      " or more) or count fewer events"));
}

MeasurementSetup PrepareCallingThread() {
  MeasurementSetup setup;
  absl::StatusOr<std::shared_ptr<const Config>> config = CurrentConfig();
  if (!config.ok() || *config == nullptr) return setup;
  const ThreadCounters& c = *CountersFor(*config);
  if (!c.budget.ok()) {
    setup.not_open.push_back(std::string(c.budget.message()));
    return setup;
  }
  const CounterSet& set = internal::CounterSetOf(c.counters);
  int user = 0;
  int syscall = 0;
  for (size_t g = 0; g < set.group_count(); ++g) {
    const PlannedGroup& planned = (*config)->plan.groups[g];
    std::string name = "{";
    for (const PlannedEvent& e : planned.events) {
      absl::StrAppend(&name, name.size() > 1 ? "," : "", e.key);
    }
    name += "}";
    if (!set.group_status(g).ok()) {
      setup.group_paths.push_back(name + ": not open");
      setup.not_open.push_back(
          absl::StrCat(name, ": ", set.group_status(g).message()));
      continue;
    }
    if (set.user_space(g)) {
      ++user;
      setup.group_paths.push_back(name + ": user-space");
    } else {
      ++syscall;
      setup.group_paths.push_back(name + ": syscall");
      setup.syscall_reasons.push_back(
          absl::StrCat(name, ": ", set.user_space_reason(g)));
      if (!set.user_space_disagreement(g).empty()) {
        setup.read_path_check.push_back(
            absl::StrCat(name, ": ", set.user_space_disagreement(g)));
      }
    }
  }
  setup.read_path = user > 0 && syscall > 0 ? "mixed"
                    : user > 0              ? "user-space"
                                            : "syscall";
  setup.outside_timer = c.outside_timer;
  const std::vector<BracketCost>& batch = c.counters.first_calibration();
  const std::vector<BracketCost>& pause = c.counters.calibration();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].valid || !pause[i].valid) continue;
    setup.calibration.emplace_back((*config)->keys[i], batch[i]);
    // Outside gbench's timer the pause's cost is measured later, at a
    // batch's first pause, with gbench's own pause inside.
    if (!c.outside_timer) {
      setup.pause_calibration.emplace_back((*config)->keys[i], pause[i]);
    }
  }
  setup.uncalibrated = c.counters.Uncalibrated();
  return setup;
}

}  // namespace perfcounters::benchmark_ext_internal
