// console.h: what a person sees on the console of a benchmark with
// counters — the internals of perfcounters' main (benchmark_main.cc) and
// Measure (run_record.cc) for presentation only. The JSON and CSV outputs
// (files, or
// --benchmark_format=json|csv) are never changed here: they keep every key.
//
// * Warnings about counters that are not counted: one line per distinct
//   reason, naming every event it applies to (`WarnNotCounted`,
//   `DescribeUnavailable` in measure_internal.h).
// * `DisplayReporter`: wraps gbench's display reporter; when that is the
//   console reporter it shows, unless --perf_counters_verbose, only the
//   events and the read path of perfcounters' context lines, no
//   `<name>.not_counted` columns, `<name>.coverage` only below 100 %, and
//   our counters rounded to what is worth reading (`TidyForConsole`).
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_CONSOLE_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_CONSOLE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/internal/unavailable_context.h"
#include "perfcounters/plan.h"
#include "registry.h"
#include "rows.h"

namespace perfcounters::benchmark_ext_internal {

// Events that share one reason for not being counted.
using ReasonLine = UnavailableGroup;

// The plan's unavailable events grouped by reason, in request order. Each
// reason loses the event's own name in front ("cycles: ...") and group
// bookkeeping that says nothing ("[member 1 of 1 in group {cycles}]").
// With `caps`, an event missing because the machine has no hardware PMU at
// all gets a short reason that says so (the console's); without, the
// kernel's and the probe's full reason stays (the JSON context's).
std::vector<ReasonLine> GroupUnavailable(const Plan& plan,
                                         const Capabilities* caps);

// An event list echoed in a message: whole up to 100 bytes, else its start
// and end around "...(N bytes)...", so that no list makes a long message.
std::string ShortForMessage(absl::string_view list);

// The `perfcounters.unavailable` context value: "a, b: reason; c: reason".
std::string UnavailableContext(const Plan& plan);

// Prints "perfcounters: warning: a, b: <what>" to stderr for those of
// `keys` not warned about with the same `what` before in this process (one
// line, or none). Thread-safe. The channel for every warning that names
// counters, so that they stay one line per reason.
void WarnNotCounted(const std::vector<std::string>& keys,
                    absl::string_view what);

// Whether a `perfcounters.*` context line (its key) appears on the console.
bool ShowContextOnConsole(absl::string_view key, bool verbose);

// Rounds `value` to `digits` significant digits (for display).
double RoundSignificant(double value, int digits);

// A count in a message: whole digits from 100000 up (16051234, not
// 1.60512e+07), 6 significant digits below (841, 0.25).
std::string ReadableCount(double value);

// Rewrites one run for the console table: drops `<key>.not_counted` of the
// plan's keys and `<key>.coverage` that reads as 100 %, and rounds the
// plan's counters (4 significant digits; coverage and derived metrics 3).
// Other counters are left alone.
void TidyForConsole(const Plan& plan, benchmark::BenchmarkReporter::Run* run);

// gbench's display reporter, tidied for the console as above when it is a
// benchmark::ConsoleReporter (left as it is for JSON and CSV; a CSV
// reporter gets every run at once when the runs end, see `csv_`), followed
// after each benchmark's runs by the warnings about batches too small for
// the measurement's own noise and about counters that ran while gbench's
// timer was paused, named after the benchmark (once per benchmark and
// counter).
class DisplayReporter : public benchmark::BenchmarkReporter {
 public:
  // `rows` fills the rows Measure did not (shared with the file reporter);
  // `warn`: this reporter prints the warnings (the display's, not the
  // --benchmark_out file's).
  DisplayReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner,
                  bool verbose, RowFiller* rows, bool warn);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  // gbench's state.PauseTiming() does not stop the counters: the last
  // batch's counted CPU time against gbench's timed CPU time of the last
  // run (the same batch when the iterations agree).
  void WarnAboutPausedTimer(const std::vector<Run>& runs,
                            const std::optional<CountedTime>& counted);
  // Each repetition's warnings, once per benchmark, counter and kind, with
  // the repetitions they concern.
  void WarnAboutRepetitions(const std::vector<Run>& runs);
  // The wrapped reporter writes where gbench points this one.
  void ShareStreams();

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  const bool verbose_;
  const bool console_;
  // gbench's CSV reporter takes its columns from the first benchmark it is
  // given and aborts on a counter a later one adds ("All counters must be
  // present in each run"): a benchmark Measure counts after one it could
  // not (page-faults after page-faults.not_counted). So it is given every
  // run in Finalize, and its header has every benchmark's columns.
  const bool csv_;
  std::vector<Run> held_;
  RowFiller* const rows_;
  const bool warn_;
  absl::flat_hash_set<std::string> warned_;
};

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_CONSOLE_H_
