// changepoint_robust.cc: the robust method of changepoint_robust.h.
#include "changepoint_robust.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "statistics.h"

namespace perfcounters::tools {
namespace {

// Each level or line lasts at least this many runs.
constexpr size_t kMinRun = 5;
// Half the running median's width, and the clip around it (sigmas).
constexpr size_t kMedianHalf = 4;
constexpr double kClip = 3;
// Penalties, times ln(n): a segment, and a line's slope.
constexpr double kSegmentPenalty = 4;
constexpr double kLinePenalty = 3;

// The median of v[0, n), reordering them. Short runs (the running
// median's windows, called once per point) are sorted by insertion, which
// is several times faster there than nth_element and gives the same value.
double MedianInPlace(double* v, size_t n) {
  const size_t mid = n / 2;
  if (n <= 16) {
    for (size_t i = 1; i < n; ++i) {
      const double x = v[i];
      size_t j = i;
      for (; j > 0 && x < v[j - 1]; --j) v[j] = v[j - 1];
      v[j] = x;
    }
    if (n % 2 == 1) return v[mid];
    return (v[mid - 1] + v[mid]) / 2;
  }
  std::nth_element(v, v + mid, v + n);
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  return (*std::max_element(v, v + mid) + upper) / 2;
}

double MedianOf(std::vector<double> v) {
  return MedianInPlace(v.data(), v.size());
}

// A segment [a, b) of the standardized series, fitted by a level or a line:
// its fitted values at a and at b - 1, and its residual sum of squares.
struct Fit {
  bool line = false;
  double first = 0;
  double last = 0;
  double rss = 0;
  // The penalized cost: rss, plus the line's penalty.
  double cost = 0;
};

// Prefix sums for O(1) fits of any segment.
class Segments {
 public:
  Segments(const std::vector<double>& z, double line_penalty)
      : line_penalty_(line_penalty),
        s1_(z.size() + 1),
        s2_(z.size() + 1),
        st_(z.size() + 1),
        inv_n_(z.size() + 1),
        inv_stt_(z.size() + 1) {
    for (size_t i = 0; i < z.size(); ++i) {
      s1_[i + 1] = s1_[i] + z[i];
      s2_[i + 1] = s2_[i] + z[i] * z[i];
      st_[i + 1] = st_[i] + static_cast<double>(i) * z[i];
      const double n = static_cast<double>(i + 1);
      inv_n_[i + 1] = 1 / n;
      inv_stt_[i + 1] = i > 0 ? 12 / (n * (n * n - 1)) : 0;
    }
  }

  // The prefix sums at an end b, for Cost().
  struct End {
    size_t b;
    double s1, s2, st;
  };
  End EndAt(size_t b) const { return {b, s1_[b], s2_[b], st_[b]}; }

  // Best(a, b).cost for b - a >= kMinRun: the segmentation's inner loop
  // (no division).
  double Cost(size_t a, const End& e) const {
    const size_t len = e.b - a;
    const double sum = e.s1 - s1_[a];
    const double rss = std::max(0.0, e.s2 - s2_[a] - sum * sum * inv_n_[len]);
    const double sty =
        e.st - st_[a] - 0.5 * static_cast<double>(a + e.b - 1) * sum;
    const double gain = std::min(rss, sty * sty * inv_stt_[len]);
    return rss - std::max(0.0, gain - line_penalty_);
  }

  Fit Best(size_t a, size_t b) const {
    Fit f;
    const double n = static_cast<double>(b - a);
    const double sum = s1_[b] - s1_[a];
    const double mean = sum / n;
    f.first = f.last = mean;
    f.rss = std::max(0.0, s2_[b] - s2_[a] - sum * mean);
    f.cost = f.rss;
    if (b - a < kMinRun) return f;
    // The least-squares line around the segment's middle.
    const double middle = static_cast<double>(a + b - 1) / 2;
    const double stt = n * (n * n - 1) / 12;
    const double sty = st_[b] - st_[a] - middle * sum;
    const double line_rss = std::max(0.0, f.rss - sty * sty / stt);
    if (line_rss + line_penalty_ < f.cost) {
      const double slope = sty / stt;
      f.line = true;
      f.first = mean - slope * (n - 1) / 2;
      f.last = mean + slope * (n - 1) / 2;
      f.rss = line_rss;
      f.cost = line_rss + line_penalty_;
    }
    return f;
  }

  // The continuous level-line-level fit of [r0, r1) bending at f and l
  // (r0 <= f < l < r1): y = level + slope * clamp(t - f, 0, l - f). Its
  // residual sum of squares; `level` and `slope` set.
  double Bend(size_t r0, size_t r1, size_t f, size_t l, double& level,
              double& slope) const {
    const double m = static_cast<double>(r1 - r0);
    const double len = static_cast<double>(l - f);
    const double tail = static_cast<double>(r1 - 1 - l);
    const double sg = len * (len + 1) / 2 + tail * len;
    const double sgg = len * (len + 1) * (2 * len + 1) / 6 + tail * len * len;
    const double sy = s1_[r1] - s1_[r0];
    const double sgy = st_[l + 1] - st_[f + 1] -
                       static_cast<double>(f) * (s1_[l + 1] - s1_[f + 1]) +
                       len * (s1_[r1] - s1_[l + 1]);
    const double cgg = sgg - sg * sg / m;
    const double cgy = sgy - sg * sy / m;
    const double cyy = s2_[r1] - s2_[r0] - sy * sy / m;
    slope = cgg > 0 ? cgy / cgg : 0;
    level = (sy - slope * sg) / m;
    return cyy - slope * cgy;
  }

 private:
  double line_penalty_;
  std::vector<double> s1_, s2_, st_;
  std::vector<double> inv_n_, inv_stt_;  // 1 / n, 1 / sum (t - mean t)^2
};

struct Piece {
  size_t a = 0, b = 0;
  Fit fit;
};

// The optimal segmentation (PELT): the segments' costs plus `penalty` per
// segment, at least kMinRun points each. A start a is pruned at b when
// F(a) + C(a, b) - line_penalty > F(b): splitting a segment never costs
// more than one line's penalty, so a cannot win later either.
std::vector<Piece> Segment(const Segments& segments, size_t n, double penalty,
                           double line_penalty) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, kInf);
  std::vector<size_t> from(n + 1, 0);
  best[0] = -penalty;
  std::vector<size_t> starts = {0};
  std::vector<double> reach;  // best[a] + C(a, b) of each start, at this b
  for (size_t b = kMinRun; b <= n; ++b) {
    // The starts ascend: those closer than kMinRun to b are the last.
    size_t usable = starts.size();
    while (usable > 0 && b - starts[usable - 1] < kMinRun) --usable;
    // Only the starts too close to b are unreachable; the loop below sets
    // every other one.
    reach.resize(starts.size());
    std::fill(reach.begin() + static_cast<std::ptrdiff_t>(usable), reach.end(),
              kInf);
    const Segments::End end = segments.EndAt(b);
    double best_b = kInf;
    size_t from_b = 0;
    for (size_t k = 0; k < usable; ++k) {
      const size_t a = starts[k];
      const double r = best[a] + segments.Cost(a, end);
      reach[k] = r;
      if (r + penalty < best_b) {
        best_b = r + penalty;
        from_b = a;
      }
    }
    if (best_b == kInf) continue;
    best[b] = best_b;
    from[b] = from_b;
    size_t kept = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
      if (reach[k] == kInf || reach[k] - line_penalty <= best[b]) {
        starts[kept++] = starts[k];
      }
    }
    starts.resize(kept);
    starts.push_back(b);
  }
  std::vector<Piece> pieces;
  // NOLINTNEXTLINE(bugprone-infinite-loop): b = from[b] < b moves it down
  for (size_t b = n; b > 0; b = from[b]) {
    pieces.push_back({from[b], b, segments.Best(from[b], b)});
  }
  std::reverse(pieces.begin(), pieces.end());
  return pieces;
}

// Merges adjacent levels closer than `min_sigmas`, the closest first.
void MergeSmallSteps(const Segments& segments, std::vector<Piece>& pieces,
                     double min_sigmas) {
  while (pieces.size() > 1) {
    size_t closest = pieces.size();
    double smallest = min_sigmas;
    for (size_t k = 0; k + 1 < pieces.size(); ++k) {
      if (pieces[k].fit.line || pieces[k + 1].fit.line) continue;
      const double jump =
          std::fabs(pieces[k + 1].fit.first - pieces[k].fit.last);
      if (jump < smallest) {
        smallest = jump;
        closest = k;
      }
    }
    if (closest == pieces.size()) return;
    pieces[closest].b = pieces[closest + 1].b;
    pieces[closest].fit = segments.Best(pieces[closest].a, pieces[closest].b);
    pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(closest) + 1);
  }
}

// The drift in [r0, r1) as one continuous bend (Segments::Bend): the f and
// l of the least squares, searched within `reach` of `first` and `last`.
struct Drift {
  size_t first = 0, last = 0;
  double from = 0, to = 0;
};
Drift BestBend(const Segments& segments, size_t r0, size_t r1, size_t first,
               size_t last, size_t reach) {
  Drift best{first, last, 0, 0};
  double best_rss = std::numeric_limits<double>::infinity();
  const size_t f_lo = first > r0 + reach ? first - reach : r0;
  const size_t l_hi = std::min(r1 - 1, last + reach);
  for (size_t f = f_lo; f <= std::min(first + reach, l_hi); ++f) {
    const size_t l_lo = std::max(f + kMinRun, last > reach ? last - reach : 0);
    for (size_t l = l_lo; l <= l_hi; ++l) {
      double level, slope;
      const double rss = segments.Bend(r0, r1, f, l, level, slope);
      if (rss < best_rss) {
        best_rss = rss;
        best = {f, l, level, level + slope * static_cast<double>(l - f)};
      }
    }
  }
  return best;
}

// The median of the 9 points around z[i]. In the first and last 4 points
// the window is the first or last 9, whose median belongs to its middle:
// where all its differences have one sign (a ramp), the median of the
// differences carries it to i.
double RunningMedian(const std::vector<double>& z, size_t i) {
  constexpr size_t kWidth = 2 * kMedianHalf + 1;
  const size_t n = z.size();
  const size_t lo = n <= kWidth || i < kMedianHalf ? 0
                    : i + kMedianHalf >= n         ? n - kWidth
                                                   : i - kMedianHalf;
  const size_t hi = std::min(n, lo + kWidth);
  std::array<double, kWidth> window;
  std::copy(z.begin() + lo, z.begin() + hi, window.begin());
  const double m = MedianInPlace(window.data(), hi - lo);
  const double middle = static_cast<double>(lo + hi - 1) / 2;
  if (static_cast<double>(i) == middle || hi - lo < 3) return m;
  std::array<double, kWidth - 1> d;
  bool up = true, down = true;
  for (size_t k = lo + 1; k < hi; ++k) {
    d[k - lo - 1] = z[k] - z[k - 1];
    up = up && d[k - lo - 1] > 0;
    down = down && d[k - lo - 1] < 0;
  }
  if (!up && !down) return m;
  return m + MedianInPlace(d.data(), hi - lo - 1) *
                 (static_cast<double>(i) - middle);
}

// RunningMedian(z, i) of every i. Where the window is centred on i (all
// but the first and last kMedianHalf points of a series longer than the
// window) it is the middle of a sorted window slid along z, one value out
// and one in per point: the same value, without sorting each window anew
// (the history's series are thousands of windows each).
std::vector<double> RunningMedians(const std::vector<double>& z) {
  constexpr size_t kWidth = 2 * kMedianHalf + 1;
  const size_t n = z.size();
  std::vector<double> m(n);
  // (A NaN is never equal to itself: such a series takes the slow way.)
  const bool finite = std::all_of(z.begin(), z.end(),
                                  [](double v) { return std::isfinite(v); });
  if (n <= kWidth || !finite) {
    for (size_t i = 0; i < n; ++i) m[i] = RunningMedian(z, i);
    return m;
  }
  std::array<double, kWidth> window;
  std::copy(z.begin(), z.begin() + kWidth, window.begin());
  std::sort(window.begin(), window.end());
  for (size_t i = kMedianHalf; i + kMedianHalf < n; ++i) {
    if (i > kMedianHalf) {
      // Out: z[i - kMedianHalf - 1]; in: z[i + kMedianHalf].
      const double out = z[i - kMedianHalf - 1];
      const double in = z[i + kMedianHalf];
      size_t k = 0;
      while (window[k] != out) ++k;
      for (; k + 1 < kWidth && window[k + 1] < in; ++k) {
        window[k] = window[k + 1];
      }
      for (; k > 0 && window[k - 1] > in; --k) window[k] = window[k - 1];
      window[k] = in;
    }
    m[i] = window[kMedianHalf];
  }
  for (size_t i = 0; i < kMedianHalf; ++i) {
    m[i] = RunningMedian(z, i);
    m[n - 1 - i] = RunningMedian(z, n - 1 - i);
  }
  return m;
}

// The variance (in sigma^2) of a fit's value at its first or last point.
double EndVariance(const Piece& p) {
  const double n = static_cast<double>(p.b - p.a);
  return p.fit.line ? 1 / n + 3 * (n - 1) / (n * (n + 1)) : 1 / n;
}

}  // namespace

double RobustNoiseScale(const std::vector<double>& series) {
  if (series.size() < 3) return 0;
  std::vector<double> d;
  d.reserve(series.size() - 1);
  for (size_t i = 1; i < series.size(); ++i) {
    d.push_back(series[i] - series[i - 1]);
  }
  const double center = MedianOf(d);
  // Differences equal but for the doubles' rounding count as equal: values
  // computed from the same integer counts (instructions per pair, 4716.68
  // and 4716.679999999999) differ by 1e-12, and a MAD of that would make
  // every real wiggle a step of a million sigmas.
  double largest = 0;
  for (double v : series) largest = std::max(largest, std::fabs(v));
  const double rounding = 1e-9 * largest;
  double spread = 0;
  for (double& x : d) {
    x = std::fabs(x - center);
    if (x <= rounding) x = 0;
    spread += x;
  }
  const double mad = MedianInPlace(d.data(), d.size());
  // A normal's standard deviation is 1.4826 MAD, or sqrt(pi / 2) times its
  // mean absolute deviation (where more than half the differences are
  // equal, as in a quantized series); a difference has sqrt(2) of the
  // points' standard deviation.
  double sigma =
      mad > 0 ? 1.482602218505602 * mad
              : std::sqrt(M_PI / 2) * spread / static_cast<double>(d.size());
  sigma /= std::sqrt(2.0);
  // An exact series (a straight line, a constant with a step): at least a
  // millionth of its range, which keeps the squares of the standardized
  // series far inside a double's digits.
  const auto [lo, hi] = std::minmax_element(series.begin(), series.end());
  return std::max(sigma, 1e-6 * (*hi - *lo));
}

namespace {

// The series' standardization: value = center + sigma * z.
struct RobustScale {
  double center = 0, sigma = 1;
  double Value(double z) const { return center + sigma * z; }
  // The residual standard deviation of a piece's fit, in the series' units.
  double ResidualSd(const Piece& p) const {
    return sigma * std::sqrt(p.fit.rss / static_cast<double>(p.b - p.a));
  }
};

double RelativeChange(double before, double after) {
  return before == 0 ? 0 : std::fabs(after / before - 1);
}

// Steps: jumps between neighbouring pieces; `step_after[k]`: a step
// follows piece k (drifts do not cross one).
void RobustSteps(const std::vector<Piece>& pieces, const RobustScale& scale,
                 const ChangePointOptions& options,
                 std::vector<bool>& step_after, std::vector<ChangePoint>& out) {
  step_after.assign(pieces.size(), false);
  for (size_t k = 0; k + 1 < pieces.size(); ++k) {
    const Piece& l = pieces[k];
    const Piece& r = pieces[k + 1];
    const double jump = r.fit.first - l.fit.last;
    // Where a line meets a level or a line, a misplaced bend shows as a
    // small jump: a step there is one of twice the smallest.
    const bool bend = l.fit.line || r.fit.line;
    if (std::fabs(jump) < (bend ? 2 : 1) * options.min_sigmas) continue;
    step_after[k] = true;
    ChangePoint cp;
    cp.index = r.a;
    cp.mean_before = scale.Value(l.fit.last);
    cp.mean_after = scale.Value(r.fit.first);
    cp.std_before = scale.ResidualSd(l);
    cp.std_after = scale.ResidualSd(r);
    cp.p = StudentTwoSidedP(jump / std::sqrt(EndVariance(l) + EndVariance(r)),
                            static_cast<double>(r.b - l.a - 2));
    cp.sigma = scale.sigma;
    if (RelativeChange(cp.mean_before, cp.mean_after) <=
        options.min_magnitude) {
      continue;
    }
    out.push_back(cp);
  }
}

// Drifts: lines sloping the same way, joined without a step.
void RobustDrifts(const Segments& segments, const std::vector<Piece>& pieces,
                  const std::vector<bool>& step_after, const RobustScale& scale,
                  const ChangePointOptions& options,
                  std::vector<ChangePoint>& out) {
  for (size_t k = 0; k < pieces.size();) {
    if (!pieces[k].fit.line) {
      ++k;
      continue;
    }
    const bool up = pieces[k].fit.last > pieces[k].fit.first;
    size_t end = k + 1;
    while (end < pieces.size() && pieces[end].fit.line &&
           !step_after[end - 1] &&
           (pieces[end].fit.last > pieces[end].fit.first) == up) {
      ++end;
    }
    const Piece& first = pieces[k];
    const Piece& last = pieces[end - 1];
    // Levels joined to it without a step are its flat ends: where it
    // starts and stops is the best continuous bend.
    const size_t r0 = k > 0 && !step_after[k - 1] && !pieces[k - 1].fit.line
                          ? pieces[k - 1].a
                          : first.a;
    const size_t r1 =
        end < pieces.size() && !step_after[end - 1] && !pieces[end].fit.line
            ? pieces[end].b
            : last.b;
    const Drift d = BestBend(segments, r0, r1, first.a, last.b - 1,
                             std::max<size_t>(10, (last.b - first.a) / 2));
    k = end;
    if (std::fabs(d.to - d.from) < options.min_sigmas) continue;
    ChangePoint cp;
    cp.kind = ChangeKind::kDrift;
    cp.index = d.first;
    cp.last_index = d.last;
    cp.mean_before = scale.Value(d.from);
    cp.mean_after = scale.Value(d.to);
    cp.std_before = scale.ResidualSd(first);
    cp.std_after = scale.ResidualSd(last);
    // The slope's t over the drift's runs (in sigma units: its standard
    // error is 1 / sqrt(sum of (t - mean t)^2)).
    const double runs = static_cast<double>(d.last - d.first + 1);
    const double slope = (d.to - d.from) / std::max(runs - 1, 1.0);
    cp.p = StudentTwoSidedP(slope * std::sqrt(runs * (runs * runs - 1) / 12),
                            runs - 2);
    cp.sigma = scale.sigma;
    if (RelativeChange(cp.mean_before, cp.mean_after) <=
        options.min_magnitude) {
      continue;
    }
    out.push_back(cp);
  }
}

}  // namespace

std::vector<ChangePoint> FindRobustChanges(const std::vector<double>& series,
                                           const ChangePointOptions& options) {
  const size_t n = series.size();
  const double sigma = RobustNoiseScale(series);
  if (n < 2 * kMinRun || !(sigma > 0) || !std::isfinite(sigma)) return {};
  const RobustScale scale{MedianOf(series), sigma};
  // Standardize, and clip each point to the running median +- kClip.
  std::vector<double> z(n);
  for (size_t i = 0; i < n; ++i) z[i] = (series[i] - scale.center) / sigma;
  const std::vector<double> medians = RunningMedians(z);
  std::vector<double> clipped(n);
  for (size_t i = 0; i < n; ++i) {
    clipped[i] = std::clamp(z[i], medians[i] - kClip, medians[i] + kClip);
  }
  const double log_n = std::log(static_cast<double>(n));
  const double line_penalty = kLinePenalty * log_n;
  const Segments segments(clipped, line_penalty);
  std::vector<Piece> pieces =
      Segment(segments, n, kSegmentPenalty * log_n, line_penalty);
  MergeSmallSteps(segments, pieces, options.min_sigmas);

  std::vector<ChangePoint> out;
  std::vector<bool> step_after;
  RobustSteps(pieces, scale, options, step_after, out);
  RobustDrifts(segments, pieces, step_after, scale, options, out);
  std::sort(out.begin(), out.end(),
            [](const ChangePoint& a, const ChangePoint& b) {
              return a.index != b.index ? a.index < b.index
                                        : a.kind == ChangeKind::kStep;
            });
  return out;
}

}  // namespace perfcounters::tools
