// tools_compare_library_test.cc: the library under `perfcounters compare`
// (tools_compare_test.cc runs the command): loading gbench JSON, the
// statistics (Mann-Whitney U, median), name filters, and what the fuzzers
// found.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::perfcounters::testing::IsOk;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string& kData = testing::kTestdata;

// ---- Library: loading.

TEST(GbenchJson, CountersUnitsAndNotCounted) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  absl::StatusOr<BenchmarkFile> f = LoadBenchmarkJson(kData + "/base.json");
  ASSERT_TRUE(f.ok()) << f.status();
  // BM_copy is in microseconds: 2.1 us = 2100 ns.
  const RunEntry* copy = nullptr;
  for (const RunEntry& e : f->entries) {
    if (e.name == "BM_copy" && e.repetition_index == 1) copy = &e;
  }
  ASSERT_NE(copy, nullptr);
  EXPECT_DOUBLE_EQ(*copy->real_time_ns, 2100.0);
  // "cycles.not_counted": 1 makes a not-counted "cycles", never a 0.
  bool saw_cycles = false;
  for (const EntryCounter& c : copy->counters) {
    if (f->counter_names[c.name] == "cycles") {
      saw_cycles = true;
      EXPECT_FALSE(c.counted);
    }
    EXPECT_NE(f->counter_names[c.name], "cycles.not_counted");
  }
  EXPECT_TRUE(saw_cycles);
}

TEST(GbenchJson, BareNanIsNotCounted) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  absl::StatusOr<BenchmarkFile> f =
      LoadBenchmarkJson(kData + "/nan_counter.json");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->entries.size(), 1u);
  ASSERT_EQ(f->entries[0].counters.size(), 2u);
  EXPECT_EQ(f->counter_names[f->entries[0].counters[0].name], "cycles");
  EXPECT_FALSE(f->entries[0].counters[0].counted);
  EXPECT_TRUE(f->entries[0].counters[1].counted);
  EXPECT_EQ(f->entries[0].counters[1].value, 6000.0);
}

TEST(GbenchJson, IntegersBeyondSixtyFourBitsAreRead) {
  const std::string text =
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 5, "
      "\"cpu_time\": 4, \"big\": 18446744073709551616}]}";
  absl::StatusOr<BenchmarkFile> f = ParseBenchmarkJson(text, "mem");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->entries[0].counters.size(), 1u);
  EXPECT_EQ(f->entries[0].counters[0].value, 18446744073709551616.0);
  EXPECT_EQ(*f->entries[0].cpu_time_ns, 4.0);
}

// ---- Library: statistics.

// Brute force: the two-sided exact p-value by enumerating every split.
double BruteForceP(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  const size_t n = all.size(), m = a.size();
  auto u_of = [&](const std::vector<bool>& in_a) {
    double u = 0;
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (in_a[i] && !in_a[j] && all[i] > all[j]) u += 1;
      }
    }
    return u;
  };
  std::vector<bool> mask(n, false);
  std::fill(mask.begin(), mask.begin() + m, true);
  const double observed = u_of(mask);
  const double mean = static_cast<double>(m * (n - m)) / 2;
  const double dev = std::fabs(observed - mean);
  double extreme = 0, total = 0;
  std::vector<bool> sel(n, false);
  std::fill(sel.end() - m, sel.end(), true);
  do {
    total += 1;
    if (std::fabs(u_of(sel) - mean) >= dev - 1e-9) extreme += 1;
  } while (std::next_permutation(sel.begin(), sel.end()));
  return extreme / total;
}

TEST(MannWhitney, ExactMatchesEnumeration) {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases =
      {{{1, 2, 3}, {4, 5, 6}},
       {{1, 5, 3}, {4, 2, 6}},
       {{1, 2, 3, 4}, {5, 6, 7, 8}},
       {{1.5, 9, 3, 7, 2}, {4, 8, 6, 10, 11, 12}},
       {{10, 20}, {15, 25, 30, 5, 1}}};
  for (const auto& [a, b] : cases) {
    const MannWhitneyResult r = MannWhitneyU(a, b);
    EXPECT_EQ(r.method, PMethod::kExact);
    EXPECT_NEAR(r.p, BruteForceP(a, b), 1e-12)
        << absl::StrJoin(a, ",") << " vs " << absl::StrJoin(b, ",");
  }
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // a = {1,2,2,3}, b = {2,3,4,5}: ranks 1 | 3,3,3 (tie of three 2s) |
  // 5.5,5.5 (two 3s) | 7 | 8. R_a = 1+3+3+5.5 = 12.5, U_a = 12.5-10 = 2.5,
  // U_max = 13.5, mu = 8, tie term = (27-3)+(8-2) = 30,
  // var = 16/12 * (9 - 30/56), z = (13.5-8-0.5)/sqrt(var).
  const MannWhitneyResult r = MannWhitneyU({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_EQ(r.method, PMethod::kNormal);
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  const double var = 16.0 / 12.0 * (9.0 - 30.0 / 56.0);
  const double z = 5.0 / std::sqrt(var);
  EXPECT_NEAR(r.p, std::erfc(z / std::sqrt(2.0)), 1e-12);
  // Everything tied: p = 1.
  EXPECT_EQ(MannWhitneyU({3, 3}, {3, 3}).p, 1.0);
}

TEST(Median, OddAndEven) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({7}), 7);
}

// Regressions found by fuzz/gbench_json_fuzzer and fuzz/gate_fuzzer.

// MetricNames() kept string_views into the vector it was growing (a
// heap-use-after-free under ASan once a file had a few counters).
TEST(FuzzRegression, MetricNamesWithManyCounters) {
  std::string json = R"({"benchmarks": [{"name": "BM_x", "run_name": "BM_x",
      "run_type": "iteration", "iterations": 1, "real_time": 1,
      "cpu_time": 1, "time_unit": "ns")";
  std::vector<std::string> want = {"real_time", "cpu_time"};
  for (int i = 0; i < 40; ++i) {
    const std::string name = absl::StrCat("counter_with_a_long_name_", i);
    absl::StrAppend(&json, ", \"", name, "\": ", i + 1);
    want.push_back(name);
  }
  json += "}]}";
  absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(json, "many.json");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(MetricNames(Compare(*file, *file)), want);
}

// A gate that is not UTF-8 (it comes from the command line) made the JSON
// output throw nlohmann's type_error 316 (std::terminate); invalid bytes are
// now written as U+FFFD. (Such a filter no longer parses: RE2 says why.)
TEST(FuzzRegression, JsonOutputOfANonUtf8Gate) {
  absl::StatusOr<BenchmarkFile> file = LoadBenchmarkJson(kData + "/base.json");
  if (!file.ok()) GTEST_SKIP() << file.status();
  const Comparison comparison = Compare(*file, *file);
  absl::StatusOr<Gate> rejected =
      ParseGate("BM_\xff.*:cpu_time>5%", MetricNames(comparison));
  ASSERT_THAT(rejected, Not(IsOk()));
  EXPECT_THAT(std::string(rejected.status().message()),
              HasSubstr("invalid UTF-8"));
  absl::StatusOr<Gate> gate =
      ParseGate("BM_.*:cpu_time>5%", MetricNames(comparison));
  ASSERT_TRUE(gate.ok()) << gate.status();
  gate->text = "BM_\xff.*:cpu_time>5%";
  const std::string out =
      Render(comparison, EvaluateGates(comparison, {*gate}), Format::kJson,
             /*color=*/false);
  EXPECT_THAT(out, HasSubstr("BM_\xef\xbf\xbd.*:cpu_time>5%"));
}

// Filters are RE2: repetition counts over 1000 or an automaton over 1 MiB
// are a clear error (libstdc++'s regex compiler overflowed, UB, on huge
// counts), and so are back-references, with a hint that the syntax is RE2's.
// (Like Perl, RE2 reads a count too long to be one, a{0,99999999999}, as
// literal text.)
TEST(FuzzRegression, HugeRegexCountsAreAClearError) {
  const std::vector<std::string> metrics = {"real_time", "cpu_time", "IPC"};
  for (const char* text : {"a{0,1001}:IPC<-1%", "a{1001}:real_time>1ms",
                           "(((a{100}){100}){100}):cpu_time>5%"}) {
    absl::StatusOr<Gate> gate = ParseGate(text, metrics);
    ASSERT_FALSE(gate.ok()) << text;
    EXPECT_THAT(std::string(gate.status().message()),
                AllOf(HasSubstr("is not a valid regular expression"),
                      HasSubstr("repetition")))
        << text;
  }
  absl::StatusOr<Gate> backref = ParseGate("(BM_.)\\1:cpu_time>5%", metrics);
  ASSERT_THAT(backref, Not(IsOk()));
  EXPECT_THAT(std::string(backref.status().message()),
              AllOf(HasSubstr("(BM_.)\\1"), HasSubstr("RE2")));
  // Long plain numbers (benchmark arguments) are fine.
  absl::StatusOr<Gate> gate =
      ParseGate("BM_alloc/1073741824:cpu_time>5%", metrics);
  EXPECT_TRUE(gate.ok()) << gate.status();
}

// Stacked quantifiers made std::regex_search backtrack for minutes (CI's
// gate_fuzzer timed out on one); RE2 matches in time linear in the name, so
// these finish at once and still match correctly.
TEST(FuzzRegression, PathologicalFiltersMatchInLinearTime) {
  const std::string name = "BM_" + std::string(64, 'a') + "/1";
  struct Case {
    std::string pattern;
    bool matches;
  };
  const Case cases[] = {
      {"(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*(a*)*b", false},
      {"^BM_(a|aa)*(a|aa)*(a|aa)*(a|aa)*/1$", true},
      {"((((((.*)*)*)*)*)*)*x", false},
      {"(.*.*.*.*.*.*.*.*.*.*.*.*)*/2", false},
  };
  for (const Case& c : cases) {
    absl::StatusOr<NameFilter> filter = NameFilter::Create(c.pattern);
    ASSERT_TRUE(filter.ok()) << filter.status();
    EXPECT_EQ(filter->Matches(name), c.matches) << c.pattern;
  }
}

TEST(NameFilter, SearchesAnywhereInTheName) {
  absl::StatusOr<NameFilter> filter = NameFilter::Create("sort/[0-9]+");
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_TRUE(filter->Matches("BM_sort/1024"));
  EXPECT_TRUE(filter->Matches("BM_stable_sort/8/real_time"));
  EXPECT_FALSE(filter->Matches("BM_sort/x"));
  EXPECT_EQ(filter->pattern(), "sort/[0-9]+");
  // Copies share the compiled expression.
  const NameFilter copy = *filter;
  EXPECT_TRUE(copy.Matches("BM_sort/1"));
  absl::StatusOr<NameFilter> bad = NameFilter::Create("BM_(sort");
  ASSERT_THAT(bad, Not(IsOk()));
  EXPECT_THAT(std::string(bad.status().message()),
              AllOf(HasSubstr("'BM_(sort'"), HasSubstr("missing )")));
}

}  // namespace
}  // namespace perfcounters::tools
