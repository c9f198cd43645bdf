// perf_names_test.cc: perf_names.h's tables, the names perf uses for
// attr's types, flag words and cache ids, formatted and parsed back.
// EncodeAttr's renderings: encode_test.cc.
#include "perfcounters/perf_names.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perfcounters {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(PerfNamesTest, TypeNames) {
  EXPECT_EQ(PerfTypeName(PERF_TYPE_HARDWARE), "PERF_TYPE_HARDWARE");
  EXPECT_EQ(PerfTypeName(PERF_TYPE_SOFTWARE), "PERF_TYPE_SOFTWARE");
  EXPECT_EQ(PerfTypeName(PERF_TYPE_TRACEPOINT), "PERF_TYPE_TRACEPOINT");
  EXPECT_EQ(PerfTypeName(PERF_TYPE_HW_CACHE), "PERF_TYPE_HW_CACHE");
  EXPECT_EQ(PerfTypeName(PERF_TYPE_RAW), "PERF_TYPE_RAW");
  EXPECT_EQ(PerfTypeName(PERF_TYPE_BREAKPOINT), "PERF_TYPE_BREAKPOINT");
  EXPECT_EQ(PerfTypeName(6), "");
  EXPECT_EQ(HwCacheIdName(PERF_COUNT_HW_CACHE_NODE),
            "PERF_COUNT_HW_CACHE_NODE");
  EXPECT_EQ(HwCacheIdName(PERF_COUNT_HW_CACHE_MAX), "");
  EXPECT_EQ(HwCacheOpName(PERF_COUNT_HW_CACHE_OP_PREFETCH),
            "PERF_COUNT_HW_CACHE_OP_PREFETCH");
  EXPECT_EQ(HwCacheOpName(PERF_COUNT_HW_CACHE_OP_MAX), "");
  EXPECT_EQ(HwCacheResultName(PERF_COUNT_HW_CACHE_RESULT_ACCESS),
            "PERF_COUNT_HW_CACHE_RESULT_ACCESS");
  EXPECT_EQ(HwCacheResultName(PERF_COUNT_HW_CACHE_RESULT_MAX), "");
}

TEST(PerfNamesTest, FlagWordsInPerfOrder) {
  EXPECT_EQ(SampleTypeNames(0), "");
  EXPECT_EQ(
      SampleTypeNames(PERF_SAMPLE_TIME | PERF_SAMPLE_IP | PERF_SAMPLE_TID),
      "IP|TID|TIME");
  // perf prints IDENTIFIER (bit 16) before DATA_SRC (15) and WEIGHT (14).
  EXPECT_EQ(SampleTypeNames(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
                            PERF_SAMPLE_IDENTIFIER),
            "IDENTIFIER|DATA_SRC|WEIGHT");
  EXPECT_EQ(SampleTypeNames(PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_IP),
            "IP|TRANSACTION");
  EXPECT_EQ(SampleTypeNames(PERF_SAMPLE_IP | uint64_t{3} << 60),
            "IP|0x3000000000000000");
  EXPECT_EQ(ReadFormatNames(PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                            PERF_FORMAT_TOTAL_TIME_ENABLED |
                            PERF_FORMAT_TOTAL_TIME_RUNNING),
            "TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|GROUP");
  EXPECT_EQ(ReadFormatNames(1 << 5), "0x20");
  EXPECT_EQ(BranchSampleTypeNames(PERF_SAMPLE_BRANCH_PRIV_SAVE |
                                  PERF_SAMPLE_BRANCH_USER),
            "USER|PRIV_SAVE");
}

TEST(PerfNamesTest, EveryDefinedBitHasAName) {
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t value = uint64_t{1} << bit;
    bool sample_defined = value < PERF_SAMPLE_MAX;
    EXPECT_EQ(SampleTypeNames(value).starts_with("0x"), !sample_defined)
        << "sample_type bit " << bit << ": " << SampleTypeNames(value);
    bool format_defined = value < PERF_FORMAT_MAX;
    EXPECT_EQ(ReadFormatNames(value).starts_with("0x"), !format_defined)
        << "read_format bit " << bit;
    bool branch_defined = value < PERF_SAMPLE_BRANCH_MAX;
    EXPECT_EQ(BranchSampleTypeNames(value).starts_with("0x"), !branch_defined)
        << "branch_sample_type bit " << bit;
  }
}

TEST(PerfNamesTest, ParseIsTheInverseOfFormat) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{0x1ffffff},
                         uint64_t{0x10007}, ~uint64_t{0}}) {
    absl::StatusOr<uint64_t> parsed = ParseSampleType(SampleTypeNames(value));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, value);
    parsed = ParseReadFormat(ReadFormatNames(value));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, value);
    parsed = ParseBranchSampleType(BranchSampleTypeNames(value));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, value);
  }
  EXPECT_EQ(*ParseSampleType("ip | perf_sample_tid|Time"),
            uint64_t{PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME});
  EXPECT_EQ(*ParseReadFormat("PERF_FORMAT_GROUP|id"),
            uint64_t{PERF_FORMAT_GROUP | PERF_FORMAT_ID});
}

TEST(PerfNamesTest, ParseRejectsUnknownWords) {
  absl::Status s = ParseSampleType("IP|TIDD").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("sample_type"), HasSubstr("\"TIDD\""),
                    HasSubstr("TID"), HasSubstr("0x100")));
  EXPECT_THAT(ParseReadFormat("GROUP|").status().message(),
              HasSubstr("read_format flag \"\""));
  EXPECT_THAT(ParseBranchSampleType("0xZZ").status().message(),
              HasSubstr("branch_sample_type flag \"0xZZ\""));
}

}  // namespace
}  // namespace perfcounters
