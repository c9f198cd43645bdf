// tools_statistics_test.cc: the distributions of statistics.h (Boost.Math's
// t, normal and binomial) against independent references that need no
// Python: closed forms of the t distribution (df 1, 2, 3), the binomial
// CDF summed in exact integers, and values SciPy 1.10 printed (t.sf,
// mannwhitneyu). The SciPy run itself: tools_history_changes_test.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

#include "gtest/gtest.h"
#include "statistics.h"

namespace perfcounters::tools {
namespace {

// |got - want| within `rel` of want (and 1e-300 absolute, for p = 0).
void ExpectRelative(double got, double want, double rel, const char* what,
                    double x, double df) {
  EXPECT_LE(std::fabs(got - want), rel * want + 1e-300)
      << what << ": t=" << x << " df=" << df << " got " << got << " want "
      << want;
}

// Two-sided tails in forms that keep their digits in the tail.
double CauchyTwoSidedP(double t) {  // df 1
  return t == 0 ? 1 : 2 / std::numbers::pi * std::atan(1 / std::fabs(t));
}
double Df2TwoSidedP(double t) {  // 1 - |t| / s, s = sqrt(2 + t^2)
  const double s = std::sqrt(2 + t * t);
  return 2 / (s * (s + std::fabs(t)));
}
double Df3TwoSidedP(double t) {  // u = |t| / sqrt(3)
  const double u = std::fabs(t) / std::sqrt(3.0);
  if (u == 0) return 1;
  return 2 / std::numbers::pi * (std::atan(1 / u) - u / (1 + u * u));
}

TEST(StudentT, MatchesClosedForms) {
  int points = 0;
  for (double t = 0; t <= 40; t += 0.125) {
    ExpectRelative(StudentTwoSidedP(t, 1), CauchyTwoSidedP(t), 1e-13, "df 1", t,
                   1);
    ExpectRelative(StudentTwoSidedP(-t, 2), Df2TwoSidedP(t), 1e-13, "df 2", -t,
                   2);
    // The closed form itself loses ~u^2 ulps to cancellation for large t.
    ExpectRelative(StudentTwoSidedP(t, 3), Df3TwoSidedP(t), 1e-11, "df 3", t,
                   3);
    points += 3;
  }
  EXPECT_EQ(points, 963);
}

TEST(StudentT, MatchesScipyValues) {
  // 2 * scipy.stats.t.sf(t, df), SciPy 1.10.1.
  struct Case {
    double t, df, p;
  };
  const Case cases[] = {
      {2.5, 7, 0.040992218585752874}, {40, 5, 1.8411962171772952e-07},
      {0.3, 1e5, 0.7641777791903377}, {12, 30, 5.580185415199261e-13},
      {1e-3, 3, 0.9992648949694609},  {6, 1e6, 1.973849812354443e-09}};
  for (const Case& c : cases) {
    ExpectRelative(StudentTwoSidedP(c.t, c.df), c.p, 1e-12, "scipy", c.t, c.df);
  }
}

TEST(StudentT, EdgeCases) {
  EXPECT_EQ(StudentTwoSidedP(0, 5), 1.0);
  EXPECT_EQ(StudentTwoSidedP(NAN, 5), 1.0);
  EXPECT_EQ(StudentTwoSidedP(2, 0), 1.0);
  EXPECT_EQ(StudentTwoSidedP(2, -1), 1.0);
  EXPECT_EQ(StudentTwoSidedP(2, NAN), 1.0);
  EXPECT_EQ(StudentTwoSidedP(INFINITY, 5), 0.0);
  EXPECT_EQ(StudentTwoSidedP(-INFINITY, 5), 0.0);
  // Far in the tail: tiny but not 0, and never above 1.
  const double tail = StudentTwoSidedP(1e6, 4);
  EXPECT_GT(tail, 0.0);
  EXPECT_LT(tail, 1e-20);
  EXPECT_LE(StudentTwoSidedP(1e-12, 1e9), 1.0);
}

TEST(Binomial, MatchesExactIntegerSums) {
  // sum_{i <= k} C(n, i) / 2^n, the sum in exact 64-bit integers (n <= 60:
  // the sum stays below 2^60).
  int points = 0;
  for (size_t n = 1; n <= 60; ++n) {
    std::vector<uint64_t> row(n + 1);  // C(n, i) by Pascal's rule
    row[0] = 1;
    for (size_t m = 1; m <= n; ++m) {
      for (size_t i = m; i > 0; --i) row[i] += row[i - 1];
    }
    uint64_t sum = 0;
    for (size_t k = 0; k <= n; ++k) {
      sum += row[k];
      const double want =
          std::ldexp(static_cast<double>(sum), -static_cast<int>(n));
      const double got = BinomialHalfCdf(n, k);
      EXPECT_LE(std::fabs(got - want), 1e-13 * want)
          << "n=" << n << " k=" << k << " got " << got << " want " << want;
      ++points;
    }
  }
  EXPECT_EQ(points, 1890);
  EXPECT_EQ(BinomialHalfCdf(5, 9), 1.0);
}

TEST(MannWhitneyNormal, MatchesScipyValue) {
  // scipy.stats.mannwhitneyu(a, b) (method "auto": asymptotic here, 10 and
  // 12 values), SciPy 1.10.1: U = 14, p = 0.002698190805807959.
  const MannWhitneyResult r = MannWhitneyU(
      {3.1, 4.7, 2.2, 8.9, 5.5, 6.1, 7.3, 1.8, 9.4, 4.0},
      {6.6, 8.1, 9.9, 7.7, 10.5, 11.2, 5.9, 12.8, 8.6, 13.1, 9.0, 10.1});
  EXPECT_EQ(r.method, PMethod::kNormal);
  EXPECT_EQ(r.u, 14.0);
  EXPECT_LE(std::fabs(r.p - 0.002698190805807959), 1e-12 * 0.0027);
}

}  // namespace
}  // namespace perfcounters::tools
