// record_decoders.h (internal): the bounds-checked reads behind
// DecodeRecord (records.cc): `Cursor`, a position over one record's bytes,
// and the decoders of the sample, the read_format block, the sample_id
// trailer and every other record type's body (record_decoders.cc). No read
// ever touches memory outside the record.
#ifndef PERFCOUNTERS_SRC_RECORD_DECODERS_H_
#define PERFCOUNTERS_SRC_RECORD_DECODERS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/records.h"

namespace perfcounters::internal {

// A bounds-checked reader over one record's bytes: every read that
// would leave the span is refused with an error naming the record type
// and the field.
class Cursor {
 public:
  Cursor(absl::Span<const uint8_t> bytes, std::string_view record)
      : bytes_(bytes), record_(record) {}

  size_t remaining() const { return bytes_.size() - pos_; }
  size_t pos() const { return pos_; }

  // An error naming the record and field that did not fit.
  absl::Status Short(std::string_view field, size_t need) const {
    return absl::DataLossError(absl::StrFormat(
        "perf record %s: field %s needs %u bytes at offset %u, but only %u "
        "remain in the record (truncated or corrupt record)",
        record_, field, need, pos_ + 8, remaining()));
  }

  template <typename T>
  absl::Status Read(std::string_view field, T* out) {
    if (remaining() < sizeof(T)) return Short(field, sizeof(T));
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status ReadOpt(std::string_view field, std::optional<T>* out) {
    T v{};
    RETURN_IF_ERROR(Read(field, &v));
    *out = v;
    return absl::OkStatus();
  }

  absl::Status Bytes(std::string_view field, uint64_t n,
                     std::vector<uint8_t>* out) {
    if (remaining() < n) return Short(field, n);
    out->assign(bytes_.begin() + pos_, bytes_.begin() + pos_ + n);
    pos_ += n;
    return absl::OkStatus();
  }

  // `count` elements of `elem_size` bytes: checks the product without
  // overflowing before anything is allocated.
  absl::Status CheckArray(std::string_view field, uint64_t count,
                          size_t elem_size) const {
    if (count > remaining() / elem_size) {
      return absl::DataLossError(absl::StrFormat(
          "perf record %s: field %s claims %u entries of %u bytes, but only "
          "%u bytes remain in the record",
          record_, field, count, elem_size, remaining()));
    }
    return absl::OkStatus();
  }

  absl::Status U64Array(std::string_view field, uint64_t count,
                        std::vector<uint64_t>* out) {
    RETURN_IF_ERROR(CheckArray(field, count, 8));
    out->resize(count);
    // memcpy from/to an empty vector's null data() is undefined even for 0.
    if (count != 0) std::memcpy(out->data(), bytes_.data() + pos_, count * 8);
    pos_ += count * 8;
    return absl::OkStatus();
  }

  // A NUL-terminated, padded string filling the rest of the span.
  std::string RestAsString() {
    const char* p = reinterpret_cast<const char*>(bytes_.data() + pos_);
    size_t n = remaining();
    size_t len = strnlen(p, n);
    pos_ = bytes_.size();
    return std::string(p, len);
  }

  // Requires the cursor to have consumed everything.
  absl::Status ExpectEnd() const {
    if (remaining() == 0) return absl::OkStatus();
    return absl::DataLossError(absl::StrFormat(
        "perf record %s: %u unexpected bytes after the last field (the "
        "record format does not match the event's attr?)",
        record_, remaining()));
  }

 private:
  absl::Span<const uint8_t> bytes_;
  size_t pos_ = 0;
  std::string_view record_;
};

// The sample_id trailer of a non-sample record (sample_id_all).
absl::Status DecodeSampleId(Cursor& c, const RecordFormat& f, SampleId* id);
// The read_format block of PERF_RECORD_READ and of a sample's
// PERF_SAMPLE_READ.
absl::Status DecodeReadValues(Cursor& c, uint64_t read_format, ReadValues* out);
// A PERF_RECORD_SAMPLE's body, every field sample_type selects.
absl::Status DecodeSample(Cursor& c, const RecordFormat& f, SampleRecord* s);
// The body of any other record (without its sample_id trailer).
absl::Status DecodeBody(Cursor& c, const RecordHeader& h, RecordBody* body);

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_RECORD_DECODERS_H_
