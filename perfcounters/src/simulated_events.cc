// simulated_events.cc: the perf names of callgrind's events, a dump's
// totals and the cost model (simulated_events.h).
#include "perfcounters/simulated_events.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace perfcounters {
namespace {

constexpr absl::string_view kSimEventNames[kSimEventCount] = {
    "Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
    "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};

// The callgrind cost of PERF_TYPE_HW_CACHE's config, if simulated.
absl::StatusOr<std::vector<SimEvent>> CacheInputs(uint64_t config,
                                                  const std::string& label) {
  const uint64_t cache = config & 0xff;
  const uint64_t op = (config >> 8) & 0xff;
  const uint64_t result = (config >> 16) & 0xff;
  const bool miss = result == PERF_COUNT_HW_CACHE_RESULT_MISS;
  if (op == PERF_COUNT_HW_CACHE_OP_READ || op == PERF_COUNT_HW_CACHE_OP_WRITE) {
    const bool read = op == PERF_COUNT_HW_CACHE_OP_READ;
    switch (cache) {
      case PERF_COUNT_HW_CACHE_L1D:
        if (read) return std::vector<SimEvent>{miss ? kD1mr : kDr};
        return std::vector<SimEvent>{miss ? kD1mw : kDw};
      case PERF_COUNT_HW_CACHE_L1I:
        if (read && miss) return std::vector<SimEvent>{kI1mr};
        break;
      case PERF_COUNT_HW_CACHE_LL:
        // Data only, as perf's LLC-loads/-stores on x86: an access of the
        // LL is an L1 miss.
        if (read) return std::vector<SimEvent>{miss ? kDLmr : kD1mr};
        return std::vector<SimEvent>{miss ? kDLmw : kD1mw};
      default:
        break;
    }
  }
  return absl::UnimplementedError(absl::StrCat(
      label,
      " has no simulated value: callgrind simulates L1-dcache-loads/-stores "
      "and their misses, L1-icache-load-misses, LLC-loads/-stores and their "
      "misses"));
}

}  // namespace

absl::StatusOr<std::vector<SimEvent>> SimulatedInputs(const EventSpec& spec) {
  const Attr& a = spec.attr;
  if (a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_HW_CACHE) {
    if (a.exclude_user) {
      return absl::UnimplementedError(
          absl::StrCat(spec.label,
                       " counts kernel mode only; the simulator counts user "
                       "space only (write the name without modifiers)"));
    }
    if (!a.exclude_kernel) {
      return absl::UnimplementedError(
          absl::StrCat(spec.label,
                       " includes kernel mode; the simulator counts user "
                       "space only (write the name without :k, or with :u)"));
    }
  }
  // Hybrid CPUs put the PMU's type in the config's upper half.
  const uint64_t config = a.config & 0xffffffffu;
  if (a.type == PERF_TYPE_HARDWARE) {
    switch (config) {
      case PERF_COUNT_HW_INSTRUCTIONS:
        return std::vector<SimEvent>{kIr};
      case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
        return std::vector<SimEvent>{kBc, kBi};
      case PERF_COUNT_HW_BRANCH_MISSES:
        return std::vector<SimEvent>{kBcm, kBim};
      case PERF_COUNT_HW_CACHE_REFERENCES:
        return std::vector<SimEvent>{kI1mr, kD1mr, kD1mw};
      case PERF_COUNT_HW_CACHE_MISSES:
        return std::vector<SimEvent>{kILmr, kDLmr, kDLmw};
      case PERF_COUNT_HW_CPU_CYCLES:
      case PERF_COUNT_HW_REF_CPU_CYCLES:
        return absl::UnimplementedError(absl::StrCat(
            spec.label,
            " has no simulated value (callgrind counts instructions, cache "
            "and branch events, not time); est_cycles is the cost model's "
            "estimate (docs/simulate.md)"));
      default:
        break;
    }
  } else if (a.type == PERF_TYPE_HW_CACHE) {
    return CacheInputs(config, spec.label);
  }
  return absl::UnimplementedError(
      absl::StrCat(spec.label,
                   " has no simulated value: the simulator (callgrind) counts "
                   "instructions, branches, branch-misses, cache-references, "
                   "cache-misses and the L1/LLC cache events only"));
}

double EstimatedCycles(const SimCosts& c) {
  const double accesses = static_cast<double>(c[kIr] + c[kDr] + c[kDw]);
  const double l1_misses = static_cast<double>(c[kI1mr] + c[kD1mr] + c[kD1mw]);
  const double ll_misses = static_cast<double>(c[kILmr] + c[kDLmr] + c[kDLmw]);
  return (accesses - l1_misses) + 5 * (l1_misses - ll_misses) + 35 * ll_misses;
}

absl::StatusOr<SimCosts> ParseCallgrindTotals(absl::string_view dump) {
  std::vector<int> order;
  std::optional<absl::string_view> totals;
  for (absl::string_view line : absl::StrSplit(dump, '\n')) {
    if (absl::ConsumePrefix(&line, "events:")) {
      order.clear();
      for (absl::string_view name :
           absl::StrSplit(line, ' ', absl::SkipEmpty())) {
        int index = -1;
        for (int e = 0; e < kSimEventCount; ++e) {
          if (kSimEventNames[e] == name) index = e;
        }
        order.push_back(index);
      }
    } else if (absl::ConsumePrefix(&line, "totals:")) {
      totals = line;
    }
  }
  if (order.empty()) {
    return absl::DataLossError("the callgrind dump has no events: line");
  }
  if (!totals.has_value()) {
    return absl::DataLossError("the callgrind dump has no totals: line");
  }
  SimCosts costs{};
  size_t i = 0;
  for (absl::string_view field :
       absl::StrSplit(*totals, ' ', absl::SkipEmpty())) {
    uint64_t v = 0;
    if (i >= order.size() || !absl::SimpleAtoi(field, &v)) {
      return absl::DataLossError(
          absl::StrCat("the callgrind dump's totals: line is malformed: ",
                       std::string(totals->substr(0, 120))));
    }
    if (order[i] >= 0) costs[order[i]] = v;
    ++i;
  }
  return costs;
}

}  // namespace perfcounters
