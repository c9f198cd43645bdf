// changepoint_score.h: scores a change-point method's findings on the
// synthetic corpus (changepoint_corpus.h) against the corpus' truth.
//
// - false alarm: a flat series with any finding;
// - target step: a planted step of at least 5 noise SDs whose levels before
//   and after each last at least 5 counted runs. Found: a step finding in
//   the same direction within 2 runs of it; "at its run": at its index;
//   size within 10 %: of the truth, and of the data's own size (the
//   difference of the means of the true segments, what a method that knew
//   the position would report: with 5 runs after a 5 SD step the noise
//   alone moves that by 9 % of the step, one SD);
// - spurious: a finding in a step series that matches no planted step;
// - drift as one finding: exactly one finding, a drift, its first and last
//   runs within 5 runs, 10 % of its length, or the runs over which it moves
//   2 noise SDs (the most of the three) of the truth, and its total change
//   within 20 % of the truth.
// Indices are among the counted (not missing) points, as the methods see
// the series.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_CHANGEPOINT_SCORE_H_
#define PERFCOUNTERS_TESTS_SUPPORT_CHANGEPOINT_SCORE_H_

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "support/changepoint_corpus.h"

namespace perfcounters::tools::testing {

// One finding of a method: a step at `index` (the first run after it), or
// a drift from `index` to `last`; `before` and `after` the levels on
// either side (a drift's: at its first and last run).
struct Finding {
  size_t index = 0;
  size_t last = 0;
  bool drift = false;
  double before = 0;
  double after = 0;
};

struct Tally {
  size_t flat_series = 0, flat_alarmed = 0, flat_findings = 0;
  size_t targets = 0, target_near = 0, target_exact = 0;
  size_t target_size_truth = 0, target_size_data = 0;
  double target_position_error = 0;    // sum over the found targets
  size_t others = 0, other_found = 0;  // planted steps below the target
  size_t step_series = 0, spurious = 0;
  size_t drift_series = 0, drift_one = 0, drift_findings = 0;

  void Add(const Tally& t) {
    flat_series += t.flat_series;
    flat_alarmed += t.flat_alarmed;
    flat_findings += t.flat_findings;
    targets += t.targets;
    target_near += t.target_near;
    target_exact += t.target_exact;
    target_size_truth += t.target_size_truth;
    target_size_data += t.target_size_data;
    target_position_error += t.target_position_error;
    others += t.others;
    other_found += t.other_found;
    step_series += t.step_series;
    spurious += t.spurious;
    drift_series += t.drift_series;
    drift_one += t.drift_one;
    drift_findings += t.drift_findings;
  }
};

// The counted values of `s` (missing ones left out).
inline std::vector<double> Counted(const CorpusSeries& s) {
  std::vector<double> out;
  for (double v : s.values) {
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

// The index among the counted points of raw run `i` (of the first counted
// run at or after it).
inline size_t CountedIndex(const CorpusSeries& s, size_t i) {
  size_t c = 0;
  for (size_t k = 0; k < i && k < s.values.size(); ++k) {
    c += !std::isnan(s.values[k]);
  }
  return c;
}

inline double MeanOf(const std::vector<double>& v, size_t lo, size_t hi) {
  double sum = 0;
  for (size_t i = lo; i < hi; ++i) sum += v[i];
  return hi > lo ? sum / static_cast<double>(hi - lo) : 0;
}

inline Tally Score(const CorpusSeries& s, const std::vector<Finding>& found) {
  Tally t;
  if (s.flat) {
    t.flat_series = 1;
    t.flat_alarmed = !found.empty();
    t.flat_findings = found.size();
    return t;
  }
  const std::vector<double> values = Counted(s);
  if (!s.drifts.empty()) {
    t.drift_series = 1;
    t.drift_findings = found.size();
    const TrueDrift& d = s.drifts.front();
    const size_t first = CountedIndex(s, d.first);
    const size_t last = CountedIndex(s, d.last);
    // Where a slow drift starts and ends is known only to the runs over
    // which its level moves by less than 2 noise SDs.
    const double runs = static_cast<double>(last - first);
    const double slack =
        std::max({5.0, 0.1 * runs, 2 * s.sigma * runs / std::fabs(d.total)});
    auto near = [&](size_t a, size_t b) {
      return std::fabs(static_cast<double>(a) - static_cast<double>(b)) <=
             slack;
    };
    if (found.size() == 1 && found[0].drift && near(found[0].index, first) &&
        near(found[0].last, last) &&
        std::fabs(found[0].after - found[0].before - d.total) <=
            0.2 * std::fabs(d.total)) {
      t.drift_one = 1;
    }
    return t;
  }
  t.step_series = 1;
  std::vector<bool> used(found.size(), false);
  std::vector<size_t> at;
  for (const TrueStep& step : s.steps)
    at.push_back(CountedIndex(s, step.index));
  for (size_t j = 0; j < s.steps.size(); ++j) {
    const size_t lo = j == 0 ? 0 : at[j - 1];
    const size_t hi = j + 1 < at.size() ? at[j + 1] : values.size();
    const bool target =
        std::fabs(s.steps[j].sigmas) >= 5 && at[j] - lo >= 5 && hi - at[j] >= 5;
    (target ? t.targets : t.others) += 1;
    size_t best = found.size();
    size_t best_distance = 3;
    for (size_t f = 0; f < found.size(); ++f) {
      if (used[f] || found[f].drift) continue;
      if ((found[f].after - found[f].before) * s.steps[j].size <= 0) continue;
      const size_t distance = found[f].index > at[j] ? found[f].index - at[j]
                                                     : at[j] - found[f].index;
      if (distance < best_distance) {
        best = f;
        best_distance = distance;
      }
    }
    if (best == found.size()) continue;
    used[best] = true;
    if (!target) {
      ++t.other_found;
      continue;
    }
    ++t.target_near;
    t.target_exact += best_distance == 0;
    t.target_position_error += static_cast<double>(best_distance);
    const double size = found[best].after - found[best].before;
    const double data = MeanOf(values, at[j], hi) - MeanOf(values, lo, at[j]);
    t.target_size_truth +=
        std::fabs(size - s.steps[j].size) <= 0.1 * std::fabs(s.steps[j].size);
    t.target_size_data += std::fabs(size - data) <= 0.1 * std::fabs(data);
  }
  for (bool u : used) t.spurious += !u;
  return t;
}

}  // namespace perfcounters::tools::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_CHANGEPOINT_SCORE_H_
