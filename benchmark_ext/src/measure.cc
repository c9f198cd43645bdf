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
#include "measure_internal.h"
#include "perfcounters/benchmark.h"
#include "perfcounters/benchmark_plan.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/counts.h"
#include "perfcounters/group.h"

namespace perfcounters {
namespace bench_internal {

// The configured events, immutable once published.
struct Config {
  bench::Plan plan;
  // For each planned group, the index of its first event in the flat list.
  std::vector<size_t> first_event;
  // Flat list of keys, group by group.
  std::vector<std::string> keys;
  // Derived metrics as (name, numerator index, denominator index).
  struct Derived {
    std::string name;
    size_t numerator;
    size_t denominator;
  };
  std::vector<Derived> derived;
  MeasureOptions options;
};

// One thread's groups and the current batch's accumulators.
struct ThreadCounters {
  std::shared_ptr<const Config> config;
  // Not OK when no group was opened on this thread because the process
  // would run short of file descriptors (CheckDescriptorBudget); `set` is
  // then empty and every event is not counted.
  absl::Status budget;
  bench::CounterSet set;
  // Per event: the bracket's own counts (empty when not calibrated).
  std::vector<bench::BracketCost> calibration;
};

namespace {

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

std::shared_ptr<const Config> MakeConfig(bench::Plan plan,
                                         const MeasureOptions& options) {
  auto config = std::make_shared<Config>();
  config->plan = std::move(plan);
  config->options = options;
  for (const bench::PlannedGroup& g : config->plan.groups) {
    config->first_event.push_back(config->keys.size());
    for (const bench::PlannedEvent& e : g.events) {
      config->keys.push_back(e.key);
    }
  }
  auto index_of = [&](const std::string& key) {
    for (size_t i = 0; i < config->keys.size(); ++i) {
      if (config->keys[i] == key) return i;
    }
    return config->keys.size();
  };
  for (const bench::DerivedMetric& m : config->plan.derived) {
    config->derived.push_back(
        {m.name, index_of(m.numerator), index_of(m.denominator)});
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
    absl::StatusOr<bench::Plan> plan =
        SetBenchmarkEvents(env == nullptr ? "" : env);
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
thread_local Measure* t_active = nullptr;

// Empty intervals measured per thread to calibrate the bracket.
constexpr int kCalibrationSamples = 33;

// This thread's groups for `config`, opened on first use (and reopened
// when the configuration changed), calibrated when the options say so.
ThreadCounters* CountersFor(const std::shared_ptr<const Config>& config) {
  if (t_counters != nullptr && t_counters->config == config) {
    return t_counters.get();
  }
  t_counters = std::make_unique<ThreadCounters>();
  ThreadCounters& c = *t_counters;
  c.config = config;
  c.budget = CheckDescriptorBudget(config->plan.event_count());
  if (!c.budget.ok()) {
    WarnOnce("budget/" + std::string(c.budget.message()),
             absl::StrCat("nothing is counted on a benchmark thread (every "
                          "counter of its runs is reported not counted): ",
                          c.budget.message()));
    return &c;
  }
  std::vector<std::vector<EventSpec>> groups;
  for (const bench::PlannedGroup& g : config->plan.groups) {
    std::vector<EventSpec>& specs = groups.emplace_back();
    for (const bench::PlannedEvent& e : g.events) specs.push_back(e.spec);
  }
  c.set = bench::CounterSet::Open(groups, config->options.read_mode);
  for (size_t g = 0; g < c.set.group_count(); ++g) {
    if (c.set.group_status(g).ok()) continue;
    for (const bench::PlannedEvent& e : config->plan.groups[g].events) {
      WarnOnce(e.key + "/thread-open",
               absl::StrCat(e.key,
                            " could not be opened on a benchmark thread, "
                            "so it is not counted in that run: ",
                            c.set.group_status(g).message()));
    }
  }
  if (config->options.calibrate) {
    c.calibration = c.set.Calibrate(kCalibrationSamples);
  }
  return &c;
}

// Adds this thread's batch of `iterations` to the run record.
void PublishBatch(const ThreadCounters& c,
                  benchmark::IterationCount iterations) {
  const bench::CounterSet& set = c.set;
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
  uint64_t enabled = 0;
  bool timed = false;
  for (size_t g = 0; g < set.group_count(); ++g) {
    if (!set.group_status(g).ok() || set.failed(g)) continue;
    enabled = std::max(enabled, set.enabled(g));
    timed = true;
  }
  run.counted_ns += enabled;
  run.time_known = run.time_known && timed;
  for (size_t g = 0; g < set.group_count(); ++g) {
    const size_t first = set.first_event(g);
    const size_t n = c.config->plan.groups[g].events.size();
    for (size_t i = first; i < first + n; ++i) {
      if (!set.group_status(g).ok() || set.failed(g) || set.running(g) == 0) {
        run.not_counted[i] = true;
        continue;
      }
      double value = Scale(set.raw(i), set.enabled(g), set.running(g)).value();
      if (i < c.calibration.size() && c.calibration[i].valid) {
        // The bracket ran once per counting interval; never below 0.
        const bench::BracketCost& cost = c.calibration[i];
        const double intervals = static_cast<double>(set.intervals());
        value =
            std::max(0.0, value - static_cast<double>(cost.floor) * intervals);
        // Too small: below 10x the bracket's noise, or below the bracket's
        // own count (then the result is mostly the subtraction).
        const double limit = std::max(10.0 * static_cast<double>(cost.spread),
                                      static_cast<double>(cost.floor)) *
                             intervals;
        if (value < limit) {
          run.noise.push_back(absl::StrCat(
              c.config->keys[i], " counted ", value, " in a batch of ",
              set.intervals(),
              " interval(s), less than the measurement's own count (",
              cost.floor, " per interval) or 10x its noise (", cost.spread,
              " per interval); the value is dominated by the measurement: "
              "give the benchmark more work per batch"));
        }
      }
      run.scaled[i] += value;
      run.enabled[i] += set.enabled(g);
      run.running[i] += set.running(g);
    }
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
  for (size_t i = 0; i < config.keys.size(); ++i) {
    const std::string& key = config.keys[i];
    if (run.not_counted[i]) {
      state.counters[key + ".not_counted"] = benchmark::Counter(1);
      MarkNotCounted();
      WarnOnce(
          key + "/run",
          absl::StrCat(key, " was not counted in a run (",
                       run.short_of_descriptors
                           ? "a benchmark thread had too few free file "
                             "descriptors to open it, see above"
                           : "its group never ran on the PMU, or could "
                             "not be read",
                       "); reported as ", key, ".not_counted=1, never as 0"));
      continue;
    }
    state.counters[key] =
        benchmark::Counter(run.scaled[i], benchmark::Counter::kAvgIterations);
    if (run.running[i] < run.enabled[i]) {
      state.counters[key + ".coverage"] =
          benchmark::Counter(static_cast<double>(run.running[i]) /
                             static_cast<double>(run.enabled[i]));
    }
  }
  for (const bench::Unavailable& u : config.plan.unavailable) {
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
  for (const Config::Derived& d : config.derived) {
    if (d.numerator >= run.scaled.size() ||
        d.denominator >= run.scaled.size() || run.not_counted[d.numerator] ||
        run.not_counted[d.denominator] || run.scaled[d.denominator] <= 0) {
      continue;
    }
    state.counters[d.name] =
        benchmark::Counter(run.scaled[d.numerator] / run.scaled[d.denominator]);
  }
}

}  // namespace

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

absl::StatusOr<bench::Plan> SetBenchmarkEvents(std::string_view list,
                                               const MeasureOptions& options) {
  ParseOptions parse_options;
  parse_options.default_user_only = true;
  absl::StatusOr<bench::Request> request =
      bench::ParseRequest(list, parse_options);
  if (!request.ok()) return request.status();
  bench::Plan plan = bench::MakePlan(*request, bench::OpenAndVerify);
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
  const bench::CounterSet& set = c.set;
  int user = 0;
  int syscall = 0;
  for (size_t g = 0; g < set.group_count(); ++g) {
    const bench::PlannedGroup& planned = (*config)->plan.groups[g];
    std::string name = "{";
    for (const bench::PlannedEvent& e : planned.events) {
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
  for (size_t i = 0; i < c.calibration.size(); ++i) {
    if (!c.calibration[i].valid) continue;
    setup.calibration.emplace_back((*config)->keys[i], c.calibration[i]);
  }
  return setup;
}

bench::Plan CurrentBenchmarkPlan() {
  std::lock_guard<std::mutex> lock(bench_internal::g_config_mu);
  if (bench_internal::g_config == nullptr) return bench::Plan();
  return bench_internal::g_config->plan;
}

std::string DescribeUnavailable(const bench::Plan& plan) {
  if (plan.unavailable.empty()) return "";
  std::string out;
  for (const bench::Unavailable& u : plan.unavailable) {
    absl::StrAppend(&out, "perfcounters: warning: ", u.key,
                    " is not available and will not be counted (reported as ",
                    u.key, ".not_counted=1): ", u.reason, "\n");
  }
  const Capabilities caps = ProbeCapabilities();
  if (!caps.has_hardware_pmu()) {
    absl::StrAppend(&out,
                    "perfcounters: note: this machine exposes no hardware PMU",
                    caps.hypervisor ? " (it is a virtual machine whose "
                                      "hypervisor passes none through)"
                                    : "",
                    "; only software events (task-clock, page-faults, "
                    "context-switches, ...) can be counted here\n");
  }
  return out;
}

bool AnyCounterNotCounted() {
  std::lock_guard<std::mutex> lock(bench_internal::g_warn_mu);
  return bench_internal::g_any_not_counted;
}

Measure::Measure(benchmark::State& state) : state_(state) {
  absl::StatusOr<std::shared_ptr<const bench_internal::Config>> config =
      bench_internal::CurrentConfig();
  if (!config.ok()) {
    // Only a bad PERFCOUNTERS_EVENTS in a program with its own main (e.g.
    // gbench's BENCHMARK_MAIN()) gets here: perfcounters' main rejects it
    // before running anything. Stop at the first Measure, before its loop,
    // rather than turn every benchmark into an error row and exit 0.
    std::fprintf(stderr,
                 "perfcounters: error: %s; stopped before the first measured "
                 "benchmark\n",
                 std::string(config.status().message()).c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  if (*config == nullptr) return;
  counters_ = bench_internal::CountersFor(*config);
  counters_->set.ResetBatch();
  if (state_.thread_index() == 0) bench_internal::ResetRun(*(*config));
}

Measure::~Measure() {
  // A loop left early (after SkipWithError): stop without reporting.
  if (bench_internal::t_active == this) {
    counters_->set.Stop();
    bench_internal::t_active = nullptr;
  }
  if (counters_ != nullptr && !published_ && state_.error_occurred()) {
    bench_internal::PublishSkipped(*counters_);
  }
}

Measure::Iterator Measure::begin() {
  const benchmark::IterationCount n =
      state_.max_iterations > 0 ? state_.max_iterations : 1;
  // Starts gbench's timer (after its start barrier) and takes all n
  // iterations at once; false when the benchmark was skipped.
  if (!state_.KeepRunningBatch(n)) {
    finished_ = true;
    return Iterator(this, 0);
  }
  if (counters_ != nullptr) {
    bench_internal::t_active = this;
    counters_->set.Start();
  }
  return Iterator(this, n);
}

void Measure::Finish() {
  if (finished_) return;
  finished_ = true;
  if (counters_ != nullptr) {
    counters_->set.Stop();
    bench_internal::t_active = nullptr;
    if (state_.error_occurred()) {
      bench_internal::PublishSkipped(*counters_);
    } else {
      bench_internal::PublishBatch(
          *counters_, state_.max_iterations > 0 ? state_.max_iterations : 1);
    }
    published_ = true;
  }
  // No iterations are left: this stops gbench's timer and waits at its
  // finish barrier for the other threads of the benchmark.
  while (state_.KeepRunningBatch(1)) {
  }
  if (counters_ != nullptr && state_.thread_index() == 0 &&
      !state_.error_occurred()) {
    bench_internal::Report(*counters_->config, state_);
  }
}

void Measure::Pause() {
  if (counters_ != nullptr) counters_->set.Stop();
}

void Measure::Resume() {
  if (counters_ != nullptr) counters_->set.Start();
}

void PauseTiming(benchmark::State& state) {
  if (bench_internal::t_active != nullptr) bench_internal::t_active->Pause();
  state.PauseTiming();
}

void ResumeTiming(benchmark::State& state) {
  state.ResumeTiming();
  if (bench_internal::t_active != nullptr) bench_internal::t_active->Resume();
}

}  // namespace perfcounters
