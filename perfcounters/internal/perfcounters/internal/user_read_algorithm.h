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
#ifndef PERFCOUNTERS_INTERNAL_USER_READ_ALGORITHM_H_
#define PERFCOUNTERS_INTERNAL_USER_READ_ALGORITHM_H_

#include <linux/perf_event.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/attr.h"
#include "perfcounters/event.h"
#include "perfcounters/export.h"
#include "perfcounters/user_read.h"

PERFCOUNTERS_EXPORT_BEGIN
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

// Sign-extends the low `width` bits of `raw` (1 <= width <= 64; 0 leaves
// it as it is): the page comment's `pmc <<= 64 - width; pmc >>= 64 - width`,
// with the shift taken modulo 64 as the shift instructions take it anyway.
inline int64_t SignExtend(uint64_t raw, uint16_t width) {
  const unsigned shift = (64u - width) & 63u;
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
// CyclesToNs (user_read.h) with the 128-bit product's halves shifted by
// hand: GCC may otherwise call libgcc's __lshrti3 for the shift, a call in
// the middle of a snapshot. The same result for time_shift < 64 (the
// kernel's are at most 32).
[[gnu::always_inline]] inline uint64_t ScaleCycles(uint64_t cycles,
                                                   uint32_t time_mult,
                                                   uint16_t time_shift) {
  const unsigned __int128 product =
      static_cast<unsigned __int128>(cycles) * time_mult;
  const uint64_t lo = static_cast<uint64_t>(product);
  const uint64_t hi = static_cast<uint64_t>(product >> 64);
  const unsigned shift = time_shift & 63u;
  return (lo >> shift) | ((hi << 1) << (63u - shift));
}

// The page's capability bits (`capabilities`, whose bitfields the uapi
// header lists from bit 0): one load tests both that a read needs.
inline constexpr uint64_t kCapUserRdpmc = uint64_t{1} << 2;
inline constexpr uint64_t kCapUserTime = uint64_t{1} << 3;
inline constexpr uint64_t kCapUserTimeShort = uint64_t{1} << 5;

// pmc_width and time_shift, the page's adjacent 16-bit fields, in one
// 32-bit load: the width in the low 16 bits, the shift in the high ones.
// (A volatile 16-bit load costs GCC a needless zero-extension each.)
using PageWord32 = uint32_t __attribute__((may_alias));
static_assert(offsetof(perf_event_mmap_page, time_shift) ==
              offsetof(perf_event_mmap_page, pmc_width) + 2);
static_assert(offsetof(perf_event_mmap_page, pmc_width) % 4 == 0);
inline uint32_t ReadWidthAndShift(const perf_event_mmap_page* pc) {
  const uint32_t w =
      *reinterpret_cast<const volatile PageWord32*>(&pc->pmc_width);
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) return w;
  return (w >> 16) | (w << 16);
}

// SignExtend from ReadWidthAndShift's word: the shift is (64 - width) mod
// 64, which the high 16 bits (multiples of 64) do not change.
inline int64_t SignExtendWord(uint64_t raw, uint32_t width_and_shift) {
  const unsigned shift = (0u - width_and_shift) & 63u;
  return static_cast<int64_t>(raw << shift) >> shift;
}

// Whether a page's `index - 1` may name the topdown metrics register:
// only on x86-64; on other machines the check would cost every read an
// instruction for nothing. A read through a test's fakes checks it
// everywhere (kMetrics true).
#if defined(__x86_64__)
inline constexpr bool kHardwareMetricsIndex = true;
#else
inline constexpr bool kHardwareMetricsIndex = false;
#endif

template <bool kTimes, bool kMetrics = true, typename ReadCounter,
          typename ReadTime>
[[gnu::always_inline]] inline bool ReadMmapPageAt(
    const perf_event_mmap_page* pc, ReadCounter&& read_counter,
    ReadTime&& read_time, UserReading* out) {
  constexpr uint64_t kNeeded = kCapUserRdpmc | kCapUserTime;
  uint32_t seq;
  uint64_t value, enabled = 0, running = 0;
  do {
    seq = ReadOnce(pc->lock);
    CompilerBarrier();
    const uint32_t index = ReadOnce(pc->index);
    const uint64_t caps = ReadOnce(pc->capabilities);
    if ((caps & kNeeded) != kNeeded || index == 0 ||
        (kMetrics && ((index - 1) & kMetricsRdpmcIndex) != 0)) {
      return false;
    }
    const uint32_t width_and_shift = ReadWidthAndShift(pc);
    value = static_cast<uint64_t>(ReadOnce(pc->offset)) +
            static_cast<uint64_t>(
                SignExtendWord(read_counter(index - 1), width_and_shift));
    if constexpr (kTimes) {
      enabled = ReadOnce(pc->time_enabled);
      running = ReadOnce(pc->time_running);
      // Extrapolate the times to now.
      uint64_t cycles = read_time();
      if ((caps & kCapUserTimeShort) != 0) {
        const uint64_t base = ReadOnce(pc->time_cycles);
        cycles = base + ((cycles - base) & ReadOnce(pc->time_mask));
      }
      const uint64_t delta =
          ReadOnce(pc->time_offset) +
          ScaleCycles(cycles, ReadOnce(pc->time_mult),
                      static_cast<uint16_t>(width_and_shift >> 16));
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

// A whole group from its members' pages (pages[0] the leader): each
// member's count into values[i * stride], the group's times once, from the
// leader's page, into *times (times->value is the leader's count). False
// when any member's page does not allow a user-space read now.
template <bool kMetrics = true, typename ReadCounter, typename ReadTime>
[[gnu::always_inline]] inline bool ReadGroupPages(
    const perf_event_mmap_page* const* pages, size_t n, uint64_t* values,
    size_t stride, ReadCounter&& read_counter, ReadTime&& read_time,
    UserReading* times) {
  if (!ReadMmapPageAt<true, kMetrics>(pages[0], read_counter, read_time,
                                      times)) {
    return false;
  }
  values[0] = times->value;
  // The members after the leader, if any: behind one test, so that a group
  // of one sets up nothing for them.
  if (__builtin_expect(n > 1, 0)) {
    UserReading r;
    size_t i = 1;
    do {
      if (!ReadMmapPageAt<false, kMetrics>(pages[i], read_counter, read_time,
                                           &r)) {
        return false;
      }
      values[i * stride] = r.value;
    } while (++i < n);
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
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_USER_READ_ALGORITHM_H_
