// rows.cc: counters for the rows Measure did not fill (see rows.h).
#include "rows.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "extra_run_counting.h"
#include "measure_internal.h"
#include "perfcounters/counters.h"
#include "registry.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

// gbench 1.8 brought State::SkipWithMessage and, with it, durations for
// --benchmark_min_time ("0.2s"); 1.7 takes a plain double.
template <typename S, typename = void>
struct HasSkipWithMessage : std::false_type {};
template <typename S>
struct HasSkipWithMessage<
    S, std::void_t<decltype(std::declval<S&>().SkipWithMessage(""))>>
    : std::true_type {};

std::string RowKey(const RowFiller::Run& run) {
  return absl::StrCat(run.benchmark_name(), "\n", run.repetition_index, "\n",
                      static_cast<int>(run.run_type));
}

// Measure filled the row (or gbench computed its aggregate from such rows):
// it has one of the counted events, or the mark of one that was not
// counted — also when no requested event could be opened at all (every
// event unavailable, `keys` empty).
bool Own(const Config& config, const RowFiller::Run& run) {
  for (const std::string& key : config.keys) {
    if (run.counters.count(key) > 0 ||
        run.counters.count(key + ".not_counted") > 0) {
      return true;
    }
  }
  for (const Unavailable& u : config.plan.unavailable) {
    if (run.counters.count(u.key + ".not_counted") > 0) return true;
  }
  return false;
}

// The marks of a row that nothing could count: every requested event is
// unavailable on this machine (said once, before the benchmarks).
std::map<std::string, benchmark::Counter> AllUnavailable(const Config& config) {
  std::map<std::string, benchmark::Counter> c;
  for (const Unavailable& u : config.plan.unavailable) {
    c[u.key + ".not_counted"] = benchmark::Counter(1);
  }
  return c;
}

double Statistic(const std::string& name, std::vector<double> v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  if (name == "mean") return mean;
  if (name == "median") {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  double squares = 0;
  for (double x : v) squares += (x - mean) * (x - mean);
  const double stddev =
      v.size() < 2 ? 0 : std::sqrt(squares / static_cast<double>(v.size() - 1));
  if (name == "stddev") return stddev;
  return mean == 0 ? 0 : stddev / mean;  // cv
}

const char kNoExtraRun[] =
    "not counted: it does not use perfcounters::Measure, and this Google "
    "Benchmark (older than 1.9) has no ProfilerManager, through which "
    "perfcounters counts unmodified benchmarks; write its loop as `for "
    "(auto _ : perfcounters::Measure(state))` (docs/benchmark_ext.md has a "
    "sed for a whole suite), or build against Google Benchmark 1.9 or "
    "newer";

// gbench's cv of a counter whose mean is 0 is 0/0, shown as -nan% (and a
// bare NaN in its JSON): our counters' cv becomes 0 where the values did
// not vary (the stddev row says 0), else it has no value.
void FixZeroMeanCv(const Config& config, std::vector<RowFiller::Run>* runs) {
  std::set<std::string> ours(config.keys.begin(), config.keys.end());
  for (const DerivedMetric& m : config.plan.derived) ours.insert(m.name);
  for (RowFiller::Run& cv : *runs) {
    if (cv.run_type != RowFiller::Run::RT_Aggregate ||
        cv.aggregate_name != "cv") {
      continue;
    }
    const RowFiller::Run* stddev = nullptr;
    for (const RowFiller::Run& r : *runs) {
      if (r.run_type == RowFiller::Run::RT_Aggregate &&
          r.aggregate_name == "stddev" &&
          r.run_name.str() == cv.run_name.str()) {
        stddev = &r;
      }
    }
    for (auto it = cv.counters.begin(); it != cv.counters.end();) {
      const std::string& key = it->first;
      if (std::isfinite(it->second.value) ||
          ours.count(std::string(absl::StripSuffix(key, ".coverage"))) == 0) {
        ++it;
        continue;
      }
      bool steady = false;
      if (stddev != nullptr) {
        const auto sd = stddev->counters.find(key);
        steady = sd != stddev->counters.end() && sd->second.value == 0;
      }
      if (steady) {
        it->second.value = 0;
        ++it;
      } else {
        it = cv.counters.erase(it);
      }
    }
  }
}

}  // namespace

std::string RepetitionsNote(const std::vector<int64_t>& repetitions,
                            int64_t total) {
  if (total <= 1 || repetitions.empty()) return "";
  return absl::StrCat(" [",
                      repetitions.size() == 1 ? "repetition " : "repetitions ",
                      absl::StrJoin(repetitions, ", "), " of ", total, "]");
}

std::string MinTimeFlag(double seconds) {
  return absl::StrCat("--benchmark_min_time=", absl::SixDigits(seconds),
                      HasSkipWithMessage<benchmark::State>::value ? "s" : "");
}

void RowFiller::Warn(const std::string& key, std::string line,
                     std::vector<std::string>* warnings) {
  if (Registry::Get().FirstTime(absl::StrCat("row\n", key))) {
    warnings->push_back(std::move(line));
  }
}

void RowFiller::Note(const std::string& key, const Run& run, std::string text) {
  for (Noted& n : notes_) {
    if (n.key == key) {
      n.repetitions.push_back(run.repetition_index);
      return;
    }
  }
  notes_.push_back(
      Noted{key, std::move(text), {run.repetition_index}, run.repetitions});
}

void RowFiller::CheckPaused(const Run& run, const ExtraRunResult& extra) {
  if (!extra.counted_cpu_s.has_value()) return;
  // gbench's timed CPU time is the sum over the run's threads, each of
  // which ran the iterations the extra run ran on one.
  const double threads = std::max<double>(run.threads, 1);
  const double timed = run.cpu_accumulated_time / threads;
  if (!TimerWasPaused(*extra.counted_cpu_s, timed, kExtraRunPausedTimerRatio)) {
    return;
  }
  const std::string name = run.run_name.str();
  Note(name + "\npaused", run,
       absl::StrCat(
           name, ": in gbench's extra run the counters ran for ",
           absl::SixDigits(*extra.counted_cpu_s * 1e3),
           " ms of CPU time where gbench timed ", absl::SixDigits(timed * 1e3),
           " ms", run.threads > 1 ? " per thread" : "",
           " for the same iterations: the benchmark probably pauses gbench's "
           "timer with state.PauseTiming(), and the extra run counts the "
           "paused regions (its values include them); use "
           "perfcounters::Measure with perfcounters::PauseTiming(state) and "
           "perfcounters::ResumeTiming(state) to leave them out"));
}

RowFiller::Counters RowFiller::NotCounted(const Run& run,
                                          const std::string& why) {
  const std::shared_ptr<const Config> config = *CurrentConfig();
  Counters c;
  for (const std::string& key : config->keys) {
    c[key + ".not_counted"] = benchmark::Counter(1);
  }
  for (const Unavailable& u : config->plan.unavailable) {
    c[u.key + ".not_counted"] = benchmark::Counter(1);
  }
  Registry::Get().MarkNotCounted();
  // One line per reason at the end of the run, naming every benchmark.
  const std::string name = run.run_name.str();
  const std::string what =
      absl::StrCat(absl::StrJoin(config->keys, ", "), ": ", why,
                   " (JSON/CSV: <name>.not_counted=1)");
  for (Grouped& g : grouped_) {
    if (g.what != what) continue;
    if (std::find(g.names.begin(), g.names.end(), name) == g.names.end()) {
      g.names.push_back(name);
    }
    return c;
  }
  grouped_.push_back(Grouped{what, {name}});
  return c;
}

std::vector<std::string> RowFiller::TakeGroupedWarnings() {
  std::vector<std::string> lines;
  for (const Grouped& g : std::exchange(grouped_, {})) {
    lines.push_back(absl::StrCat(absl::StrJoin(g.names, ", "), ": ", g.what));
  }
  return lines;
}

RowFiller::Counters RowFiller::FromExtraRun(
    const Run& run, const ExtraRunResult& extra,
    std::vector<std::string>* warnings) {
  const std::shared_ptr<const Config> config = *CurrentConfig();
  const std::string name = run.run_name.str();
  const double threads = std::max<double>(run.threads, 1);
  const double iterations =
      std::max(1.0, static_cast<double>(run.iterations) / threads);
  Counters c;
  for (size_t i = 0; i < config->keys.size(); ++i) {
    const std::string& key = config->keys[i];
    if (i >= extra.values.size() || !extra.values[i].counted) {
      c[key + ".not_counted"] = benchmark::Counter(1);
      Registry::Get().MarkNotCounted();
      Warn(name + "\nnc\n" + key,
           absl::StrCat(name, ": ", key, ": not counted in gbench's extra run",
                        i < extra.values.size()
                            ? ": " + extra.values[i].not_counted_reason
                            : ""),
           warnings);
      continue;
    }
    const CounterValue& v = extra.values[i];
    c[key] =
        benchmark::Counter(v.value / iterations, benchmark::Counter::kDefaults,
                           benchmark::Counter::kIs1000);
    if (v.coverage < 1) c[key + ".coverage"] = benchmark::Counter(v.coverage);
    if (v.short_multiplexed()) {
      c[key + ".mux_intervals"] = benchmark::Counter(v.mux_intervals);
      Note(name + "\nmux\n" + key, run,
           absl::StrCat(name, ": ", ShortMuxWarning(v)));
    }
    if (v.below_noise()) {
      Note(name + "\nnoise\n" + key, run,
           absl::StrCat(name, ": ", key, " counted ", ReadableCount(v.value),
                        " in gbench's extra run, less than ",
                        ReadableCount(v.noise_limit),
                        ", the counting's own cost or 10x its noise: give "
                        "the benchmark more work per run"));
    }
  }
  for (const Unavailable& u : config->plan.unavailable) {
    c[u.key + ".not_counted"] = benchmark::Counter(1);
  }
  for (const MetricValue& m :
       ComputeMetrics(config->plan.derived, extra.values)) {
    if (m.counted) c[m.name] = benchmark::Counter(m.value);
  }
  // The simulator's cost-model estimates (never a measured cycles).
  if (extra.est_cycles.has_value()) {
    c["est_cycles"] = benchmark::Counter(*extra.est_cycles / iterations,
                                         benchmark::Counter::kDefaults,
                                         benchmark::Counter::kIs1000);
  }
  if (extra.est_ipc.has_value())
    c["est_ipc"] = benchmark::Counter(*extra.est_ipc);
  c["perfcounters.pass_threads"] = benchmark::Counter(1);
  ++extra_run_rows_[name];
  CheckPaused(run, extra);
  if (run.threads > 1) {
    Warn(name + "\nthreads",
         absl::StrCat(name,
                      ": counted in gbench's extra run on one thread "
                      "(the benchmark runs on ",
                      run.threads,
                      "): its values are one thread's per iteration; use "
                      "perfcounters::Measure to count every thread"),
         warnings);
  }
  return c;
}

RowFiller::Counters RowFiller::Aggregate(const Run& run) const {
  Counters c;
  auto it = repetitions_.find(run.run_name.str());
  if (it == repetitions_.end()) return c;
  std::set<std::string> names;
  for (const Counters& r : it->second) {
    for (const auto& [k, v] : r) names.insert(k);
  }
  for (const std::string& k : names) {
    if (absl::EndsWith(k, ".not_counted")) {
      c[k] = benchmark::Counter(1);
      continue;
    }
    if (names.count(k + ".not_counted") > 0) continue;
    if (k == "perfcounters.pass_threads") {
      c[k] = benchmark::Counter(1);
      continue;
    }
    std::vector<double> values;
    for (const Counters& r : it->second) {
      if (auto f = r.find(k); f != r.end()) values.push_back(f->second.value);
    }
    c[k] = benchmark::Counter(Statistic(run.aggregate_name, values));
  }
  return c;
}

void RowFiller::Fill(std::vector<Run>* runs,
                     std::vector<std::string>* warnings) {
  runs->erase(std::remove_if(runs->begin(), runs->end(),
                             [](const Run& r) {
                               return absl::StartsWith(
                                   r.benchmark_name(),
                                   kExtraRunCalibrationName);
                             }),
              runs->end());
  const absl::StatusOr<std::shared_ptr<const Config>> config = CurrentConfig();
  if (!config.ok() || *config == nullptr) return;
  for (ExtraRunResult& p : TakeExtraRunResults())
    pending_.push_back(std::move(p));
  for (Run& run : *runs) {
    const std::string key = RowKey(run);
    auto done = rows_.find(key);
    if (done == rows_.end()) {
      Counters c;
      if (run.run_type == Run::RT_Aggregate) {
        static const std::set<std::string> kStats = {"mean", "median", "stddev",
                                                     "cv"};
        if (!Own(**config, run) && kStats.count(run.aggregate_name) > 0) {
          c = Aggregate(run);
        }
      } else {
        bool have = !pending_.empty();
        ExtraRunResult extra;
        if (have) {
          extra = std::move(pending_.front());
          pending_.erase(pending_.begin());
        }
        if (!Own(**config, run) && !Skipped(run)) {
          if ((*config)->keys.empty()) {
            // Nothing requested can be counted here, Measure or not.
            c = AllUnavailable(**config);
            Registry::Get().MarkNotCounted();
          } else if (!ExtraRunCountingActive()) {
            c = NotCounted(run, kNoExtraRun);
          } else if (!have || extra.self_counted) {
            c = NotCounted(run,
                           "not counted: gbench's extra run (its "
                           "ProfilerManager) did not run its loop");
          } else if (!extra.not_counted.empty()) {
            c = NotCounted(run, "not counted: " + extra.not_counted);
          } else {
            c = FromExtraRun(run, extra, warnings);
          }
          repetitions_[run.run_name.str()].push_back(c);
        }
      }
      done = rows_.emplace(key, std::move(c)).first;
    }
    for (const auto& [k, v] : done->second) run.counters[k] = v;
  }
  FixZeroMeanCv(**config, runs);
  for (const Noted& n : notes_) {
    // A paused timer shows in every repetition; one run's CPU time alone
    // can be inflated by the machine.
    const size_t paused = n.key.rfind("\npaused");
    if (paused != std::string::npos && paused + 7 == n.key.size() &&
        n.repetitions.size() < extra_run_rows_[n.key.substr(0, paused)]) {
      continue;
    }
    Warn(n.key, n.text + RepetitionsNote(n.repetitions, n.total), warnings);
  }
  notes_.clear();
  extra_run_rows_.clear();
}

}  // namespace perfcounters::benchmark_ext_internal
