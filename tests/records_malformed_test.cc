// Malformed records for the record decoder (records.h): every truncation,
// oversized records and counts, random bytes and bad headers are errors,
// never a crash, a wrong value or a huge allocation. Well-formed records:
// records_test.
#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/records.h"
#include "support/record_builder.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::RecordBuilder;
using ::perfcounters::testing::TrailerFormat;
using ::testing::HasSubstr;

// Every truncation of a valid record (header.size kept consistent with the
// bytes given) must be an error, never a crash or a wrong value.
TEST(RecordsTest, EveryTruncationOfAFullSampleIsAnError) {
  RecordFormat f;
  f.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ |
                  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
                  PERF_SAMPLE_STACK_USER;
  f.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  RecordBuilder b(PERF_RECORD_SAMPLE, 0);
  b.Put<uint64_t>(1).Put<uint32_t>(2).Put<uint32_t>(3);
  b.Put<uint64_t>(1).Put<uint64_t>(10).Put<uint64_t>(11);
  b.Put<uint64_t>(2).Put<uint64_t>(5).Put<uint64_t>(6);
  b.Put<uint32_t>(4).PutBytes({1, 2, 3, 4});
  b.Put<uint64_t>(8).Put<uint64_t>(0).Put<uint64_t>(8);
  const std::vector<uint8_t> full = b.Build();
  ASSERT_THAT(DecodeRecord(full, f), IsOk());
  for (size_t len = 8; len < full.size(); len += 4) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + len);
    const uint16_t size = static_cast<uint16_t>(len);
    std::memcpy(cut.data() + 6, &size, 2);
    absl::StatusOr<Record> r = DecodeRecord(cut, f);
    EXPECT_FALSE(r.ok()) << "length " << len;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss) << len;
    EXPECT_THAT(r.status().message(), HasSubstr("perf record sample"));
  }
}

TEST(RecordsTest, TruncatedNonSampleRecordsNameTypeAndField) {
  RecordBuilder b(PERF_RECORD_FORK, 0);
  b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint32_t>(3);  // no ptid, no time
  absl::StatusOr<Record> r = DecodeRecord(b.Build(), RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("fork"));
  EXPECT_THAT(r.status().message(), HasSubstr("ptid"));

  // A trailer that does not fit.
  RecordBuilder s(PERF_RECORD_SWITCH, 0);
  s.Put<uint64_t>(1);
  r = DecodeRecord(s.Build(), TrailerFormat());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("switch"));
  EXPECT_THAT(r.status().message(), HasSubstr("trailer"));
}

TEST(RecordsTest, OversizedRecordIsAnError) {
  RecordBuilder b(PERF_RECORD_LOST, 0);
  b.Put<uint64_t>(1).Put<uint64_t>(2).Put<uint64_t>(3);  // one u64 too many
  absl::StatusOr<Record> r = DecodeRecord(b.Build(), RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("lost"));
  EXPECT_THAT(r.status().message(), HasSubstr("8 unexpected bytes"));

  RecordFormat f;
  f.sample_type = PERF_SAMPLE_IP;
  RecordBuilder s(PERF_RECORD_SAMPLE, 0);
  s.Put<uint64_t>(1).Put<uint64_t>(2);
  EXPECT_FALSE(DecodeRecord(s.Build(), f).ok());
}

TEST(RecordsTest, HugeCountsAreErrorsNotAllocations) {
  RecordFormat f;
  f.sample_type = PERF_SAMPLE_CALLCHAIN;
  RecordBuilder b(PERF_RECORD_SAMPLE, 0);
  b.Put<uint64_t>(~uint64_t{0}).Put<uint64_t>(1);
  absl::StatusOr<Record> r = DecodeRecord(b.Build(), f);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("callchain.ips"));

  f.sample_type = PERF_SAMPLE_RAW;
  RecordBuilder raw(PERF_RECORD_SAMPLE, 0);
  raw.Put<uint32_t>(0xffffffff).Put<uint32_t>(0);
  r = DecodeRecord(raw.Build(), f);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("raw.data"));

  f.sample_type = PERF_SAMPLE_READ;
  f.read_format = PERF_FORMAT_GROUP;
  RecordBuilder rd(PERF_RECORD_SAMPLE, 0);
  rd.Put<uint64_t>(uint64_t{1} << 61).Put<uint64_t>(1);
  r = DecodeRecord(rd.Build(), f);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("read.values"));

  f.sample_type = PERF_SAMPLE_STACK_USER;
  RecordBuilder st(PERF_RECORD_SAMPLE, 0);
  st.Put<uint64_t>(8).Put<uint64_t>(0).Put<uint64_t>(9);  // dyn_size > size
  r = DecodeRecord(st.Build(), f);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("dyn_size"));

  RecordBuilder ns(PERF_RECORD_NAMESPACES, 0);
  ns.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint64_t>(uint64_t{1} << 60);
  r = DecodeRecord(ns.Build(), RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("namespaces"));
}

// Random bytes under random formats: decoding returns a record or an error,
// and a decoded record never claims more bytes than it was given (run under
// ASan/UBSan this also proves no out-of-bounds read). A deterministic seed
// keeps failures reproducible.
TEST(RecordsTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(20261129);
  int ok = 0, errors = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    RecordFormat f;
    f.sample_type = rng() & ((uint64_t{1} << 25) - 1);
    f.read_format = rng() & 0x1f;
    f.sample_id_all = rng() & 1;
    f.branch_sample_type = rng() & PERF_SAMPLE_BRANCH_HW_INDEX;
    f.sample_regs_user = rng();
    f.sample_regs_intr = rng();
    const size_t len = 8 + 8 * (rng() % 48);
    std::vector<uint8_t> bytes(len);
    // Small values make counts and sizes that sometimes fit.
    for (uint8_t& b : bytes) b = (rng() % 4 == 0) ? rng() & 0xff : rng() % 3;
    const uint32_t type = 1 + rng() % 22;
    const uint16_t size = static_cast<uint16_t>(len);
    const uint16_t misc = static_cast<uint16_t>(rng());
    std::memcpy(bytes.data(), &type, 4);
    std::memcpy(bytes.data() + 4, &misc, 2);
    std::memcpy(bytes.data() + 6, &size, 2);
    absl::StatusOr<Record> r = DecodeRecord(bytes, f);
    if (r.ok()) {
      ++ok;
      EXPECT_EQ(r->header.size, len);
      if (const SampleRecord* s = r->As<SampleRecord>()) {
        if (s->callchain) {
          EXPECT_LE(s->callchain->size() * 8, len);
        }
        if (s->raw) {
          EXPECT_LE(s->raw->size(), len);
        }
      }
    } else {
      ++errors;
      EXPECT_FALSE(r.status().message().empty());
    }
  }
  // Both outcomes occur, so the test exercises the decoders and the checks.
  EXPECT_GT(ok, 100);
  EXPECT_GT(errors, 100);
}

TEST(RecordsTest, BadHeaders) {
  // Fewer than 8 bytes.
  absl::StatusOr<Record> r =
      DecodeRecord(std::vector<uint8_t>{1, 0, 0, 0}, RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  // header.size below 8.
  std::vector<uint8_t> small = RecordBuilder(PERF_RECORD_SWITCH, 0).Build();
  small[6] = 4;
  r = DecodeRecord(small, RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("header.size is 4"));
  // header.size disagreeing with the bytes given.
  std::vector<uint8_t> bytes = RecordBuilder(PERF_RECORD_LOST, 0)
                                   .Put<uint64_t>(1)
                                   .Put<uint64_t>(2)
                                   .Build();
  bytes.push_back(0);
  r = DecodeRecord(bytes, RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("header.size is 24"));
}

}  // namespace
}  // namespace perfcounters
