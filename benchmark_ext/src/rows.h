// rows.h: the counters of rows that Measure did not fill, written into the
// reported rows by the main's reporters (console.h), the display's and the
// --benchmark_out file's alike:
//
// * a benchmark counted in gbench's extra run (extra_run_counting.h): its
//   values per iteration, coverage, derived metrics and, in the repetition
//   aggregates (mean, median, stddev, cv), their statistics;
//   `perfcounters.pass_threads` = 1 says it was counted there, on one
//   thread;
// * a benchmark that was not counted at all (no Measure, and a gbench
//   without ProfilerManager, or the extra run could not count it): every
//   requested event `<key>.not_counted` = 1, and at the end of the run one
//   warning per reason naming every such benchmark, why, and the ways out
//   (none when no requested event can be opened on this machine at all:
//   the main said so before the benchmarks, and Measure could not count
//   them either).
//
// Rows Measure filled are left as they are. The calibration benchmark's
// rows are removed.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_ROWS_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_ROWS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "benchmark/benchmark.h"
#include "extra_run_counting.h"

namespace perfcounters::benchmark_ext_internal {

// " [repetition 3 of 5]" or " [repetitions 3, 17 of 100]": which
// repetitions a warning concerns; empty when there is one (`total` <= 1).
std::string RepetitionsNote(const std::vector<int64_t>& repetitions,
                            int64_t total);

// What --benchmark_min_time takes for `seconds` in the linked gbench:
// "0.2" in 1.7 (a double), "0.2s" from 1.8 (a duration or "<N>x").
std::string MinTimeFlag(double seconds);

// Whether gbench skipped the run (an error or a message): `skipped` from
// gbench 1.8, `error_occurred` before.
template <typename R>
auto SkippedRun(const R& run, int) -> decltype(run.skipped != 0) {
  return run.skipped != 0;
}
template <typename R>
bool SkippedRun(const R& run, long) {  // NOLINT(runtime/int)
  return run.error_occurred;
}
inline bool Skipped(const benchmark::BenchmarkReporter::Run& run) {
  return SkippedRun(run, 0);
}

class RowFiller {
 public:
  using Run = benchmark::BenchmarkReporter::Run;

  // Fills `runs` (one ReportRuns call's: a benchmark's repetitions) in
  // place. The first reporter to see a row decides its counters; the others
  // get the same. Warnings (lines without the "perfcounters: warning: "
  // prefix) are appended to `warnings` once per benchmark and reason; those
  // about a repetition's values (multiplexed over too few rotations, below
  // the counting's noise, gbench's timer paused in the extra run) name the
  // repetitions they concern.
  void Fill(std::vector<Run>* runs, std::vector<std::string>* warnings);

  // The warnings about benchmarks that were not counted at all, one line
  // per reason naming every such benchmark (lines without the prefix);
  // forgets them. For the end of the run.
  std::vector<std::string> TakeGroupedWarnings();

 private:
  using Counters = std::map<std::string, benchmark::Counter>;
  Counters FromExtraRun(const Run& run, const ExtraRunResult& extra,
                        std::vector<std::string>* warnings);
  Counters NotCounted(const Run& run, const std::string& why);
  // A repetition's warning `text` of kind `key`, printed by Fill() once
  // with every repetition of the call that had it.
  void Note(const std::string& key, const Run& run, std::string text);
  // The warning when the extra run counted CPU time that gbench did not time.
  void CheckPaused(const Run& run, const ExtraRunResult& extra);
  Counters Aggregate(const Run& run) const;
  void Warn(const std::string& key, std::string line,
            std::vector<std::string>* warnings);

  // Per row (run name, repetition, aggregate name): what was written.
  absl::flat_hash_map<std::string, Counters> rows_;
  // Per run name: the iteration rows' counters, for the aggregates.
  absl::flat_hash_map<std::string, std::vector<Counters>> repetitions_;
  std::vector<ExtraRunResult> pending_;
  struct Noted {
    std::string key;
    std::string text;
    std::vector<int64_t> repetitions;
    int64_t total = 1;
  };
  std::vector<Noted> notes_;  // this Fill() call's, in order
  // Rows not counted at all, per reason (the events and why), in order.
  struct Grouped {
    std::string what;
    std::vector<std::string> names;
  };
  std::vector<Grouped> grouped_;
  // This Fill() call's rows counted by the extra run, per run name.
  absl::flat_hash_map<std::string, size_t> extra_run_rows_;
};

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_ROWS_H_
