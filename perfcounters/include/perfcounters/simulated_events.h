// simulated_events.h: the events Valgrind's callgrind simulates (with
// --cache-sim=yes --branch-sim=yes) under their perf names, a callgrind
// dump's totals, the fixed cache geometry and the cost model's estimated
// cycles: what the simulated counting source counts, for benchmark_ext's
// --perf_counters_source=simulate and `perfcounters stat --source simulate`
// alike (docs/simulate.md).
#ifndef PERFCOUNTERS_SIMULATED_EVENTS_H_
#define PERFCOUNTERS_SIMULATED_EVENTS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The callgrind events, in the order callgrind 3.19 writes them with
// --cache-sim=yes --branch-sim=yes.
enum SimEvent {
  kIr,
  kDr,
  kDw,
  kI1mr,
  kD1mr,
  kD1mw,
  kILmr,
  kDLmr,
  kDLmw,
  kBc,
  kBcm,
  kBi,
  kBim,
  kSimEventCount
};
using SimCosts = std::array<uint64_t, kSimEventCount>;

// The simulated caches: fixed, whatever the host's. The options for
// valgrind, and how the source's description names them.
inline constexpr const char* kSimCacheOptions[] = {
    "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"};
inline constexpr char kSimGeometry[] =
    "I1 32768 B 8-way 64 B lines, D1 32768 B 8-way 64 B lines, LL 8388608 B "
    "16-way 64 B lines";

// The costs of one callgrind dump (its `totals:` line, the sum of every
// function's self cost, by the `events:` line's names; an event the dump
// lacks is 0). An error names what is missing or malformed.
absl::StatusOr<SimCosts> ParseCallgrindTotals(absl::string_view dump);

// How `spec` is computed from callgrind's events, as the sum of
// `events`; an error (the reason, for Plan::unavailable) when the
// simulator cannot count it. Hardware events must exclude the kernel (the
// simulator sees user space only).
absl::StatusOr<std::vector<SimEvent>> SimulatedInputs(const EventSpec& spec);

// The estimated cycles of the cost model (docs/simulate.md): L1 hits + 5 x
// LL hits + 35 x memory accesses, over instruction fetches and data
// accesses. An estimate, never a measured cycle count.
double EstimatedCycles(const SimCosts& c);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_SIMULATED_EVENTS_H_
