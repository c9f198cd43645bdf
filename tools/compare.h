// compare.h: `perfcounters compare` without the command line: pairing the
// benchmarks of two Google Benchmark JSON files and per-metric comparison
// (median, change in %, Mann-Whitney U p-value: statistics.h,
// geometric-mean summary). Gates on a comparison: compare_gates.h; its
// output: compare_output.h.
//
// Metrics are real_time and cpu_time (nanoseconds, whatever time_unit the
// files use), every counter found in either file, and every metric of the
// core library's table (metrics.h: IPC, cpi, branch-miss-rate, ...),
// derived per repetition from its two inputs when both are counters of the
// files with the same modifiers (IPC:u = instructions:u / cycles:u), unless
// the files already carry it. A metric that is absent or not counted on
// one side has no median there and no change: it is reported as such, never
// as 0.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_H_
#define PERFCOUNTERS_TOOLS_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compare_profile.h"
#include "gbench_json.h"
#include "maybe_double.h"
#include "name_filter.h"
#include "perfcounters/internal/unavailable_context.h"
#include "perfcounters/metrics.h"
#include "sample_list.h"
#include "statistics.h"

namespace perfcounters::tools {

// A metric of the table (metrics.h) as compare names it, with its
// modifiers: "IPC:u" -> ipc, "u"; "branch-miss-rate" -> branch-miss-rate,
// "" (case-insensitive). `metric` is null for other names.
struct TableMetric {
  const Metric* metric = nullptr;
  std::string modifiers;
};
TableMetric FindTableMetric(absl::string_view name);

// The name compare reports a table metric under: the table's with the
// inputs' modifiers ("cpi:u"), except ipc, which is "IPC" ("IPC:u") as
// Google Benchmark's users write it.
std::string CompareMetricName(const Metric& metric,
                              absl::string_view modifiers);

// Whether a larger value of a metric is an improvement.
enum class Better { kLower, kHigher, kUnknown };

// Direction of a metric by name: the table's metrics by the table
// (higher_is_better: IPC, retiring); times, cycles, instructions, misses,
// faults are better lower; *_per_second better higher.
Better BetterDirection(absl::string_view metric);

// Whether a metric's values are times in nanoseconds: real_time, cpu_time,
// task-clock and cpu-clock (any modifiers). The output shows them with a
// unit, and their absolute gates need one.
bool IsTimeValued(absl::string_view metric);

// One side of one metric of one benchmark.
struct SideStats {
  // Counted samples (repetitions, or 1 for an aggregate-only file).
  SampleList samples;
  // Median of `samples`; empty when none was counted.
  MaybeDouble median;
  // The lowest multiplexing coverage ("<label>.coverage"; a derived
  // metric: of its inputs) of the counted samples; empty when every one
  // was on the PMU the whole time (or the metric is a time).
  MaybeDouble coverage;
  // The fewest multiplexing intervals a counted sample's batch spanned
  // ("<label>.mux_intervals", written by benchmark_ext when fewer than
  // kFewMuxIntervals; a derived metric: of its inputs); empty when none
  // says so.
  MaybeDouble mux_intervals;
  // (The count and flags last: a comparison holds many of these, without
  // padding.)
  // Samples marked not counted.
  uint32_t not_counted = 0;
  // The metric appears in at least one entry of this benchmark.
  bool present = false;
  // True when the value comes from an aggregate entry (median or mean),
  // because the file has no per-repetition entries for this benchmark.
  bool from_aggregate = false;
};

// A counted value whose coverage is below this was multiplexed: scaled
// from part of the batch, an estimate (off by several % when the batch
// spans few rotations, docs/counters.md), not a count to trust as exact.
inline constexpr double kTrustedCoverage = 1.0;

// Whether `coverage` (empty: on the PMU the whole time) is below
// kTrustedCoverage.
bool Estimated(const std::optional<double>& coverage);

// "multiplexed: on the PMU 40.0% of the batch, an estimate", or "" when
// !Estimated(coverage).
std::string CoverageNote(const std::optional<double>& coverage);

// The lower of two coverages (empty: full), or the fewer of two interval
// counts (empty: not few).
std::optional<double> LowerCoverage(const std::optional<double>& a,
                                    const std::optional<double>& b);

// Whether a side's median is an estimate to flag: multiplexed
// (Estimated(coverage)), or multiplexed over fewer than kFewMuxIntervals
// rotations (counters.h, the limit benchmark_ext writes mux_intervals
// under).
bool Flagged(const SideStats& side);

// CoverageNote(side.coverage), with the rotations when there were few:
// "multiplexed: on the PMU 40.0% of the batch, over 3.2 multiplexing
// intervals (fewer than 25): a rough estimate"; "" when !Flagged(side).
std::string FlagNote(const SideStats& side);

// The marker the table and markdown put before a Flagged() value ("~",
// about), and the legend line that explains it.
inline constexpr char kEstimateMarker[] = "~";
std::string EstimateLegend();

// What a change of one metric rests on (see Significant()).
enum class Evidence : uint8_t {
  kNone,       // no change (a median is missing)
  kOneSample,  // a side has one counted sample: no test is possible
  kExact,      // both sides' repetitions agree within kExactSpread, or
               // simulated exact counts (ExactSimulatedCount()), which
               // one run a side decides
  kUTest,      // the Mann-Whitney U test
  kPaired,     // `perfcounters ab`'s rounds: the sign test on the paired
               // log-ratios (paired_stats.h)
};

// Relative range (max - min) / |median| up to which a side's repetitions
// count as exact: an exact counter (instructions of a deterministic loop)
// varies by far less, a time by far more.
inline constexpr double kExactSpread = 1e-4;

// One metric of one benchmark, both sides.
struct MetricComparison {
  std::string metric;
  SideStats base;
  SideStats next;
  // (next - base) / base * 100; +-infinity when base is 0 and next is not;
  // empty when either median is missing.
  MaybeDouble change_pct;
  // When both sides have >= 2 counted samples.
  MaybeDouble p_value;
  // kPaired: the 95 % sign-test interval of new/base (a ratio), [low,
  // high], when the rounds are enough for one (6); else both empty.
  MaybeDouble paired_low;
  MaybeDouble paired_high;
  PMethod p_method = PMethod::kNone;
  Evidence evidence = Evidence::kNone;
  // The change is common-mode drift (drift.h): most benchmarks' times
  // moved alike while their code did not; ChangeDirection() calls it
  // neither an improvement nor a regression.
  bool common_mode = false;
};

// Whether the change of `m` is more than noise at level `alpha`: kUTest
// and kPaired: p < alpha; kExact: the two sides' ranges do not overlap;
// kOneSample: true (nothing to test: the verdict rests on one sample each);
// kNone: false.
bool Significant(const MetricComparison& m, double alpha);

// Which files a benchmark was found in.
enum class Pairing { kBoth, kBaseOnly, kNewOnly };

// One benchmark (one run_name).
struct BenchmarkComparison {
  std::string name;
  Pairing pairing = Pairing::kBoth;
  // Why a side has no usable data (error_occurred / skipped messages).
  std::string base_problem;
  std::string next_problem;
  std::vector<MetricComparison> metrics;
};

// Geometric mean of next/base over the benchmarks where a metric has a
// positive median on both sides; for a change paired by round
// (Evidence::kPaired, ab's files) the factor is the row's paired change,
// so that the mean of one benchmark is its row's change.
struct GeomeanSummary {
  std::string metric;
  size_t benchmarks = 0;
  double change_pct = 0;
};

// The geometric-mean summaries of `benchmarks` (those found on both sides),
// metrics in order of first appearance.
std::vector<GeomeanSummary> Geomeans(
    const std::vector<BenchmarkComparison>& benchmarks);

// A file's `perfcounters.unavailable` context entry (why events were not
// counted), read with the core's ParseUnavailableContext.
std::vector<UnavailableGroup> UnavailableOf(const BenchmarkFile& file);

// Why `metric` was not counted according to `unavailable`: "a, b: reason"
// for each reason that names it (a derived metric of the table takes its
// inputs' reasons), joined by "; "; empty when none does.
std::string NotCountedReason(const std::vector<UnavailableGroup>& unavailable,
                             absl::string_view metric);

// The result of comparing two files.
struct Comparison {
  std::string base_source;
  std::string next_source;
  // Whether the values were counted by the simulator (both sides: compare
  // refuses mixed sources, counting_source.h), and what its context says
  // (perfcounters.source); every metric is labelled by KindOfValue().
  bool simulated = false;
  std::string source_description;
  // The files' reasons for counters that were not counted (UnavailableOf).
  std::vector<UnavailableGroup> base_unavailable;
  std::vector<UnavailableGroup> next_unavailable;
  std::vector<BenchmarkComparison> benchmarks;
  std::vector<GeomeanSummary> geomean;
  // The profiles' share changes (compare_profile.h).
  ProfileComparison profiles;
  // Benchmarks whose rows are only gbench's complexity fit (aggregates
  // "BigO" and "RMS" of a family run with ->Complexity()): no run, so
  // neither compared nor gated; said so.
  std::vector<std::string> complexity;
};

// Options for Compare().
struct CompareOptions {
  // Only benchmarks whose name the filter matches are compared.
  std::optional<NameFilter> filter;
};

// Pairs the benchmarks of `base` and `next` by run_name (order: base's
// order, then benchmarks only in next) and compares every metric. When
// both files are the two sides of one `perfcounters ab` run (the same
// context "perfcounters.ab.id"), a metric counted in every round on both
// sides is compared by round: its change is the median of the paired
// ratios new/base and its p the sign test's on their logs (kPaired), which
// the gates then use.
Comparison Compare(const BenchmarkFile& base, const BenchmarkFile& next,
                   const CompareOptions& options = {});

// The metrics of one benchmark of one file (what Compare() uses per side).
struct BenchmarkMetrics {
  std::string name;
  // Why there is no data (error_occurred / skipped), if so.
  std::string problem;
  std::vector<std::pair<std::string, SideStats>> metrics;
};

// Every benchmark of `file` (file order) with its metrics.
std::vector<BenchmarkMetrics> Summarize(const BenchmarkFile& file);

// Every metric name found in a comparison (for gate validation):
// real_time, cpu_time, then the metrics of the files in order of first
// appearance.
std::vector<std::string> MetricNames(const Comparison& comparison);

// The metrics that have a median on both sides for at least one benchmark
// (what a relative gate can check).
std::vector<std::string> MeasuredMetrics(const Comparison& comparison);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_H_
