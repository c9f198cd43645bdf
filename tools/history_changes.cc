// history_changes.cc: E-divisive means with Otava's split and merge steps
// (history_changes.h), and the choice of method.
#include "history_changes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "changepoint_robust.h"
#include "statistics.h"

namespace perfcounters::tools {
namespace {

struct Stats {
  double mean = 0;
  double std = 0;  // population standard deviation (numpy's std)
};

Stats Describe(const double* v, size_t n) {
  Stats s;
  for (size_t i = 0; i < n; ++i) s.mean += v[i];
  s.mean /= static_cast<double>(n);
  if (n < 2) return s;
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (v[i] - s.mean) * (v[i] - s.mean);
  s.std = std::sqrt(ss / static_cast<double>(n));
  return s;
}

// The change point between series[lo, index) and series[index, hi).
ChangePoint Test(const std::vector<double>& series, size_t lo, size_t index,
                 size_t hi) {
  ChangePoint cp;
  cp.index = index;
  const Stats l = Describe(series.data() + lo, index - lo);
  const Stats r = Describe(series.data() + index, hi - index);
  cp.mean_before = l.mean;
  cp.mean_after = r.mean;
  cp.std_before = l.std;
  cp.std_after = r.std;
  cp.p =
      TTestP(series.data() + lo, index - lo, series.data() + index, hi - index);
  return cp;
}

double Magnitude(const ChangePoint& cp) {
  const double forward =
      cp.mean_before == 0 ? 0 : cp.mean_after / cp.mean_before - 1;
  const double backward =
      cp.mean_after == 0 ? 0 : cp.mean_before / cp.mean_after - 1;
  return std::max(std::fabs(forward), std::fabs(backward));
}

// E-divisive's candidate in w[a, b): the tau (a < tau < b) of the split
// (tau, kappa), tau < kappa <= b, that maximizes Q-hat. `col(j, lo, hi)` is
// the sum of |w[i] - w[j]| over lo <= i < hi, from column prefix sums.
struct Candidate {
  size_t index = 0;
  double q = -std::numeric_limits<double>::infinity();
};

class Window {
 public:
  Window(const double* w, size_t n) : n_(n), prefix_((n + 1) * n, 0.0) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        prefix_[(i + 1) * n + j] = prefix_[i * n + j] + std::fabs(w[i] - w[j]);
      }
    }
  }

  double Col(size_t j, size_t lo, size_t hi) const {
    return prefix_[hi * n_ + j] - prefix_[lo * n_ + j];
  }

  Candidate Best(size_t a, size_t b) const {
    Candidate best;
    double within_x = 0;
    for (size_t tau = a + 1; tau < b; ++tau) {
      within_x += Col(tau - 1, a, tau - 1);
      const double n = static_cast<double>(tau - a);
      double cross = 0, within_y = 0;
      for (size_t kappa = tau + 1; kappa <= b; ++kappa) {
        const size_t j = kappa - 1;
        cross += Col(j, a, tau);
        within_y += Col(j, tau, j);
        const double m = static_cast<double>(kappa - tau);
        double q = 2 / (m + n) * cross;
        if (n > 1) q -= 2 * m / ((m + n) * (n - 1)) * within_x;
        if (m > 1) q -= 2 * n / ((m + n) * (m - 1)) * within_y;
        if (q > best.q) {
          best.q = q;
          best.index = tau;
        }
      }
    }
    return best;
  }

 private:
  size_t n_;
  std::vector<double> prefix_;
};

// The detector on series[start, end): change points (absolute indices)
// while the best candidate's t-test gives p <= max_p.
std::vector<ChangePoint> Detect(const std::vector<double>& series, size_t start,
                                size_t end, double max_p) {
  const std::vector<double> w(series.begin() + start, series.begin() + end);
  const Window window(w.data(), w.size());
  std::vector<size_t> cps;  // window indices, sorted
  std::vector<ChangePoint> out;
  while (true) {
    Candidate best;
    size_t lo = 0, hi = 0;
    size_t prev = 0;
    for (size_t k = 0; k <= cps.size(); ++k) {
      const size_t stop = k < cps.size() ? cps[k] : w.size();
      if (stop - prev > 1) {
        const Candidate c = window.Best(prev, stop);
        if (c.q > best.q) {
          best = c;
          lo = prev;
          hi = stop;
        }
      }
      prev = stop;
    }
    if (!std::isfinite(best.q)) break;
    const ChangePoint cp = Test(w, lo, best.index, hi);
    if (!(cp.p <= max_p)) break;
    cps.insert(std::upper_bound(cps.begin(), cps.end(), best.index),
               best.index);
    out.push_back(cp);
  }
  for (ChangePoint& cp : out) cp.index += start;
  std::sort(out.begin(), out.end(),
            [](const ChangePoint& a, const ChangePoint& b) {
              return a.index < b.index;
            });
  return out;
}

// Re-tests change point k against the segments between its neighbours.
void Retest(const std::vector<double>& series, std::vector<ChangePoint>& cps,
            size_t k) {
  const size_t lo = k == 0 ? 0 : cps[k - 1].index;
  const size_t hi = k + 1 < cps.size() ? cps[k + 1].index : series.size();
  cps[k] = Test(series, lo, cps[k].index, hi);
}

}  // namespace

double ChangePoint::ChangePercent() const {
  return mean_before == 0 ? 0 : (mean_after / mean_before - 1) * 100;
}

double ChangePoint::SlopePercent() const {
  if (kind != ChangeKind::kDrift || last_index <= index) return 0;
  return ChangePercent() / static_cast<double>(last_index - index);
}

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kStep:
      return "step";
    case ChangeKind::kDrift:
      return "drift";
    case ChangeKind::kEnvironment:
      return "environment";
  }
  return "?";
}

const char* ChangeMethodName(ChangeMethod method) {
  return method == ChangeMethod::kOtava ? "otava" : "robust";
}

double TTestP(const double* left, size_t n1, const double* right, size_t n2) {
  if (n1 == 0 || n2 == 0 || n1 + n2 < 3) return 1;
  const Stats l = Describe(left, n1), r = Describe(right, n2);
  const double df = static_cast<double>(n1 + n2 - 2);
  const double pooled = ((static_cast<double>(n1) - 1) * l.std * l.std +
                         (static_cast<double>(n2) - 1) * r.std * r.std) /
                        df;
  const double denom = std::sqrt(
      pooled * (1.0 / static_cast<double>(n1) + 1.0 / static_cast<double>(n2)));
  if (denom == 0) return l.mean == r.mean ? 1 : 0;
  return StudentTwoSidedP((l.mean - r.mean) / denom, df);
}

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& series,
                                          const ChangePointOptions& options) {
  if (options.method == ChangeMethod::kRobust) {
    return FindRobustChanges(series, options);
  }
  const size_t window = std::max<size_t>(options.window, 2);
  const double first_pass = options.max_p < 0.05  ? options.max_p * 10
                            : options.max_p < 0.5 ? options.max_p * 2
                                                  : options.max_p;
  // Split.
  std::vector<ChangePoint> cps;
  const size_t step = std::max<size_t>(window / 2, 1);
  for (size_t start = 0; start < series.size();) {
    const size_t end = std::min(start + window, series.size());
    const std::vector<ChangePoint> found =
        Detect(series, start, end, first_pass);
    for (const ChangePoint& cp : found) {
      const bool known = std::any_of(
          cps.begin(), cps.end(),
          [&](const ChangePoint& c) { return c.index == cp.index; });
      if (!known) cps.push_back(cp);
    }
    const size_t last = found.empty() ? 0 : found.back().index;
    start = std::max(last, start + step);
  }
  std::sort(cps.begin(), cps.end(),
            [](const ChangePoint& a, const ChangePoint& b) {
              return a.index < b.index;
            });
  for (size_t k = 0; k < cps.size(); ++k) Retest(series, cps, k);
  // Merge: drop the weakest while it is not significant or too small.
  while (!cps.empty()) {
    auto weakest = std::max_element(
        cps.begin(), cps.end(),
        [](const ChangePoint& a, const ChangePoint& b) { return a.p < b.p; });
    if (weakest->p < options.max_p) {
      weakest =
          std::min_element(cps.begin(), cps.end(),
                           [](const ChangePoint& a, const ChangePoint& b) {
                             return Magnitude(a) < Magnitude(b);
                           });
      if (Magnitude(*weakest) > options.min_magnitude) break;
    }
    const size_t k = static_cast<size_t>(weakest - cps.begin());
    cps.erase(weakest);
    // The neighbours' segments grew: re-test them.
    if (k > 0) Retest(series, cps, k - 1);
    if (k < cps.size()) Retest(series, cps, k);
  }
  return cps;
}

namespace {

// Where the last level of series[lo, hi) begins, given its change points
// `cps`: after the last step, or after a drift that ended before hi (at
// hi - 1 when the drift runs to the end: its last point is the level).
size_t LastLevelStart(const std::vector<ChangePoint>& cps, size_t lo,
                      size_t hi) {
  size_t start = lo;
  for (const ChangePoint& cp : cps) {
    if (cp.index < lo || cp.index >= hi) continue;
    start = cp.kind == ChangeKind::kDrift ? std::min(cp.last_index + 1, hi - 1)
                                          : std::max(start, cp.index);
  }
  return start;
}

// Where the first level of series[lo, hi) ends: at its first step, or at
// a drift's first point (lo + 1 when the drift starts at lo).
size_t FirstLevelEnd(const std::vector<ChangePoint>& cps, size_t lo,
                     size_t hi) {
  for (const ChangePoint& cp : cps) {
    if (cp.index < lo || cp.index >= hi) continue;
    return std::max(cp.index, lo + 1);
  }
  return hi;
}

}  // namespace

std::vector<ChangePoint> FindChangePointsWithin(
    const std::vector<double>& series, const std::vector<size_t>& boundaries,
    const ChangePointOptions& options) {
  std::vector<size_t> starts = {0};
  for (size_t b : boundaries) {
    if (b > starts.back() && b < series.size()) starts.push_back(b);
  }
  std::vector<ChangePoint> out;
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t lo = starts[k];
    const size_t hi = k + 1 < starts.size() ? starts[k + 1] : series.size();
    const std::vector<double> segment(series.begin() + lo, series.begin() + hi);
    for (ChangePoint cp : FindChangePoints(segment, options)) {
      cp.index += lo;
      if (cp.kind == ChangeKind::kDrift) cp.last_index += lo;
      out.push_back(cp);
    }
  }
  // The boundaries, between the levels on their two sides.
  std::vector<ChangePoint> known;
  for (size_t k = 1; k < starts.size(); ++k) {
    const size_t lo = starts[k - 1], at = starts[k];
    const size_t hi = k + 1 < starts.size() ? starts[k + 1] : series.size();
    const size_t before = LastLevelStart(out, lo, at);
    const size_t after = FirstLevelEnd(out, at, hi);
    ChangePoint cp = Test(series, before, at, after);
    cp.kind = ChangeKind::kEnvironment;
    cp.last_index = at;
    known.push_back(cp);
  }
  out.insert(out.end(), known.begin(), known.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const ChangePoint& a, const ChangePoint& b) {
                     return a.index < b.index;
                   });
  return out;
}

}  // namespace perfcounters::tools
