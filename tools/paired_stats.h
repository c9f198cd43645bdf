// paired_stats.h: statistics of paired measurements, as `perfcounters ab`
// takes them (one base and one new value per round) and `compare` reads
// them back from ab's files: the sign-test confidence interval of the
// median of the paired log-ratios log(new / base), and its p-value.
//
// Why the sign test (as nanobench's compare()) and not Wilcoxon's
// signed-rank test: Wilcoxon assumes the log-ratios are symmetric about
// their median. On a shared machine they are not: an interruption slows
// one side of one pair, so the log-ratios have a long tail on one side,
// and a symmetric-distribution interval (Wilcoxon's Hodges-Lehmann) is
// pulled towards it. The sign test assumes only independent pairs; its
// interval is a pair of order statistics, exact for any distribution, a
// little wider than Wilcoxon's where both are valid. The binomial
// distribution: BinomialHalfCdf() (statistics.h).
#ifndef PERFCOUNTERS_TOOLS_PAIRED_STATS_H_
#define PERFCOUNTERS_TOOLS_PAIRED_STATS_H_

#include <cstddef>
#include <vector>

#include "absl/types/span.h"

namespace perfcounters::tools {

// The 1-based rank r of the interval's lower bound for n pairs: the
// largest r with 2 * P(B(n, 1/2) <= r - 1) <= 1 - confidence; the interval
// is [x(r), x(n + 1 - r)] of the sorted values, and it covers the median
// with probability 1 - 2 * P(B <= r - 1) >= confidence. 0 when n pairs are
// too few for `confidence` (fewer than 6 at 95 %).
size_t SignTestRank(size_t n, double confidence);

// The fewest pairs that give an interval at `confidence` (6 at 95 %,
// 8 at 99 %).
size_t SignTestMinimumPairs(double confidence);

// The sign-test interval of the median of `values` (log-ratios).
struct PairedInterval {
  size_t n = 0;         // values
  double median = 0;    // their median
  bool valid = false;   // n >= SignTestMinimumPairs(confidence)
  double low = 0;       // x(r), when valid
  double high = 0;      // x(n + 1 - r), when valid
  double coverage = 0;  // 1 - 2 P(B <= r - 1), >= the confidence asked
  // Two-sided sign-test p of "the median is 0": zeros dropped, then
  // min(1, 2 P(B(m, 1/2) <= min(#positive, #negative))).
  double p = 1;
};
PairedInterval SignTestInterval(std::vector<double> values, double confidence);

// log(next[i] / base[i]) for each i; empty when the sizes differ or a
// value is not positive and finite (a ratio of such values means nothing).
std::vector<double> LogRatios(absl::Span<const double> base,
                              absl::Span<const double> next);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_PAIRED_STATS_H_
