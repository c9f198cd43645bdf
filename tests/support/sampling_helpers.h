// sampling_helpers.h: helpers shared by the sampling and ring buffer tests:
// an opened sampling event with its ring, and draining a ring. (Fresh pages
// to fault on are event_helpers.h's FreshPages.)
#ifndef PERFCOUNTERS_TESTS_SUPPORT_SAMPLING_HELPERS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_SAMPLING_HELPERS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "perfcounters/event.h"
#include "perfcounters/records.h"
#include "perfcounters/ring_buffer.h"

namespace perfcounters::testing {

// A sampling event and the ring it writes to.
struct Sampler {
  Event event;
  RingBuffer ring;
};

// Opens `attr` for `target` and maps 1 + `data_pages` pages of it.
inline absl::StatusOr<Sampler> OpenSampler(const Attr& attr,
                                           const std::string& label,
                                           size_t data_pages,
                                           const Target& target = {}) {
  absl::StatusOr<Event> event = Event::Open(attr, label, target);
  if (!event.ok()) return event.status();
  absl::StatusOr<RingBuffer> ring = RingBuffer::Map(*event, data_pages);
  if (!ring.ok()) return ring.status();
  return Sampler{std::move(*event), std::move(*ring)};
}

// Reads every record left in `ring`; a read error fails the test.
inline std::vector<Record> Drain(RingBuffer& ring) {
  std::vector<Record> out;
  while (true) {
    absl::StatusOr<std::optional<Record>> r = ring.TryRead();
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || !r->has_value()) return out;
    out.push_back(std::move(**r));
  }
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_SAMPLING_HELPERS_H_
