// history_changes.h: change points of a series, by one of two methods
// (ChangeMethod):
//
// kRobust (the default; changepoint_robust.h): a penalised segmentation of
// the series in units of its own robust noise scale, into levels and linear
// drifts: few false alarms, and a drift reported as one drift.
//
// kOtava: as Apache Otava 0.8 (ex Hunter; Fleming et al., "Hunter: Using
// Change Point Detection to Hunt for Performance Regressions", ICPE 2023)
// finds them with E-divisive means (Matteson & James 2014):
//  1. split: in sliding windows of `window` points (step window / 2), the
//     E-divisive detector: repeatedly the split (tau, kappa) of an interval
//     that maximizes the energy statistic Q-hat, kept while Student's
//     two-sample t-test of the two sides gives p <= 10 x max_p ("weak"
//     change points);
//  2. merge: each weak change point is re-tested with the whole segments
//     between its neighbours; the one with the largest p (or, when all pass,
//     the smallest relative change) is removed while p >= max_p or its
//     change <= min_magnitude, and its neighbours are re-tested.
// The t-test is Otava's: pooled variance of the two sides' population
// standard deviations, n1 + n2 - 2 degrees of freedom, two-sided
// (StudentTwoSidedP(), statistics.h).
#ifndef PERFCOUNTERS_TOOLS_HISTORY_CHANGES_H_
#define PERFCOUNTERS_TOOLS_HISTORY_CHANGES_H_

#include <cstddef>
#include <vector>

namespace perfcounters::tools {

enum class ChangeMethod { kRobust, kOtava };

// "robust" or "otava".
const char* ChangeMethodName(ChangeMethod method);

struct ChangePointOptions {
  ChangeMethod method = ChangeMethod::kRobust;
  // kOtava: Otava's defaults.
  size_t window = 50;
  double max_p = 0.001;
  // Both: the relative change (0.01 = 1 %) a change must exceed.
  double min_magnitude = 0.0;
  // kRobust: the smallest change, in noise standard deviations.
  double min_sigmas = 2.0;
};

// kEnvironment: a known boundary, not found by the method: the machine's
// environment (its fingerprint) changed between two runs, so a new level
// starts there whether or not the values moved; a shift there is the
// environment's, not the code's (FindChangePointsWithin()).
enum class ChangeKind { kStep, kDrift, kEnvironment };

// "step", "drift" or "environment".
const char* ChangeKindName(ChangeKind kind);

// A step (the level changed from one run to the next), a drift (the
// level moved steadily from run `index` to run `last_index`: mean_before
// and mean_after are its levels there), or a known boundary (kEnvironment:
// mean_before and mean_after are the levels on its two sides, p the t-test
// of those two levels).
struct ChangePoint {
  // The first point after the change; a drift's first point.
  size_t index = 0;
  double mean_before = 0;
  double mean_after = 0;
  double std_before = 0;
  double std_after = 0;
  double p = 1;
  ChangeKind kind = ChangeKind::kStep;
  // A drift's last point.
  size_t last_index = 0;
  // kRobust: the series' robust noise scale (standard deviation); 0: none.
  double sigma = 0;
  // (mean_after / mean_before - 1) * 100; 0 when mean_before is 0.
  double ChangePercent() const;
  // A drift's change per run, in % of mean_before.
  double SlopePercent() const;
};

// The change points of `series`, by index, by options.method.
std::vector<ChangePoint> FindChangePoints(
    const std::vector<double>& series, const ChangePointOptions& options = {});

// FindChangePoints() with known boundaries: `boundaries` (sorted indices
// 0 < i < size) start new segments; each segment is searched on its own
// (no change point of the method spans a boundary), and each boundary is a
// ChangeKind::kEnvironment point between the last level before it and the
// first level after it.
std::vector<ChangePoint> FindChangePointsWithin(
    const std::vector<double>& series, const std::vector<size_t>& boundaries,
    const ChangePointOptions& options = {});

// Otava's t-test of two samples (population standard deviations, pooled):
// the two-sided p; 1 when n1 + n2 < 3; 0 when both sides are constant and
// differ.
double TTestP(const double* left, size_t n1, const double* right, size_t n2);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_CHANGES_H_
