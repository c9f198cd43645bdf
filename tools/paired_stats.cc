// paired_stats.cc: the sign-test interval of paired log-ratios (see
// paired_stats.h).
#include "paired_stats.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "statistics.h"

namespace perfcounters::tools {

size_t SignTestRank(size_t n, double confidence) {
  const double alpha = 1 - confidence;
  size_t rank = 0;
  // 2 P(B <= r - 1) grows with r; r is at most n / 2.
  for (size_t r = 1; 2 * r <= n; ++r) {
    // A tolerance for the rounding of the sum: 2 P = alpha exactly counts.
    if (2 * BinomialHalfCdf(n, r - 1) > alpha * (1 + 1e-12)) break;
    rank = r;
  }
  return rank;
}

size_t SignTestMinimumPairs(double confidence) {
  size_t n = 1;
  while (SignTestRank(n, confidence) == 0 && n < 100000) ++n;
  return n;
}

PairedInterval SignTestInterval(std::vector<double> values, double confidence) {
  PairedInterval out;
  out.n = values.size();
  if (values.empty()) return out;
  std::sort(values.begin(), values.end());
  out.median = Median(values);
  size_t positive = 0, negative = 0;
  for (double v : values) {
    positive += v > 0;
    negative += v < 0;
  }
  out.p = std::min(1.0, 2 * BinomialHalfCdf(positive + negative,
                                            std::min(positive, negative)));
  const size_t r = SignTestRank(values.size(), confidence);
  if (r == 0) return out;
  out.valid = true;
  out.low = values[r - 1];
  out.high = values[values.size() - r];
  out.coverage = 1 - 2 * BinomialHalfCdf(values.size(), r - 1);
  return out;
}

std::vector<double> LogRatios(absl::Span<const double> base,
                              absl::Span<const double> next) {
  std::vector<double> out;
  if (base.size() != next.size()) return out;
  out.reserve(base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    const double b = base[i], n = next[i];
    if (!(b > 0) || !(n > 0) || !std::isfinite(b) || !std::isfinite(n)) {
      return {};
    }
    out.push_back(std::log(n / b));
  }
  return out;
}

}  // namespace perfcounters::tools
