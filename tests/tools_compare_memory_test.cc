// tools_compare_memory_test.cc: `perfcounters compare`'s peak memory is at
// most 3x its inputs' size whatever their shape (issue 39 item 7): many
// 1-repetition benchmarks (the most benchmarks per input byte), few
// benchmarks with 40 counters (the most metrics per byte), and many small
// 3-repetition benchmarks (the shape). The built command runs on
// files generated here (bench/generated_json.h, the layouts of
// bench/compare_memory_bench) with --format json; its peak RSS is the
// child's ru_maxrss from wait4(2) (bench/run_child.h).
//
// The process's fixed part (the command's code and shared libraries,
// about 15 MB, none of it input) is measured in the same test, as the peak
// RSS of a compare of two files of one benchmark each, and subtracted: the
// bound is on what the inputs cost, (peak - fixed) <= 3 x input bytes. The
// inputs are 30 to 45 MB, so that the fixed part is a third of the input
// or less and the per-benchmark and per-metric costs dominate. Before the
// comparison's per-benchmark index and per-metric samples were made small,
// the first two shapes took 3.5x and 3.3x.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "generated_json.h"
#include "gtest/gtest.h"
#include "run_child.h"
#include "support/sanitizers.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using bench_support::Shape;
using bench_support::SmallEntries;

class CompareMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::perfcounters::testing::kSanitizer != nullptr) {
      GTEST_SKIP() << "the command is built with "
                   << ::perfcounters::testing::kSanitizer
                   << ", whose allocator's redzones and shadow are not the "
                      "shipped command's memory";
    }
    dir_ = testing::ScratchPath("memory");
    ASSERT_TRUE(testing::MakeDirectories(dir_, /*fresh=*/true));
    // The fixed part: two files of one benchmark each.
    Write("one", 1, SmallEntries{.repetitions = 1, .counters = 3});
    const bench_support::Child fixed = Compare("one");
    ASSERT_EQ(fixed.status, 0);
    fixed_ = fixed.peak_rss;
  }

  // Writes the pair `tag` of `benchmarks` benchmarks; returns their bytes.
  uint64_t Write(const std::string& tag, int benchmarks, SmallEntries shape) {
    return bench_support::GenerateGbenchJson(Path(tag, "base"), 1, 1.0,
                                             benchmarks, 0,
                                             Shape::kSmallEntries, shape) +
           bench_support::GenerateGbenchJson(Path(tag, "new"), 2, 1.01,
                                             benchmarks, 0,
                                             Shape::kSmallEntries, shape);
  }
  std::string Path(const std::string& tag, const char* side) const {
    return dir_ + "/" + tag + "_" + side + ".json";
  }
  bench_support::Child Compare(const std::string& tag) const {
    return bench_support::RunChild(
        testing::ToolPath(), {"compare", Path(tag, "base"), Path(tag, "new"),
                              "--format", "json", "-o", "/dev/null"});
  }

  // Compares the pair `tag` and checks the bound.
  void ExpectWithinThreeTimes(const std::string& tag, int benchmarks,
                              SmallEntries shape) {
    const uint64_t input = Write(tag, benchmarks, shape);
    const bench_support::Child peak = Compare(tag);
    ASSERT_EQ(peak.status, 0) << tag;
    const double ratio =
        (static_cast<double>(peak.peak_rss) - static_cast<double>(fixed_)) /
        static_cast<double>(input);
    std::printf(
        "%s: inputs %.1f MB, peak RSS %.1f MB, fixed %.1f MB: "
        "(peak - fixed) / inputs = %.2f\n",
        tag.c_str(), static_cast<double>(input) / 1e6,
        static_cast<double>(peak.peak_rss) / 1e6,
        static_cast<double>(fixed_) / 1e6, ratio);
    // The inputs are large enough for the bound to mean something.
    EXPECT_GT(static_cast<double>(input), 2.0 * static_cast<double>(fixed_));
    EXPECT_LE(ratio, 3.0) << tag << ": peak RSS " << peak.peak_rss
                          << " bytes, fixed " << fixed_ << ", inputs " << input;
  }

  std::string dir_;
  uint64_t fixed_ = 0;
};

TEST_F(CompareMemory, ManyOneRepetitionBenchmarks) {
  ExpectWithinThreeTimes("one_rep", 100000,
                         SmallEntries{.repetitions = 1, .counters = 0});
}

TEST_F(CompareMemory, FewBenchmarksWithManyCounters) {
  ExpectWithinThreeTimes("wide", 6000,
                         SmallEntries{.repetitions = 3, .counters = 40});
}

TEST_F(CompareMemory, ManySmallBenchmarksOfThreeRepetitions) {
  ExpectWithinThreeTimes("small", 20000,
                         SmallEntries{.repetitions = 3, .counters = 3});
}

}  // namespace
}  // namespace perfcounters::tools
