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
#include <linux/perf_event.h>
#include <unistd.h>

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
};

// One thread's groups and the current batch's accumulators.
struct ThreadCounters {
  std::shared_ptr<const Config> config;
  // Per planned group; empty when it failed to open on this thread.
  std::vector<std::optional<Group>> groups;
  // Per group: the raw read(2) buffers of the snapshots at the start and
  // the end of the current interval (see Snapshot()).
  std::vector<std::vector<uint64_t>> start;
  std::vector<std::vector<uint64_t>> end;
  // Per group: a read failed in this batch (the events are not counted).
  std::vector<bool> failed;
  // Per event: summed raw deltas; per group: summed enabled/running.
  std::vector<uint64_t> raw;
  std::vector<uint64_t> enabled;
  std::vector<uint64_t> running;
  bool counting = false;
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
};

RunRecord& Run() {
  static auto* record = new RunRecord();
  return *record;
}

std::shared_ptr<const Config> MakeConfig(bench::Plan plan) {
  auto config = std::make_shared<Config>();
  config->plan = std::move(plan);
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

thread_local std::unique_ptr<ThreadCounters> t_counters;
thread_local Measure* t_active = nullptr;

// This thread's groups for `config`, opened on first use (and reopened
// when the configuration changed).
ThreadCounters* CountersFor(const std::shared_ptr<const Config>& config) {
  if (t_counters != nullptr && t_counters->config == config) {
    return t_counters.get();
  }
  t_counters = std::make_unique<ThreadCounters>();
  ThreadCounters& c = *t_counters;
  c.config = config;
  for (const bench::PlannedGroup& g : config->plan.groups) {
    std::vector<EventSpec> specs;
    for (const bench::PlannedEvent& e : g.events) specs.push_back(e.spec);
    GroupOptions options;
    options.start_disabled = false;  // counts from open; we only snapshot
    absl::StatusOr<Group> group = Group::Open(specs, options);
    if (group.ok()) {
      c.groups.emplace_back(*std::move(group));
    } else {
      c.groups.emplace_back(std::nullopt);
      for (const bench::PlannedEvent& e : g.events) {
        WarnOnce(e.key + "/thread-open",
                 absl::StrCat(e.key,
                              " could not be opened on a benchmark thread, "
                              "so it is not counted in that run: ",
                              group.status().message()));
      }
    }
  }
  for (const std::optional<Group>& g : c.groups) {
    const size_t words = g.has_value() ? 3 + 2 * g->size() : 0;
    c.start.emplace_back(words);
    c.end.emplace_back(words);
  }
  c.failed.resize(c.groups.size());
  c.raw.resize(config->keys.size());
  c.enabled.resize(c.groups.size());
  c.running.resize(c.groups.size());
  return &c;
}

void ResetBatch(ThreadCounters& c) {
  std::fill(c.failed.begin(), c.failed.end(), false);
  std::fill(c.raw.begin(), c.raw.end(), 0);
  std::fill(c.enabled.begin(), c.enabled.end(), 0);
  std::fill(c.running.begin(), c.running.end(), 0);
}

// Snapshot at the start of a counting interval.
// One read(2) of a group's leader into `buf`, preallocated to the exact
// size of the group's record: with Group's read_format
// (PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING) that is
//   { nr, time_enabled, time_running, { value, id } x nr }.
// This is Group::Read() without its allocations: Measure reads at every
// batch boundary and its cost is measured against a bare read(2) (see
// benchmark_ext/bench/overhead_bench.cc). False on a short read (a pinned
// group in error state reads 0 bytes) or a record of another shape.
bool Snapshot(const Group& group, std::vector<uint64_t>& buf) {
  const size_t bytes = buf.size() * sizeof(uint64_t);
  const ssize_t n = read(group.leader().fd(), buf.data(), bytes);
  return n == static_cast<ssize_t>(bytes) && buf[0] == group.size();
}

// Snapshot at the start of a counting interval.
void StartInterval(ThreadCounters& c) {
  if (c.counting) return;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (!c.groups[g].has_value() || c.failed[g]) continue;
    if (!Snapshot(*c.groups[g], c.start[g])) c.failed[g] = true;
  }
  c.counting = true;
}

// Snapshot at the end of a counting interval; adds the deltas.
void StopInterval(ThreadCounters& c) {
  if (!c.counting) return;
  c.counting = false;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    if (!c.groups[g].has_value() || c.failed[g]) continue;
    std::vector<uint64_t>& end = c.end[g];
    const std::vector<uint64_t>& start = c.start[g];
    if (!Snapshot(*c.groups[g], end) || end[1] < start[1] ||
        end[2] < start[2]) {
      c.failed[g] = true;
      continue;
    }
    c.enabled[g] += end[1] - start[1];
    c.running[g] += end[2] - start[2];
    const size_t first = c.config->first_event[g];
    for (size_t m = 0; m < end[0]; ++m) {
      // Same member (id) and a counter that did not go backwards.
      const size_t v = 3 + 2 * m;
      if (end[v + 1] != start[v + 1] || end[v] < start[v]) {
        c.failed[g] = true;
        break;
      }
      c.raw[first + m] += end[v] - start[v];
    }
  }
}

// Adds this thread's batch to the run record.
void PublishBatch(const ThreadCounters& c) {
  RunRecord& run = Run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != c.config.get()) return;  // not reset for this config
  ++run.publishers;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    const size_t first = c.config->first_event[g];
    const size_t n = c.config->plan.groups[g].events.size();
    for (size_t i = first; i < first + n; ++i) {
      if (!c.groups[g].has_value() || c.failed[g] || c.running[g] == 0) {
        run.not_counted[i] = true;
        continue;
      }
      const ScaledCount s = Scale(c.raw[i], c.enabled[g], c.running[g]);
      run.scaled[i] += s.value();
      run.enabled[i] += c.enabled[g];
      run.running[i] += c.running[g];
    }
  }
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
}

// Thread 0: writes the run's counters.
void Report(const Config& config, benchmark::State& state) {
  RunRecord& run = Run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != &config) return;
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
      WarnOnce(key + "/run",
               absl::StrCat(key,
                            " was not counted in a run (its group never ran "
                            "on the PMU, or could not be read); reported as ",
                            key, ".not_counted=1, never as 0"));
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
}  // namespace bench_internal

using bench_internal::ThreadCounters;

absl::StatusOr<bench::Plan> SetBenchmarkEvents(std::string_view list) {
  ParseOptions options;
  options.default_user_only = true;
  absl::StatusOr<bench::Request> request = bench::ParseRequest(list, options);
  if (!request.ok()) return request.status();
  bench::Plan plan = bench::MakePlan(*request, bench::OpenAndVerify);
  if (!plan.unavailable.empty()) bench_internal::MarkNotCounted();
  bench_internal::Publish(
      plan.requested_keys.empty() ? nullptr : bench_internal::MakeConfig(plan));
  return plan;
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
    bench_internal::WarnOnce("config", std::string(config.status().message()));
    state_.SkipWithError(std::string(config.status().message()).c_str());
    return;
  }
  if (*config == nullptr) return;
  counters_ = bench_internal::CountersFor(*config);
  bench_internal::ResetBatch(*counters_);
  if (state_.thread_index() == 0) bench_internal::ResetRun(*(*config));
}

Measure::~Measure() {
  // A loop left early (after SkipWithError): stop without reporting.
  if (bench_internal::t_active == this) {
    bench_internal::StopInterval(*counters_);
    bench_internal::t_active = nullptr;
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
    bench_internal::StartInterval(*counters_);
  }
  return Iterator(this, n);
}

void Measure::Finish() {
  if (finished_) return;
  finished_ = true;
  if (counters_ != nullptr) {
    bench_internal::StopInterval(*counters_);
    bench_internal::t_active = nullptr;
    bench_internal::PublishBatch(*counters_);
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
  if (counters_ != nullptr) bench_internal::StopInterval(*counters_);
}

void Measure::Resume() {
  if (counters_ != nullptr) bench_internal::StartInterval(*counters_);
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
