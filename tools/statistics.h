// statistics.h: the statistics compare, ab and history rest on: the
// median, the two-sided Mann-Whitney U test (SciPy's method="auto") and the
// smallest p it can give, Student's t and the binomial(n, 1/2)
// distributions. The distributions are Boost.Math's (statistics.cc, the
// one file that includes it); the exact Mann-Whitney distribution is ours
// (Boost.Math has none). docs/design/statistics.md says what was measured.
#ifndef PERFCOUNTERS_TOOLS_STATISTICS_H_
#define PERFCOUNTERS_TOOLS_STATISTICS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "sample_list.h"

namespace perfcounters::tools {

// How a p-value was computed.
enum class PMethod : uint8_t { kNone, kExact, kNormal };

// Two-sided Mann-Whitney U test. Exact distribution when there are no ties
// and the smaller sample has at most 8 values (SciPy's method="auto");
// otherwise the normal approximation with tie correction and continuity
// correction. Needs >= 1 value on each side; returns p in [0, 1].
struct MannWhitneyResult {
  double u = 0;  // U statistic of the first sample
  double p = 1;
  PMethod method = PMethod::kNone;
};
MannWhitneyResult MannWhitneyU(absl::Span<const double> a,
                               absl::Span<const double> b);

// Median of `values` (non-empty); the mean of the middle two for even sizes.
double Median(std::vector<double> values);
inline double Median(const SampleList& values) {
  return Median(values.ToVector());
}

// The smallest two-sided p the U test can give with n1 and n2 distinct
// values (2 / C(n1 + n2, n1)): 0.1 for 3 vs 3, 0.029 for 4 vs 4, 0.0079
// for 5 vs 5. With fewer than 4 repetitions a side it is >= 0.05.
double MinimumP(size_t n1, size_t n2);

// Two-sided p of Student's t distribution with `df` degrees of freedom:
// P(|T| >= |t|); 1 when t is NaN or df <= 0, 0 when t is infinite.
double StudentTwoSidedP(double t, double df);

// P(B <= k) for B ~ Binomial(n, 1/2); 1 when k >= n.
double BinomialHalfCdf(size_t n, size_t k);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_STATISTICS_H_
