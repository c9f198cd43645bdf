// records_fuzzer.cc: libFuzzer target for the ring-buffer record decoder
// (records.h). The input is a RecordFormat followed by the bytes of a ring:
//
//   bytes 0-7    sample_type          bytes 8-15  read_format
//   bytes 16-23  branch_sample_type   bytes 24-31 sample_regs_user
//   bytes 32-39  sample_regs_intr     byte 40     bit 0: sample_id_all
//   bytes 41-42  data_tail offset     bytes 43-  the ring's data
//
// The ring (the data rounded down to a power of two, at most 64 KiB) is read
// the way RingBuffer reads a forward ring: each header is copied out at the
// tail, across the wrap if need be, its record is copied out and decoded, and
// the tail moves on, until a header is invalid or the whole ring was read.
// Each record is decoded as-is and also truncated by one byte (which must
// fail: a record never decodes from fewer bytes than its header says).
#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/records.h"

namespace {

uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

constexpr size_t kPrefix = 43;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kPrefix + sizeof(perf_event_header)) return 0;
  perfcounters::RecordFormat format;
  format.sample_type = Load64(data);
  format.read_format = Load64(data + 8);
  format.branch_sample_type = Load64(data + 16);
  format.sample_regs_user = Load64(data + 24);
  format.sample_regs_intr = Load64(data + 32);
  format.sample_id_all = data[40] & 1;
  const size_t tail_offset = data[41] | (size_t{data[42]} << 8);

  size_t ring_size = 1;
  while (ring_size * 2 <= size - kPrefix && ring_size * 2 <= 65536) {
    ring_size *= 2;
  }
  const uint8_t* ring = data + kPrefix;
  uint64_t tail = tail_offset & (ring_size - 1);
  const uint64_t head = tail + ring_size;

  auto copy_out = [&](uint64_t pos, size_t n, uint8_t* out) {
    const size_t off = pos & (ring_size - 1);
    const size_t first = std::min(n, ring_size - off);
    std::memcpy(out, ring + off, first);
    if (first < n) std::memcpy(out + first, ring, n - first);
  };

  std::vector<uint8_t> record;
  while (head - tail >= sizeof(perf_event_header)) {
    perf_event_header header;
    copy_out(tail, sizeof(header), reinterpret_cast<uint8_t*>(&header));
    if (header.size < sizeof(header) || header.size > head - tail) break;
    record.resize(header.size);
    copy_out(tail, header.size, record.data());
    tail += header.size;

    absl::StatusOr<perfcounters::RecordHeader> h =
        perfcounters::DecodeHeader(record);
    if (!h.ok() || h->size != header.size || h->type != header.type) {
      std::abort();
    }
    absl::StatusOr<perfcounters::Record> r =
        perfcounters::DecodeRecord(record, format);
    if (r.ok()) {
      if (!(r->header == *h)) std::abort();
    } else if (r.status().message().empty()) {
      std::abort();
    }
    // One byte short of what the header says must never decode.
    absl::StatusOr<perfcounters::Record> shorter = perfcounters::DecodeRecord(
        absl::Span<const uint8_t>(record.data(), record.size() - 1), format);
    if (shorter.ok()) std::abort();
    (void)perfcounters::SampleIdSize(format);
  }
  return 0;
}
