// record_builder.h: synthetic perf records for the record decoder's tests
// (records_test, records_malformed_test): a record's bytes as the kernel
// writes them, and the full sample_id trailer.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_RECORD_BUILDER_H_
#define PERFCOUNTERS_TESTS_SUPPORT_RECORD_BUILDER_H_

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "perfcounters/records.h"

namespace perfcounters::testing {

// Builds one record's bytes, little-endian as the kernel writes them.
class RecordBuilder {
 public:
  RecordBuilder(uint32_t type, uint16_t misc) : type_(type), misc_(misc) {}

  template <typename T>
  RecordBuilder& Put(T v) {
    // resize + memcpy: a range insert into the empty body draws a false
    // -Wnonnull from GCC 12 at -O3 (memmove from its null data()).
    const size_t at = body_.size();
    body_.resize(at + sizeof(T));
    std::memcpy(body_.data() + at, &v, sizeof(T));
    return *this;
  }
  RecordBuilder& PutBytes(const std::vector<uint8_t>& b) {
    body_.insert(body_.end(), b.begin(), b.end());
    return *this;
  }
  // A NUL-terminated string padded to 8 bytes, as the kernel writes names.
  RecordBuilder& PutString(const std::string& s) {
    body_.insert(body_.end(), s.begin(), s.end());
    do {
      body_.push_back(0);
    } while (body_.size() % 8 != 0);
    return *this;
  }
  RecordBuilder& Pad8() {
    while (body_.size() % 8 != 0) body_.push_back(0);
    return *this;
  }
  std::vector<uint8_t> Build() const {
    // Sized once and filled with memcpy: inserting into an 8-byte vector
    // draws a false -Warray-bounds/-Wnonnull from GCC 12 at -O3.
    std::vector<uint8_t> out(8 + body_.size());
    const uint16_t size = static_cast<uint16_t>(out.size());
    std::memcpy(out.data(), &type_, 4);
    std::memcpy(out.data() + 4, &misc_, 2);
    std::memcpy(out.data() + 6, &size, 2);
    if (!body_.empty()) {
      std::memcpy(out.data() + 8, body_.data(), body_.size());
    }
    return out;
  }

 private:
  uint32_t type_;
  uint16_t misc_;
  std::vector<uint8_t> body_;
};

inline constexpr uint64_t kIdBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                    PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                                    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

inline RecordFormat TrailerFormat() {
  RecordFormat f;
  f.sample_type = kIdBits;
  f.sample_id_all = true;
  f.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                  PERF_FORMAT_TOTAL_TIME_ENABLED |
                  PERF_FORMAT_TOTAL_TIME_RUNNING;
  return f;
}

// Appends a full sample_id trailer and returns what it should decode to.
inline SampleId PutTrailer(RecordBuilder& b) {
  b.Put<uint32_t>(101).Put<uint32_t>(102);  // pid, tid
  b.Put<uint64_t>(103);                     // time
  b.Put<uint64_t>(104);                     // id
  b.Put<uint64_t>(105);                     // stream_id
  b.Put<uint32_t>(3).Put<uint32_t>(0);      // cpu, res
  b.Put<uint64_t>(106);                     // identifier
  SampleId id;
  id.pid = 101;
  id.tid = 102;
  id.time = 103;
  id.id = 104;
  id.stream_id = 105;
  id.cpu = 3;
  id.identifier = 106;
  return id;
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_RECORD_BUILDER_H_
