// statistics.cc: the median, the Mann-Whitney U test and its smallest p,
// and the t and binomial distributions. The one file of the project that
// includes Boost.Math (header-only; a private dependency of the analysis
// layer): its headers cost a file ~4 s of CPU to compile.
#include "statistics.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace perfcounters::tools {
namespace {

// Boost.Math's error policy for the distributions: no exceptions (a p-value
// is never worth ending the command; bad arguments are caught before), and
// no promotion of double to long double, which on aarch64 is a software
// 128-bit type (and on x86 makes a p-value ~4x slower) for digits no p-value
// needs.
namespace stats_policies = boost::math::policies;
using StatsPolicy = stats_policies::policy<
    stats_policies::domain_error<stats_policies::ignore_error>,
    stats_policies::pole_error<stats_policies::ignore_error>,
    stats_policies::overflow_error<stats_policies::ignore_error>,
    stats_policies::underflow_error<stats_policies::ignore_error>,
    stats_policies::evaluation_error<stats_policies::ignore_error>,
    stats_policies::rounding_error<stats_policies::ignore_error>,
    stats_policies::promote_float<false>,
    stats_policies::promote_double<false>>;

// A probability from Boost: NaN (an error ignored) reads as 1, "no
// evidence", never as a significant p.
double Probability(double p) {
  return std::isnan(p) ? 1.0 : std::clamp(p, 0.0, 1.0);
}

// Exact two-sided p-value of U (no ties): counts of arrangements by U via
// N(i, j, u) = N(i-1, j, u-j) + N(i, j-1, u), using additions only.
double ExactP(size_t m, size_t n, double u_max) {
  if (m > n) std::swap(m, n);
  const size_t max_u = m * n;
  // cur[i] = distribution for i x's and j y's.
  std::vector<std::vector<double>> cur(m + 1, std::vector<double>(max_u + 1));
  for (size_t i = 0; i <= m; ++i) cur[i][0] = 1;  // j = 0: U = 0 only
  for (size_t j = 1; j <= n; ++j) {
    // N(0, j, 0) = 1 already; update i ascending using N(i-1, j, .) (new).
    for (size_t i = 1; i <= m; ++i) {
      std::vector<double>& row = cur[i];             // holds N(i, j-1, .)
      const std::vector<double>& prev = cur[i - 1];  // N(i-1, j, .)
      for (size_t u = max_u + 1; u-- > j;) row[u] += prev[u - j];
    }
  }
  const std::vector<double>& dist = cur[m];
  double total = 0, tail = 0;
  for (size_t u = 0; u <= max_u; ++u) {
    total += dist[u];
    if (static_cast<double>(u) >= u_max - 1e-9) tail += dist[u];
  }
  return std::min(1.0, 2.0 * tail / total);
}

}  // namespace

double Median(std::vector<double> values) {
  const size_t n = values.size();
  auto mid = values.begin() + n / 2;
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(values.begin(), mid);
  return lower + (upper - lower) / 2;
}

MannWhitneyResult MannWhitneyU(absl::Span<const double> a,
                               absl::Span<const double> b) {
  const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  std::vector<std::pair<double, bool>> all;  // value, from a
  all.reserve(n);
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0;
  double tie_term = 0;  // sum of t^3 - t over tie groups
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double rank =
        (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second) rank_sum_a += rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }
  MannWhitneyResult r;
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  r.u = rank_sum_a - dn1 * (dn1 + 1) / 2;
  const double u_max = std::max(r.u, dn1 * dn2 - r.u);
  if (tie_term == 0 && std::min(n1, n2) <= 8) {
    r.method = PMethod::kExact;
    r.p = ExactP(n1, n2, u_max);
    return r;
  }
  r.method = PMethod::kNormal;
  const double dn = static_cast<double>(n);
  const double mu = dn1 * dn2 / 2;
  const double var = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) {
    r.p = 1;  // every value tied
    return r;
  }
  const double z = (u_max - mu - 0.5) / std::sqrt(var);
  const boost::math::normal_distribution<double, StatsPolicy> normal;
  r.p = Probability(2 * boost::math::cdf(boost::math::complement(normal, z)));
  return r;
}

double MinimumP(size_t n1, size_t n2) {
  // 2 / C(n1 + n2, n1), computed as a product to stay finite.
  double c = 1;
  const size_t k = std::min(n1, n2), n = n1 + n2;
  for (size_t i = 1; i <= k; ++i) {
    c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2.0 / c);
}

double StudentTwoSidedP(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return 1;
  if (std::isinf(t)) return 0;
  const boost::math::students_t_distribution<double, StatsPolicy> dist(df);
  return Probability(
      2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

double BinomialHalfCdf(size_t n, size_t k) {
  if (k >= n) return 1.0;
  const boost::math::binomial_distribution<double, StatsPolicy> dist(
      static_cast<double>(n), 0.5);
  return Probability(boost::math::cdf(dist, static_cast<double>(k)));
}

}  // namespace perfcounters::tools
