// compare.h: `perfcounters compare` without the command line: pairing the
// benchmarks of two Google Benchmark JSON files, per-metric statistics
// (median, change in %, Mann-Whitney U p-value, geometric-mean summary) and
// CI gates (`IPC<-2%`, `instructions>+0.5%`, `cpu_time>1.5ms`, ...).
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
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compare_profile.h"
#include "gbench_json.h"
#include "name_filter.h"
#include "perfcounters/metrics.h"
#include "perfcounters/unavailable_context.h"

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

// How a p-value was computed.
enum class PMethod { kNone, kExact, kNormal };

// Two-sided Mann-Whitney U test. Exact distribution when there are no ties
// and the smaller sample has at most 8 values (SciPy's method="auto");
// otherwise the normal approximation with tie correction and continuity
// correction. Needs >= 1 value on each side; returns p in [0, 1].
struct MannWhitneyResult {
  double u = 0;  // U statistic of the first sample
  double p = 1;
  PMethod method = PMethod::kNone;
};
MannWhitneyResult MannWhitneyU(const std::vector<double>& a,
                               const std::vector<double>& b);

// Median of `values` (non-empty); the mean of the middle two for even sizes.
double Median(std::vector<double> values);

// One side of one metric of one benchmark.
struct SideStats {
  // The metric appears in at least one entry of this benchmark.
  bool present = false;
  // Counted samples (repetitions, or 1 for an aggregate-only file).
  std::vector<double> samples;
  // Samples marked not counted.
  size_t not_counted = 0;
  // Median of `samples`; empty when none was counted.
  std::optional<double> median;
  // True when the value comes from an aggregate entry (median or mean),
  // because the file has no per-repetition entries for this benchmark.
  bool from_aggregate = false;
  // The lowest multiplexing coverage ("<label>.coverage"; a derived
  // metric: of its inputs) of the counted samples; empty when every one
  // was on the PMU the whole time (or the metric is a time).
  std::optional<double> coverage;
  // The fewest multiplexing intervals a counted sample's batch spanned
  // ("<label>.mux_intervals", written by benchmark_ext when fewer than
  // kFewMuxIntervals; a derived metric: of its inputs); empty when none
  // says so.
  std::optional<double> mux_intervals;
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
enum class Evidence {
  kNone,       // no change (a median is missing)
  kOneSample,  // a side has one counted sample: no test is possible
  kExact,      // both sides' repetitions agree within kExactSpread
  kUTest,      // the Mann-Whitney U test
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
  std::optional<double> change_pct;
  // When both sides have >= 2 counted samples.
  std::optional<double> p_value;
  PMethod p_method = PMethod::kNone;
  Evidence evidence = Evidence::kNone;
};

// Whether the change of `m` is more than noise at level `alpha`: kUTest:
// p < alpha; kExact: the two sides' ranges do not overlap; kOneSample: true
// (nothing to test: the verdict rests on one sample each); kNone: false.
bool Significant(const MetricComparison& m, double alpha);

// The smallest two-sided p the U test can give with n1 and n2 distinct
// values (2 / C(n1 + n2, n1)): 0.1 for 3 vs 3, 0.029 for 4 vs 4, 0.0079
// for 5 vs 5. With fewer than 4 repetitions a side it is >= 0.05.
double MinimumP(size_t n1, size_t n2);

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
// positive median on both sides.
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
  // The files' reasons for counters that were not counted (UnavailableOf).
  std::vector<UnavailableGroup> base_unavailable;
  std::vector<UnavailableGroup> next_unavailable;
  std::vector<BenchmarkComparison> benchmarks;
  std::vector<GeomeanSummary> geomean;
  // The profiles' share changes (compare_profile.h).
  ProfileComparison profiles;
};

// Options for Compare().
struct CompareOptions {
  // Only benchmarks whose name the filter matches are compared.
  std::optional<NameFilter> filter;
};

// Pairs the benchmarks of `base` and `next` by run_name (order: base's
// order, then benchmarks only in next) and compares every metric.
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

// ---- Gates.

// A CI gate: the condition that FAILS the run.
//   [FILTER:]METRIC OP VALUE
// OP is <, <=, > or >=. VALUE ending in % is a change relative to base
// (IPC<-2%: IPC dropped more than 2%); otherwise it is an absolute limit on
// the new median (cpu_time>1.5ms, IPC<1.2), with a unit (ns, us, ms, s)
// required for real_time/cpu_time. FILTER is a regular expression searched
// in benchmark names (like --benchmark_filter), `=NAME` for exactly the
// benchmark NAME (no regular expression: templates, brackets, + and * as
// written), or `@geomean` for the geometric-mean summary (relative gates
// only). The comparison is the last < or > of the text, so FILTER may
// contain < and > (BM_f<std::vector<int>>/8:IPC<-2%).
struct Gate {
  std::string text;
  std::string filter_text;
  std::optional<NameFilter> filter;
  // For FILTER `=NAME`: NAME.
  std::optional<std::string> exact_name;
  bool geomean = false;
  std::string metric;
  enum class Op { kLess, kLessEqual, kGreater, kGreaterEqual } op = Op::kLess;
  bool relative = false;
  // Percent for relative gates; for absolute gates in the metric's unit
  // (nanoseconds for times).
  double threshold = 0;

  // True when `value` satisfies the failure condition.
  bool Violated(double value) const;
  // Whether the gate applies to benchmark `name`.
  bool Applies(absl::string_view name) const;
};

// Parses a gate. `known_metrics` are the metric names of the comparison:
// the metric must be one of them; since counter names may contain ':'
// (cycles:u), FILTER ends at the first ':' after which a known metric name
// follows. An unknown metric is an error listing the known ones (and
// naming IPC:u when IPC was asked for and only IPC:u exists).
absl::StatusOr<Gate> ParseGate(absl::string_view text,
                               const std::vector<std::string>& known_metrics);

// A benchmark (or the geomean) whose change or value met a gate's
// condition.
struct GateViolation {
  std::string benchmark;  // "@geomean" for the summary
  std::string metric;
  // The value compared with the threshold (a change in % or a median).
  double value = 0;
  // What the change rests on (kNone for absolute and @geomean gates).
  Evidence evidence = Evidence::kNone;
  std::optional<double> p;
  // Smallest p these sample sizes allow (kUTest only).
  double min_p = 0;
  // A compared side's value is Flagged(): an estimate.
  bool estimated = false;
};

// A benchmark a gate applies to but could not be checked on, and why.
struct GateSkip {
  std::string benchmark;
  std::string reason;
};

// How a gate ended; the exit status follows from these (ExitCode()).
enum class GateStatus {
  kPassed,     // checked >= 1 pair, nothing violated
  kFailed,     // violated (exit 1)
  kMissing,    // not evaluated somewhere and --fail-on-missing (exit 1)
  kUnchecked,  // checked nothing (exit 2, unless allowed)
  kNoMatch,    // its FILTER matches no benchmark (exit 2)
};

// What one gate found.
struct GateResult {
  std::string gate;
  std::string metric;
  bool relative = false;
  // Benchmarks the gate's filter matched (in either file).
  size_t matched = 0;
  // (benchmark, metric) pairs with a value to compare.
  size_t checked = 0;
  std::vector<GateViolation> violations;
  // Changes beyond the threshold that were not significant (p >= alpha, or
  // overlapping exact ranges): they do not fail the run.
  std::vector<GateViolation> not_significant;
  std::vector<GateSkip> not_evaluated;
  // Checked pairs whose verdict rests on one sample a side.
  size_t one_sample = 0;
  // Checked pairs whose compared value (either side for a relative gate,
  // the new one for an absolute gate) is Flagged(): an estimate.
  size_t estimated = 0;
  GateStatus status = GateStatus::kPassed;
  // For kUnchecked/kNoMatch: why, with the metrics the data has; for an
  // allowed unchecked gate, that it was allowed.
  std::string message;
};

// How gates are evaluated.
struct GateOptions {
  // A relative gate with repetitions trips only when the change is
  // Significant() at this level.
  double alpha = 0.05;
  // A gate not evaluated on some benchmark fails the run.
  bool fail_on_missing = false;
  // A gate that checked nothing passes (with a note) instead of exit 2.
  bool allow_unchecked = false;
};

// Evaluates every gate on every benchmark it applies to and sets each
// result's status.
std::vector<GateResult> EvaluateGates(const Comparison& comparison,
                                      const std::vector<Gate>& gates,
                                      const GateOptions& options = {});

// The exit status the gate results mean: 2 when a gate checked nothing (not
// allowed) or matched no benchmark, else 1 when one failed, else 0.
int ExitCode(const std::vector<GateResult>& results);

// The short name of a status: passed, FAILED, ...
const char* StatusName(GateStatus status);

// ---- Output.

// Output formats of `perfcounters compare`.
enum class Format { kTable, kMarkdown, kJson };

// GitHub's limit on a comment's length.
inline constexpr size_t kMarkdownLimit = 65536;

// How Render() writes.
struct RenderOptions {
  Format format = Format::kTable;
  // ANSI colours (kTable only).
  bool color = false;
  // Table and markdown: only rows whose change is Significant() and at
  // least 1 % (or violates a gate).
  bool only_changed = false;
  // Table and markdown: at most this many benchmark rows (0: no limit);
  // what is left out is counted.
  size_t max_rows = 0;
  // Markdown: at most this many characters (rows that do not fit are left
  // out and counted).
  size_t max_chars = kMarkdownLimit - 1536;
  // Significance level (what "changed" means, shown in notes).
  double alpha = 0.05;
  // Input warnings (shown in the JSON and markdown).
  std::vector<std::string> warnings;
};

// Renders the comparison and the gate results; the verdict it states is
// ExitCode(gates).
std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates,
                   const RenderOptions& options);
// The same with default options.
std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates, Format format,
                   bool color);

// ---- Shared by `compare` and `report`.

// Parses gate texts against the metrics of `comparison` (ParseGate) and
// evaluates them (EvaluateGates); nullopt after printing a bad gate's error
// as "perfcounters COMMAND: ...".
std::optional<std::vector<GateResult>> RunGates(
    const char* command, const std::vector<std::string>& texts,
    const Comparison& comparison, const GateOptions& options);

// Writes `text` to `path` (WriteOutputFile: "-" is standard output, never
// over one of `inputs`); false after printing why not as
// "perfcounters COMMAND: ...".
bool WriteOutput(const char* command, const std::string& path,
                 const std::string& text,
                 const std::vector<std::string>& inputs);

// Prints `file`'s warnings to stderr as "perfcounters COMMAND: warning:".
void PrintWarnings(const char* command, const BenchmarkFile& file);

// `file`'s warnings, each prefixed with its source.
std::vector<std::string> WarningLines(const BenchmarkFile& file);

// Prints to stderr why each gate that is neither passed nor failed is so.
void PrintGateErrors(const char* command,
                     const std::vector<GateResult>& results);

// "+1.23%", "+inf%", or "n/a" without a change.
std::string FormatChange(const std::optional<double>& change);

// The p column: the U test's p ("0.008", "<0.001"), "exact" for exact
// counters, "n=1" where a side has one sample, "" without a change.
std::string FormatP(const MetricComparison& m);

// A change that matters: Significant() and at least 1 % (0.1 % for exact
// counters).
bool Changed(const MetricComparison& m, double alpha);

// +1 when the change is a regression, -1 an improvement, 0 when the
// metric's better direction is unknown or there is no change.
int ChangeDirection(const MetricComparison& m);

// Whether a metric's values are times in nanoseconds: real_time, cpu_time,
// task-clock and cpu-clock (any modifiers).
bool IsTimeValued(absl::string_view metric);

// Formats a value of `metric` for people: times with a unit (1.23 us),
// counts with 4 significant digits and SI suffix (12.35M), IPC and ratios
// with 3 decimals.
std::string FormatValue(absl::string_view metric, double value);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_H_
