// tools_paired_stats_test.cc: the statistics of `perfcounters ab`
// (paired_stats.h) against hand-derived binomial quantiles (exact
// fractions: sum of C(n, i) / 2^n, computed once with Python's fractions
// and math.comb) and against their promise, the coverage of the median,
// on synthetic skewed pairs. The command: tools_ab_test.cc.
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "paired_stats.h"
#include "statistics.h"

namespace perfcounters::tools {
namespace {

// The largest r with 2 P(B(n, 1/2) <= r - 1) <= 1 - confidence, for
// n = 1..40 (0: no interval), from exact fractions.
constexpr size_t kRank95[40] = {
    0, 0, 0, 0, 0, 1, 1, 1, 2, 2,  2,  3,  3,  3,  4,  4,  5,  5,  5,  6,
    6, 6, 7, 7, 8, 8, 8, 9, 9, 10, 10, 10, 11, 11, 12, 12, 13, 13, 13, 14};
constexpr size_t kRank99[40] = {0, 0, 0, 0, 0, 0,  0,  1,  1,  1,  1,  2, 2, 2,
                                3, 3, 3, 4, 4, 4,  5,  5,  5,  6,  6,  7, 7, 7,
                                8, 8, 8, 9, 9, 10, 10, 10, 11, 11, 12, 12};

TEST(PairedStats, RanksMatchExactBinomialQuantiles) {
  for (size_t n = 1; n <= 40; ++n) {
    EXPECT_EQ(SignTestRank(n, 0.95), kRank95[n - 1]) << "n=" << n;
    EXPECT_EQ(SignTestRank(n, 0.99), kRank99[n - 1]) << "n=" << n;
  }
  EXPECT_EQ(SignTestMinimumPairs(0.95), 6u);
  EXPECT_EQ(SignTestMinimumPairs(0.99), 8u);
}

TEST(PairedStats, BinomialCdfMatchesExactValues) {
  EXPECT_NEAR(BinomialHalfCdf(10, 2), 56.0 / 1024, 1e-14);
  EXPECT_NEAR(BinomialHalfCdf(20, 5), 0.020694732666015625, 1e-13);
  EXPECT_NEAR(BinomialHalfCdf(100, 39), 0.017600100108852407, 1e-12);
  EXPECT_NEAR(BinomialHalfCdf(6, 0), 1.0 / 64, 1e-15);
  EXPECT_DOUBLE_EQ(BinomialHalfCdf(6, 6), 1.0);
  // Far past where 2^-n underflows a double.
  EXPECT_NEAR(BinomialHalfCdf(2000, 1000), 0.5 + 0.5 * 0.017839, 1e-4);
}

TEST(PairedStats, IntervalIsThePairOfOrderStatistics) {
  // 10 values, shuffled: r = 2, so [x(2), x(9)], coverage 1 - 2 * 11/1024.
  std::vector<double> v = {0.5, -0.3, 0.9, 0.1, -0.8, 0.2, 0.7, -0.1, 0.4, 0.3};
  const PairedInterval in = SignTestInterval(v, 0.95);
  ASSERT_TRUE(in.valid);
  EXPECT_EQ(in.n, 10u);
  EXPECT_DOUBLE_EQ(in.low, -0.3);
  EXPECT_DOUBLE_EQ(in.high, 0.7);
  EXPECT_DOUBLE_EQ(in.median, 0.25);
  EXPECT_NEAR(in.coverage, 1 - 2 * 11.0 / 1024, 1e-12);
  // 7 positive, 3 negative: p = 2 P(B(10) <= 3) = 2 * 176/1024.
  EXPECT_NEAR(in.p, 2 * 176.0 / 1024, 1e-12);
  // Five values give no 95 % interval; all positive: p = 2/32.
  const PairedInterval few = SignTestInterval({1, 2, 3, 4, 5}, 0.95);
  EXPECT_FALSE(few.valid);
  EXPECT_NEAR(few.p, 2.0 / 32, 1e-12);
}

TEST(PairedStats, LogRatiosRefuseWhatHasNoRatio) {
  EXPECT_TRUE(LogRatios({1, 2}, {1}).empty());
  EXPECT_TRUE(LogRatios({1, 0}, {1, 1}).empty());
  EXPECT_TRUE(LogRatios({1, 1}, {1, -1}).empty());
  const std::vector<double> r = LogRatios({2, 4}, {2, 5});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0], 0);
  EXPECT_DOUBLE_EQ(r[1], std::log(1.25));
}

// The interval's promise: it covers the true median of skewed log-ratios
// (exponential noise, as interruptions slow one side) at least at its
// confidence. 4000 samples of 20 pairs: the exact coverage is 0.958611;
// 3 standard errors below it is 0.9492.
TEST(PairedStats, CoversTheMedianOfSkewedPairs) {
  std::mt19937_64 rng(40);
  std::exponential_distribution<double> noise(50.0);  // mean 2 %
  const double true_log_ratio = std::log(1.03);
  const double noise_median = std::log(2.0) / 50.0;
  int covered = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v;
    for (int i = 0; i < 20; ++i) v.push_back(true_log_ratio + noise(rng));
    const PairedInterval in = SignTestInterval(v, 0.95);
    const double median = true_log_ratio + noise_median;
    covered += in.low <= median && median <= in.high;
  }
  EXPECT_GE(covered / static_cast<double>(trials), 0.9492);
  EXPECT_LE(covered / static_cast<double>(trials), 0.9700);
}

}  // namespace
}  // namespace perfcounters::tools
