// measure.cc: Measure, the per-thread counter groups, and the per-run
// record that combines the benchmark's threads.
//
// Threads: gbench runs a benchmark's threads with the same max_iterations
// and puts a barrier in StartKeepRunning() and in FinishKeepRunning(). Each
// thread publishes its scaled deltas into the process-wide RunRecord before
// its final KeepRunningBatch() call (the finish barrier); thread 0, after
// that call returns, knows every thread's numbers and alone writes the
// counters (gbench sums user counters over threads, so the other threads
// write none). That makes "not counted on any thread" a decision for the
// whole run, and coverage and derived metrics ratios of sums.
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "counter_set.h"
#include "measure_internal.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/counters.h"
#include "perfcounters/group.h"
#include "perfcounters/plan.h"

namespace perfcounters {
namespace bench_internal {

std::mutex g_config_mu;
std::shared_ptr<const Config> g_config;  // guarded by g_config_mu
bool g_configured = false;               // guarded by g_config_mu

std::mutex g_warn_mu;
absl::flat_hash_set<std::string>* g_warned = nullptr;  // guarded by g_warn_mu
bool g_any_not_counted = false;                        // guarded by g_warn_mu

// Prints `message` to stderr once per `key` per process.
void WarnOnce(const std::string& key, const std::string& message) {
  std::lock_guard<std::mutex> lock(g_warn_mu);
  if (g_warned == nullptr) g_warned = new absl::flat_hash_set<std::string>();
  if (!g_warned->insert(key).second) return;
  std::fprintf(stderr, "perfcounters: warning: %s\n", message.c_str());
}

// The last reported batch's warnings about batches too small for the
// bracket's noise, waiting for the main's reporter to print them with the
// benchmark's name.
std::vector<std::string>* g_pending_noise = nullptr;  // guarded by g_warn_mu

void MarkNotCounted() {
  std::lock_guard<std::mutex> lock(g_warn_mu);
  g_any_not_counted = true;
}

// The run being measured: every thread of it publishes here.
struct RunRecord {
  std::mutex mu;
  const Config* config = nullptr;
  int publishers = 0;
  std::vector<double> scaled;
  std::vector<uint64_t> enabled;
  std::vector<uint64_t> running;
  std::vector<bool> not_counted;
  // CPU time the counters ran (the groups' time enabled, which for a
  // thread's events advances while the thread runs), summed over threads;
  // time_known is false when some thread had no group to tell.
  uint64_t counted_ns = 0;
  bool time_known = true;
  benchmark::IterationCount iterations = 0;
  // Some thread opened nothing: too few free file descriptors.
  bool short_of_descriptors = false;
  // Some thread skipped the run with SkipWithError: gbench reports the run
  // as an error without counters, so none are written or judged.
  bool skipped = false;
  // Warnings: batches too small for the bracket's noise.
  std::vector<std::string> noise;
};

RunRecord& Run() {
  static auto* record = new RunRecord();
  return *record;
}

std::shared_ptr<const Config> MakeConfig(Plan plan,
                                         const MeasureOptions& options) {
  auto config = std::make_shared<Config>();
  config->plan = std::move(plan);
  config->options = options;
  for (const PlannedGroup& g : config->plan.groups) {
    config->first_event.push_back(config->keys.size());
    for (const PlannedEvent& e : g.events) {
      config->keys.push_back(e.key);
    }
  }
  return config;
}

void Publish(std::shared_ptr<const Config> config) {
  std::lock_guard<std::mutex> lock(g_config_mu);
  g_config = std::move(config);
  g_configured = true;
}

// The configuration, read from PERFCOUNTERS_EVENTS on first use when no
// one called SetBenchmarkEvents(). Once per process, even when the threads
// of a benchmark get here together: they must share one configuration.
absl::StatusOr<std::shared_ptr<const Config>> CurrentConfig() {
  static std::once_flag once;
  static absl::Status* env_error = nullptr;
  std::call_once(once, [] {
    {
      std::lock_guard<std::mutex> lock(g_config_mu);
      if (g_configured) return;
    }
    const char* env = std::getenv("PERFCOUNTERS_EVENTS");
    absl::StatusOr<Plan> plan = SetBenchmarkEvents(env == nullptr ? "" : env);
    if (!plan.ok()) {
      env_error = new absl::Status(
          plan.status().code(), absl::StrCat("PERFCOUNTERS_EVENTS=", env, ": ",
                                             plan.status().message()));
      Publish(nullptr);
      return;
    }
    const std::string warnings = DescribeUnavailable(*plan);
    if (!warnings.empty()) std::fputs(warnings.c_str(), stderr);
  });
  std::lock_guard<std::mutex> lock(g_config_mu);
  if (env_error != nullptr && g_config == nullptr) return *env_error;
  return g_config;
}

// The last reported batch's counted CPU time, waiting for the main's
// reporter to compare it with gbench's timed CPU time.
std::optional<CountedTime> g_pending_time;  // guarded by g_warn_mu

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

thread_local std::unique_ptr<ThreadCounters> t_counters;

// The warning for a batch that was multiplexed over too few rotations.
std::string ShortMuxWarning(const CounterValue& v) {
  const double interval_ms =
      1e-6 * static_cast<double>(v.enabled) / std::max(v.mux_intervals, 1e-9);
  // A batch of twice the threshold's CPU time (gbench's last batch takes
  // about --benchmark_min_time).
  const double min_time_s = 2 * kFewMuxIntervals * interval_ms * 1e-3;
  return absl::StrCat(
      v.label, " was multiplexed (on the PMU ",
      absl::SixDigits(100 * v.coverage), "% of the batch) over only ",
      absl::SixDigits(v.mux_intervals), " multiplexing intervals of ",
      absl::SixDigits(interval_ms), " ms (fewer than ", kFewMuxIntervals,
      "), so its scaled value can be off by several %; give the benchmark "
      "a longer batch: --benchmark_min_time=",
      absl::SixDigits(min_time_s), "s or more");
}

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

// Adds this thread's batch of `iterations` to the run record.
void PublishBatch(const ThreadCounters& c,
                  benchmark::IterationCount iterations) {
  RunRecord& run = Run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != c.config.get()) return;  // not reset for this config
  ++run.publishers;
  run.iterations += iterations;
  if (!c.budget.ok()) {
    run.not_counted.assign(run.not_counted.size(), true);
    run.time_known = false;
    run.short_of_descriptors = true;
    return;
  }
  const CounterSet& set = internal::CounterSetOf(c.counters);
  uint64_t enabled = 0;
  bool timed = false;
  for (size_t g = 0; g < set.group_count(); ++g) {
    if (!set.group_status(g).ok() || set.failed(g)) continue;
    enabled = std::max(enabled, set.enabled(g));
    timed = true;
  }
  run.counted_ns += enabled;
  run.time_known = run.time_known && timed;
  for (size_t i = 0; i < set.event_count(); ++i) {
    const CounterValue v = c.counters.PlannedValue(i);
    if (!v.counted) {
      run.not_counted[i] = true;
      continue;
    }
    if (v.below_noise()) {
      run.noise.push_back(absl::StrCat(
          v.label, " counted ", v.value, " in a batch of ",
          c.counters.intervals(), " interval(s), less than ", v.noise_limit,
          ", the measurement's own count (",
          c.counters.first_calibration()[i].floor, " per batch, ",
          c.counters.calibration()[i].floor,
          " per pause) or 10x its noise; the value is dominated by the "
          "measurement: give the benchmark more work per batch"));
    }
    if (v.short_multiplexed()) run.noise.push_back(ShortMuxWarning(v));
    run.scaled[i] += v.value;
    run.enabled[i] += v.enabled;
    run.running[i] += v.running;
  }
}

// A thread whose run was skipped with SkipWithError.
void PublishSkipped(const ThreadCounters& c) {
  RunRecord& run = Run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != c.config.get()) return;
  ++run.publishers;
  run.skipped = true;
}

void ResetRun(const Config& config) {
  RunRecord& run = Run();
  std::lock_guard<std::mutex> lock(run.mu);
  const size_t n = config.keys.size();
  run.config = &config;
  run.publishers = 0;
  run.scaled.assign(n, 0);
  run.enabled.assign(n, 0);
  run.running.assign(n, 0);
  run.not_counted.assign(n, false);
  run.counted_ns = 0;
  run.time_known = true;
  run.iterations = 0;
  run.short_of_descriptors = false;
  run.skipped = false;
  run.noise.clear();
}

// Thread 0: writes the run's counters.
void Report(const Config& config, benchmark::State& state) {
  RunRecord& run = Run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != &config || run.skipped) return;
  if (run.publishers != state.threads()) {
    WarnOnce("publishers",
             absl::StrCat("only ", run.publishers, " of ", state.threads(),
                          " benchmark threads reported counters (use "
                          "perfcounters::Measure on every thread); the run's "
                          "counters are marked not counted"));
    run.not_counted.assign(run.not_counted.size(), true);
  }
  std::vector<std::string> not_counted;
  for (size_t i = 0; i < config.keys.size(); ++i) {
    const std::string& key = config.keys[i];
    if (run.not_counted[i]) {
      state.counters[key + ".not_counted"] = benchmark::Counter(1);
      MarkNotCounted();
      not_counted.push_back(key);
      continue;
    }
    // Counts: gbench shows them with k/M/G (powers of 1000).
    state.counters[key] =
        benchmark::Counter(run.scaled[i], benchmark::Counter::kAvgIterations,
                           benchmark::Counter::kIs1000);
    if (run.running[i] < run.enabled[i]) {
      state.counters[key + ".coverage"] =
          benchmark::Counter(static_cast<double>(run.running[i]) /
                             static_cast<double>(run.enabled[i]));
    }
  }
  if (!not_counted.empty()) {
    WarnNotCounted(not_counted,
                   absl::StrCat("not counted in a run (",
                                run.short_of_descriptors
                                    ? "a benchmark thread had too few free "
                                      "file descriptors to open it, see above"
                                    : "the group never ran on the PMU, or "
                                      "could not be read",
                                "); never reported as 0 (JSON/CSV: "
                                "<name>.not_counted=1)"));
  }
  for (const Unavailable& u : config.plan.unavailable) {
    state.counters[u.key + ".not_counted"] = benchmark::Counter(1);
  }
  {
    // Only the last batch of a run is reported, so only its warnings are
    // kept (gbench's first, tiny batches only size the next one).
    std::lock_guard<std::mutex> warn_lock(g_warn_mu);
    if (g_pending_noise == nullptr) {
      g_pending_noise = new std::vector<std::string>();
    }
    *g_pending_noise = run.noise;
    g_pending_time.reset();
    if (run.time_known) {
      g_pending_time = CountedTime{static_cast<double>(run.counted_ns) * 1e-9,
                                   run.iterations};
    }
  }
  // Derived metrics: ratios of the run's sums over its threads.
  std::vector<CounterValue> sums(config.keys.size());
  for (size_t i = 0; i < sums.size(); ++i) {
    sums[i].label = config.keys[i];
    sums[i].counted = !run.not_counted[i];
    sums[i].value = run.scaled[i];
  }
  for (const MetricValue& m : ComputeMetrics(config.plan.derived, sums)) {
    if (m.counted) state.counters[m.name] = benchmark::Counter(m.value);
  }
}

std::vector<std::string> TakeNoiseWarnings() {
  std::lock_guard<std::mutex> lock(g_warn_mu);
  std::vector<std::string> out;
  if (g_pending_noise != nullptr) out.swap(*g_pending_noise);
  return out;
}

std::optional<CountedTime> TakeCountedTime() {
  std::lock_guard<std::mutex> lock(g_warn_mu);
  std::optional<CountedTime> out;
  out.swap(g_pending_time);
  return out;
}

std::string PausedTimerWarning(double counted_s, double timed_s) {
  // The counters run inside gbench's timer, so they can only exceed it
  // when the timer was paused while they ran (clock granularity aside).
  if (!(counted_s > kPausedTimerRatio * timed_s + kPausedTimerSlackS)) {
    return "";
  }
  return absl::StrCat(
      "the counters ran for ", absl::SixDigits(counted_s * 1e3),
      " ms of CPU time in the last batch but gbench timed only ",
      absl::SixDigits(timed_s * 1e3),
      " ms: the benchmark probably pauses gbench's timer with "
      "state.PauseTiming(), which does not stop the counters, so the paused "
      "work is counted; use perfcounters::PauseTiming(state) and "
      "perfcounters::ResumeTiming(state) instead");
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

}  // namespace bench_internal

using bench_internal::ThreadCounters;

absl::StatusOr<Plan> SetBenchmarkEvents(std::string_view list,
                                        const MeasureOptions& options) {
  ParseOptions parse_options;
  parse_options.default_user_only = true;
  absl::StatusOr<Request> request = ParseRequest(list, parse_options);
  if (!request.ok()) return request.status();
  Plan plan = MakePlan(*request, OpenAndVerify);
  if (!plan.unavailable.empty()) bench_internal::MarkNotCounted();
  bench_internal::Publish(plan.requested_keys.empty()
                              ? nullptr
                              : bench_internal::MakeConfig(plan, options));
  return plan;
}

MeasurementSetup PrepareCallingThread() {
  MeasurementSetup setup;
  absl::StatusOr<std::shared_ptr<const bench_internal::Config>> config =
      bench_internal::CurrentConfig();
  if (!config.ok() || *config == nullptr) return setup;
  const ThreadCounters& c = *bench_internal::CountersFor(*config);
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
    }
  }
  setup.read_path = user > 0 && syscall > 0 ? "mixed"
                    : user > 0              ? "user-space"
                                            : "syscall";
  const std::vector<BracketCost>& batch = c.counters.first_calibration();
  const std::vector<BracketCost>& pause = c.counters.calibration();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].valid || !pause[i].valid) continue;
    setup.calibration.emplace_back((*config)->keys[i], batch[i]);
    setup.pause_calibration.emplace_back((*config)->keys[i], pause[i]);
  }
  setup.uncalibrated = c.counters.Uncalibrated();
  return setup;
}

Plan CurrentBenchmarkPlan() {
  std::lock_guard<std::mutex> lock(bench_internal::g_config_mu);
  if (bench_internal::g_config == nullptr) return Plan();
  return bench_internal::g_config->plan;
}

bool AnyCounterNotCounted() {
  std::lock_guard<std::mutex> lock(bench_internal::g_warn_mu);
  return bench_internal::g_any_not_counted;
}

}  // namespace perfcounters
