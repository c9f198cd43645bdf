// fault_records_test.cc: regressions found by fuzz/records_fuzzer, decoded
// from hand-built records (run under UBSan in scripts/ci-hardening).
#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "perfcounters/records.h"

namespace perfcounters {
namespace {

// A PERF_RECORD_SAMPLE with the given u64 body words.
std::vector<uint8_t> Sample(const std::vector<uint64_t>& words) {
  const perf_event_header header{PERF_RECORD_SAMPLE, 0,
                                 static_cast<uint16_t>(8 + 8 * words.size())};
  std::vector<uint8_t> out(header.size);
  std::memcpy(out.data(), &header, sizeof(header));
  std::memcpy(out.data() + 8, words.data(), 8 * words.size());
  return out;
}

// An empty callchain (nr = 0) copied 0 bytes from a null vector data() —
// undefined behaviour that UBSan reported.
TEST(FaultRecordsTest, EmptyCallchainDecodesToAnEmptyVector) {
  RecordFormat format;
  format.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  absl::StatusOr<Record> r = DecodeRecord(Sample({0x401000, 0}), format);
  ASSERT_TRUE(r.ok()) << r.status();
  const SampleRecord* s = r->As<SampleRecord>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->ip, 0x401000u);
  ASSERT_TRUE(s->callchain.has_value());
  EXPECT_TRUE(s->callchain->empty());
}

// A callchain claiming more entries than the record holds is DataLoss
// naming the field, never a read past the record.
TEST(FaultRecordsTest, OversizedCallchainIsDataLoss) {
  RecordFormat format;
  format.sample_type = PERF_SAMPLE_CALLCHAIN;
  absl::StatusOr<Record> r =
      DecodeRecord(Sample({uint64_t{1} << 61, 1, 2}), format);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("callchain"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace perfcounters
