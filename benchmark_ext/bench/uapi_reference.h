// uapi_reference.h: the smallest correct user-space Start+Stop of one
// group, written directly from the comment on `struct perf_event_mmap_page`
// in include/uapi/linux/perf_event.h — the yardstick for CounterSet's
// user-space path (perfcounters_overhead_bench prints the ratio, and
// tests/counter_set_test.cc holds CounterSet to it in the emulated
// arm64 machine).
//
// Opened and mapped as CounterSet does it: one group, user access requested
// (RequestUserAccess, 32-bit counters), counting from open, each member's
// first page mapped read-only. A snapshot reads, under each page's seqlock,
// `offset + sign_extend(counter(index - 1), pmc_width)` (the counter read
// through the library's own dispatch, user_read_hardware.h), and from the
// leader's page time_enabled/time_running extrapolated to now with
// cap_user_time (time_offset + the cycles scaled by time_mult/time_shift in
// the comment's quotient/remainder form, cap_user_time_short's time_mask
// applied). Stop adds the deltas to sums. Nothing else: no thread or fork
// checks, no read(2) fallback, no multiplexing rules — a snapshot the page
// does not allow only counts as a failure.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_BENCH_UAPI_REFERENCE_H_
#define PERFCOUNTERS_BENCHMARK_EXT_BENCH_UAPI_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/group.h"

struct perf_event_mmap_page;

namespace perfcounters::bench_support {

class UapiReference {
 public:
  static constexpr size_t kMaxMembers = 8;

  // Opens `specs` (leader first, at most kMaxMembers) as one group and maps
  // every member's page.
  static absl::StatusOr<UapiReference> Open(std::vector<EventSpec> specs);

  UapiReference(UapiReference&& o) noexcept { *this = std::move(o); }
  UapiReference& operator=(UapiReference&& o) noexcept;
  UapiReference(const UapiReference&) = delete;
  UapiReference& operator=(const UapiReference&) = delete;
  ~UapiReference();

  // The start and the end of an interval; Stop adds its deltas to the
  // sums. Calls (as CounterSet's are), compiled -O2 in every build type
  // (as CounterSet's hot path is by default).
  void Start();
  void Stop();

  // Whether every snapshot so far was allowed by its pages.
  bool ok() const { return ok_; }
  uint64_t sum(size_t i) const { return sum_[i]; }
  uint64_t enabled() const { return enabled_; }
  uint64_t running() const { return running_; }

 private:
  UapiReference() = default;

  // A snapshot (Stop's is left uninitialized: Snapshot fills it).
  struct Reading {
    uint64_t enabled;
    uint64_t running;
    uint64_t value[kMaxMembers];
  };
  bool Snapshot(Reading* out) const;

  std::optional<Group> group_;
  const perf_event_mmap_page* pages_[kMaxMembers] = {};
  size_t n_ = 0;
  size_t page_size_ = 0;
  Reading start_ = {};
  bool ok_ = true;
  uint64_t enabled_ = 0;
  uint64_t running_ = 0;
  uint64_t sum_[kMaxMembers] = {};
};

// Does nothing, as a call: the caller's share of a Start+Stop pair is a
// loop of two calls of it, subtracted from both sides. Optimized in every
// build type (-O2 in Debug), as Start and Stop here and CounterSet's hot
// path are, so that in a Debug build the share holds only the caller's own
// -O0 code and not an -O0 prologue that neither side has.
void CallersShare(const void* p);

}  // namespace perfcounters::bench_support

#endif  // PERFCOUNTERS_BENCHMARK_EXT_BENCH_UAPI_REFERENCE_H_
