// generic_events.h: the kernel's generic events, named as perf names them.
//
// `GenericEvent` is one generic hardware event (the ten PERF_COUNT_HW_*
// counters) or software event (every PERF_COUNT_SW_*), with perf's symbol
// name, its alias and the canonical name perf reports it under.
// `HwCacheEvent` is one hardware cache event (cache x op x result,
// PERF_TYPE_HW_CACHE), parsed from perf's spellings such as
// `L1-dcache-load-misses`, `LLC-loads` or `dTLB-store-misses`.
//
// The tables are public so that `perfcounters list` can enumerate them and
// the grammar (grammar.h) can resolve names. Every lookup is
// case-insensitive, as perf's is.
#ifndef PERFCOUNTERS_GENERIC_EVENTS_H_
#define PERFCOUNTERS_GENERIC_EVENTS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// One generic hardware (PERF_TYPE_HARDWARE) or software (PERF_TYPE_SOFTWARE)
// event.
struct GenericEvent {
  // PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE.
  uint32_t type;
  // The PERF_COUNT_HW_* / PERF_COUNT_SW_* value.
  uint64_t config;
  // perf's symbol, as `perf list` shows it first (e.g. "cpu-cycles").
  std::string_view symbol;
  // perf's alias (e.g. "cycles"), or empty.
  std::string_view alias;
  // The name perf reports counts under (e.g. "cycles" for cpu-cycles,
  // "branches" for branch-instructions); labels use it.
  std::string_view canonical;
  // The kernel constant's name, e.g. "PERF_COUNT_HW_CPU_CYCLES".
  std::string_view kernel_name;

  // The `perf list` line's name: "cpu-cycles OR cycles", or the symbol.
  std::string ListName() const;
};

// The ten generic hardware events, in PERF_COUNT_HW_* order.
std::span<const GenericEvent> HardwareEvents();
// Every generic software event, in PERF_COUNT_SW_* order (cpu-clock ...
// cgroup-switches).
std::span<const GenericEvent> SoftwareEvents();

// True for the software events (PERF_TYPE_SOFTWARE, `config`) that count
// the work of user-mode code when opened with exclude_kernel: the faults
// (page-faults, minor-faults, major-faults, alignment-faults,
// emulation-faults; the kernel counts a fault in the mode of the faulting
// instruction) and the clocks (cpu-clock, task-clock: time, which
// exclude_kernel does not filter). The others (context-switches,
// cpu-migrations, ...) happen in the kernel and count 0 with
// exclude_kernel.
bool SoftwareEventCountsUserMode(uint64_t config);

// Finds a generic event by symbol or alias, case-insensitively
// ("CYCLES", "cs", "faults"). nullptr when `name` is not one.
const GenericEvent* FindGenericEvent(std::string_view name);

// Perf's spellings for the hardware cache parts. Index i is the kernel's
// PERF_COUNT_HW_CACHE_* value; element 0 of each list is the canonical
// spelling.
//   caches:  L1-dcache, L1-icache, LLC, dTLB, iTLB, branch, node
//   ops:     load, store, prefetch (element 1, "loads" etc., is the plural
//            used in canonical names without a result)
//   results: refs (access), misses
std::span<const std::vector<std::string_view>> HwCacheNames();
std::span<const std::vector<std::string_view>> HwCacheOpNames();
std::span<const std::vector<std::string_view>> HwCacheResultNames();

// One hardware cache event: PERF_TYPE_HW_CACHE with
// config = cache | op << 8 | result << 16.
struct HwCacheEvent {
  // PERF_COUNT_HW_CACHE_L1D ... PERF_COUNT_HW_CACHE_NODE.
  uint32_t cache = 0;
  // PERF_COUNT_HW_CACHE_OP_READ / _WRITE / _PREFETCH.
  uint32_t op = 0;
  // PERF_COUNT_HW_CACHE_RESULT_ACCESS / _MISS.
  uint32_t result = 0;

  // cache | op << 8 | result << 16.
  uint64_t config() const;
  // perf's name: "L1-dcache-loads" for an access, "L1-dcache-load-misses"
  // for a miss.
  std::string CanonicalName() const;

  friend bool operator==(const HwCacheEvent&, const HwCacheEvent&) = default;
};

// True when perf lists `op` for `cache` (e.g. L1-icache has no stores,
// iTLB and branch only loads).
bool IsHwCacheOpSupported(uint32_t cache, uint32_t op);

// Parses perf's cache spelling, case-insensitively:
// <cache>[-<op or result>][-<op or result>], e.g. "L1-dcache-load-misses",
// "l1d-loads", "LLC-misses", "dTLB-store-misses", "branch-loads". A missing
// op means load, a missing result means access (so "L1-dcache-loads" and
// "L1-dcache" both count accesses). NotFoundError when `name` does not start
// with a cache name; InvalidArgumentError, naming the bad part, when it does
// but the rest is wrong or the op is not supported for that cache.
absl::StatusOr<HwCacheEvent> ParseHwCacheName(std::string_view name);

// Every cache event perf lists (supported ops x both results), in table
// order.
std::vector<HwCacheEvent> AllHwCacheEvents();

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_GENERIC_EVENTS_H_
