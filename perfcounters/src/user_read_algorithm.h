// user_read_algorithm.h (internal): the self-monitoring read of a
// `perf_event_mmap_page`, with the hardware reads injected, and the test
// seam that builds a UserReader over a fake page and fake hardware.
//
// ReadMmapPage is the algorithm documented on `struct perf_event_mmap_page`
// in include/uapi/linux/perf_event.h (and libperf's perf_mmap__read_self):
// under the page's seqlock, offset + the sign-extended hardware counter
// `index - 1`, and time_enabled/time_running extrapolated to now from the
// page's time_offset/time_mult/time_shift (with the cap_user_time_short
// correction); without the times (ReadMmapPageAt<false>) for a group member,
// whose times are its leader's. UserReader::TryReadUserSpace and
// TryReadGroupUserSpace run them with rdpmc/rdtsc (x86-64) or mrs (arm64);
// tests run them with fakes on every machine.
#ifndef PERFCOUNTERS_SRC_USER_READ_ALGORITHM_H_
#define PERFCOUNTERS_SRC_USER_READ_ALGORITHM_H_

#include <linux/perf_event.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/attr.h"
#include "perfcounters/event.h"
#include "perfcounters/user_read.h"

namespace perfcounters::internal {

// The mmap page's time conversion: ns since time_offset for `cycles` ticks.
// Inline, as it is on every user-space read.
inline uint64_t CyclesToNs(uint64_t cycles, uint32_t time_mult,
                           uint16_t time_shift) {
  // The kernel splits this into quotient and remainder to stay in 64 bits;
  // the 128-bit product gives the same result modulo 2^64.
  unsigned __int128 product =
      static_cast<unsigned __int128>(cycles) * time_mult;
  return static_cast<uint64_t>(product >> time_shift);
}

// Sign-extends the low `width` bits of `raw` (1 <= width <= 64).
inline int64_t SignExtend(uint64_t raw, uint16_t width) {
  if (width == 0 || width >= 64) return static_cast<int64_t>(raw);
  const unsigned shift = 64 - width;
  return static_cast<int64_t>(raw << shift) >> shift;
}

// Bit 29 of `index - 1`: the kernel's INTEL_PMC_FIXED_RDPMC_METRICS. rdpmc
// of it returns PERF_METRICS (packed 8-bit fractions of the topdown
// metrics), not a count: such an event is never read from user space.
inline constexpr uint32_t kMetricsRdpmcIndex = uint32_t{1} << 29;

// Reads a field of the shared page once; the kernel may change it any time.
// A volatile load, as the kernel's READ_ONCE (GCC's relaxed __atomic_load_n
// on arm64 computes each field's address with an extra instruction).
template <typename T>
inline T ReadOnce(const T& field) {
  return *static_cast<const volatile T*>(&field);
}

inline void CompilerBarrier() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

// The page's reading at the moment of the call, or false when the page does
// not allow a user-space read now: cap_user_rdpmc or cap_user_time is 0,
// `index` is 0 (not on a counter) or names the topdown metrics register.
// `read_counter(index - 1)` reads the hardware counter (rdpmc's ecx),
// `read_time()` the clock the page's time fields convert (TSC, cntvct).
// kTimes false: the count alone (out->value; enabled and running are left
// alone and the clock is never read), for a group member, whose times are
// its leader's. A decision taken on a torn page only costs the caller a
// read(2).
template <bool kTimes, typename ReadCounter, typename ReadTime>
inline bool ReadMmapPageAt(const perf_event_mmap_page* pc,
                           ReadCounter&& read_counter, ReadTime&& read_time,
                           UserReading* out) {
  uint32_t seq;
  uint64_t value, enabled = 0, running = 0;
  do {
    seq = ReadOnce(pc->lock);
    CompilerBarrier();
    const uint32_t index = ReadOnce(pc->index);
    if (pc->cap_user_rdpmc == 0 || pc->cap_user_time == 0 || index == 0 ||
        ((index - 1) & kMetricsRdpmcIndex) != 0) {
      return false;
    }
    const uint16_t width = ReadOnce(pc->pmc_width);
    value = static_cast<uint64_t>(ReadOnce(pc->offset)) +
            static_cast<uint64_t>(SignExtend(read_counter(index - 1), width));
    if constexpr (kTimes) {
      enabled = ReadOnce(pc->time_enabled);
      running = ReadOnce(pc->time_running);
      // Extrapolate the times to now.
      uint64_t cycles = read_time();
      if (pc->cap_user_time_short) {
        const uint64_t base = ReadOnce(pc->time_cycles);
        cycles = base + ((cycles - base) & ReadOnce(pc->time_mask));
      }
      const uint64_t delta =
          ReadOnce(pc->time_offset) +
          CyclesToNs(cycles, ReadOnce(pc->time_mult), ReadOnce(pc->time_shift));
      enabled += delta;
      running += delta;
    }
    CompilerBarrier();
  } while (ReadOnce(pc->lock) != seq);
  out->value = value;
  if constexpr (kTimes) {
    out->enabled = enabled;
    out->running = running;
  }
  return true;
}

// The count and the times (ReadMmapPageAt with kTimes).
template <typename ReadCounter, typename ReadTime>
inline bool ReadMmapPage(const perf_event_mmap_page* pc,
                         ReadCounter&& read_counter, ReadTime&& read_time,
                         UserReading* out) {
  return ReadMmapPageAt<true>(pc, read_counter, read_time, out);
}

// OK when an event opened for `target` by thread `opener_tid` counts thread
// `caller_tid` on any CPU (the only case in which the caller's rdpmc/mrs
// reads the event's counter), else FailedPrecondition naming `label`, what
// the event counts, and read(2) as the way to read it.
absl::Status CheckSelfMonitoring(const Target& target, pid_t opener_tid,
                                 pid_t caller_tid, const std::string& label);

// Intel's topdown events, whatever the machine: on PERF_TYPE_RAW (the core
// PMU, cpu_core's on hybrids), event code 0x00 with umask 0x04 (slots) or
// 0x80..0x87 (the metrics), as the kernel's is_topdown_count() sees them.
bool IsIntelTopdown(const Attr& attr);

// Hardware reads for a UserReader under test.
struct UserReadHardware {
  // rdpmc / mrs of hardware counter `counter` (the page's index - 1).
  std::function<uint64_t(uint32_t counter)> read_counter;
  // rdtsc / cntvct.
  std::function<uint64_t()> read_time;
};

// Builds UserReaders over fake pages, for tests.
class UserReaderTestPeer {
 public:
  // A reader of `event` over `page` (the caller's, never unmapped) that
  // reads the hardware through `hardware` (the caller's; must outlive the
  // reader). Makes the checks of UserReader::Map (group_member false) or
  // MapGroupMember (true); the calling thread is the reader's.
  static absl::StatusOr<UserReader> Make(const Event& event,
                                         perf_event_mmap_page* page,
                                         const UserReadHardware* hardware,
                                         bool group_member = false);
};

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_USER_READ_ALGORITHM_H_
