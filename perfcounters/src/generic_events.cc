// generic_events.cc: perf's tables of generic hardware, software and
// hardware cache events, and the cache name parser.
#include "perfcounters/generic_events.h"

#include <linux/perf_event.h>

#include <array>

#include "absl/status/status.h"
#include "text_util.h"

namespace perfcounters {

using internal::Cat;
using internal::IEquals;
using internal::Join;

namespace {

constexpr GenericEvent kHardware[] = {
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles", "cycles",
     "cycles", "PERF_COUNT_HW_CPU_CYCLES"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions", "",
     "instructions", "PERF_COUNT_HW_INSTRUCTIONS"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references", "",
     "cache-references", "PERF_COUNT_HW_CACHE_REFERENCES"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses", "",
     "cache-misses", "PERF_COUNT_HW_CACHE_MISSES"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
     "branch-instructions", "branches", "branches",
     "PERF_COUNT_HW_BRANCH_INSTRUCTIONS"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", "",
     "branch-misses", "PERF_COUNT_HW_BRANCH_MISSES"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles", "",
     "bus-cycles", "PERF_COUNT_HW_BUS_CYCLES"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
     "stalled-cycles-frontend", "idle-cycles-frontend",
     "stalled-cycles-frontend", "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
     "stalled-cycles-backend", "idle-cycles-backend", "stalled-cycles-backend",
     "PERF_COUNT_HW_STALLED_CYCLES_BACKEND"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles", "",
     "ref-cycles", "PERF_COUNT_HW_REF_CPU_CYCLES"},
};
static_assert(std::size(kHardware) == PERF_COUNT_HW_MAX);

constexpr GenericEvent kSoftware[] = {
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock", "", "cpu-clock",
     "PERF_COUNT_SW_CPU_CLOCK"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock", "",
     "task-clock", "PERF_COUNT_SW_TASK_CLOCK"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", "faults",
     "page-faults", "PERF_COUNT_SW_PAGE_FAULTS"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches",
     "cs", "context-switches", "PERF_COUNT_SW_CONTEXT_SWITCHES"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations",
     "migrations", "cpu-migrations", "PERF_COUNT_SW_CPU_MIGRATIONS"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", "",
     "minor-faults", "PERF_COUNT_SW_PAGE_FAULTS_MIN"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults", "",
     "major-faults", "PERF_COUNT_SW_PAGE_FAULTS_MAJ"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults", "",
     "alignment-faults", "PERF_COUNT_SW_ALIGNMENT_FAULTS"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults", "",
     "emulation-faults", "PERF_COUNT_SW_EMULATION_FAULTS"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "dummy", "", "dummy",
     "PERF_COUNT_SW_DUMMY"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, "bpf-output", "",
     "bpf-output", "PERF_COUNT_SW_BPF_OUTPUT"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, "cgroup-switches", "",
     "cgroup-switches", "PERF_COUNT_SW_CGROUP_SWITCHES"},
};
static_assert(std::size(kSoftware) == PERF_COUNT_SW_MAX);

// perf's evsel__hw_cache, evsel__hw_cache_op and evsel__hw_cache_result.
const std::vector<std::string_view> kCacheNames[] = {
    {"L1-dcache", "l1-d", "l1d", "L1-data"},
    {"L1-icache", "l1-i", "l1i", "L1-instruction"},
    {"LLC", "L2"},
    {"dTLB", "d-tlb", "Data-TLB"},
    {"iTLB", "i-tlb", "Instruction-TLB"},
    {"branch", "branches", "bpu", "btb", "bpc"},
    {"node"},
};
static_assert(std::size(kCacheNames) == PERF_COUNT_HW_CACHE_MAX);

const std::vector<std::string_view> kOpNames[] = {
    {"load", "loads", "read"},
    {"store", "stores", "write"},
    {"prefetch", "prefetches", "speculative-read", "speculative-load"},
};
static_assert(std::size(kOpNames) == PERF_COUNT_HW_CACHE_OP_MAX);

const std::vector<std::string_view> kResultNames[] = {
    {"refs", "Reference", "ops", "access"},
    {"misses", "miss"},
};
static_assert(std::size(kResultNames) == PERF_COUNT_HW_CACHE_RESULT_MAX);

// perf's evsel__hw_cache_stat: which ops each cache supports.
constexpr unsigned kRead = 1u << PERF_COUNT_HW_CACHE_OP_READ;
constexpr unsigned kWrite = 1u << PERF_COUNT_HW_CACHE_OP_WRITE;
constexpr unsigned kPrefetch = 1u << PERF_COUNT_HW_CACHE_OP_PREFETCH;
constexpr unsigned kCacheOps[] = {
    kRead | kWrite | kPrefetch,  // L1-dcache
    kRead | kPrefetch,           // L1-icache
    kRead | kWrite | kPrefetch,  // LLC
    kRead | kWrite | kPrefetch,  // dTLB
    kRead,                       // iTLB
    kRead,                       // branch
    kRead | kWrite | kPrefetch,  // node
};

// Matches the longest spelling from `table` at the start of `text` that is
// followed by '-' or the end. Returns its index and sets `len`, or -1.
int MatchPrefix(std::span<const std::vector<std::string_view>> table,
                std::string_view text, size_t& len) {
  int best = -1;
  len = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    for (std::string_view spelling : table[i]) {
      if (spelling.size() <= len || spelling.size() > text.size()) continue;
      if (!IEquals(text.substr(0, spelling.size()), spelling)) {
        continue;
      }
      if (spelling.size() < text.size() && text[spelling.size()] != '-') {
        continue;
      }
      best = static_cast<int>(i);
      len = spelling.size();
    }
  }
  return best;
}

std::string Spellings(std::span<const std::vector<std::string_view>> table) {
  std::vector<std::string_view> all;
  for (const auto& list : table)
    all.insert(all.end(), list.begin(), list.end());
  return Join(all, ", ");
}

}  // namespace

std::string GenericEvent::ListName() const {
  if (alias.empty()) return std::string(symbol);
  return Cat(symbol, " OR ", alias);
}

std::span<const GenericEvent> HardwareEvents() { return kHardware; }
std::span<const GenericEvent> SoftwareEvents() { return kSoftware; }

bool SoftwareEventCountsUserMode(uint64_t config) {
  switch (config) {
    case PERF_COUNT_SW_CPU_CLOCK:
    case PERF_COUNT_SW_TASK_CLOCK:
    case PERF_COUNT_SW_PAGE_FAULTS:
    case PERF_COUNT_SW_PAGE_FAULTS_MIN:
    case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
    case PERF_COUNT_SW_ALIGNMENT_FAULTS:
    case PERF_COUNT_SW_EMULATION_FAULTS:
      return true;
    default:
      return false;
  }
}

const GenericEvent* FindGenericEvent(std::string_view name) {
  for (std::span<const GenericEvent> table :
       {HardwareEvents(), SoftwareEvents()}) {
    for (const GenericEvent& event : table) {
      if (IEquals(event.symbol, name) ||
          (!event.alias.empty() && IEquals(event.alias, name))) {
        return &event;
      }
    }
  }
  return nullptr;
}

std::span<const std::vector<std::string_view>> HwCacheNames() {
  return kCacheNames;
}
std::span<const std::vector<std::string_view>> HwCacheOpNames() {
  return kOpNames;
}
std::span<const std::vector<std::string_view>> HwCacheResultNames() {
  return kResultNames;
}

uint64_t HwCacheEvent::config() const {
  return uint64_t{cache} | uint64_t{op} << 8 | uint64_t{result} << 16;
}

std::string HwCacheEvent::CanonicalName() const {
  if (cache >= std::size(kCacheNames) || op >= std::size(kOpNames) ||
      result >= std::size(kResultNames)) {
    return Cat("hw_cache/config=", config(), "/");
  }
  if (result == PERF_COUNT_HW_CACHE_RESULT_ACCESS) {
    return Cat(kCacheNames[cache][0], "-", kOpNames[op][1]);
  }
  return Cat(kCacheNames[cache][0], "-", kOpNames[op][0], "-",
             kResultNames[result][0]);
}

bool IsHwCacheOpSupported(uint32_t cache, uint32_t op) {
  if (cache >= std::size(kCacheOps) || op >= std::size(kOpNames)) return false;
  return (kCacheOps[cache] & (1u << op)) != 0;
}

absl::StatusOr<HwCacheEvent> ParseHwCacheName(std::string_view name) {
  size_t len = 0;
  const int cache = MatchPrefix(kCacheNames, name, len);
  if (cache < 0) {
    return absl::NotFoundError(Cat("'", name,
                                   "' does not start with a cache name (",
                                   Spellings(kCacheNames), ")"));
  }
  HwCacheEvent event;
  event.cache = static_cast<uint32_t>(cache);
  int op = -1;
  int result = -1;
  std::string_view rest = name.substr(len);
  if (!rest.empty()) rest.remove_prefix(1);  // the '-'
  if (rest.empty() && len < name.size()) {
    return absl::InvalidArgumentError(
        Cat("cache event '", name, "' ends with '-': expected an op (",
            Spellings(kOpNames), ") or a result (", Spellings(kResultNames),
            ") after it"));
  }
  // The rest is up to two '-'-separated parts, each an op or a result; an
  // op spelling may itself contain '-' (speculative-read), so match the
  // longest spelling at each step.
  while (!rest.empty()) {
    size_t op_len = 0;
    size_t result_len = 0;
    const int this_op = MatchPrefix(kOpNames, rest, op_len);
    const int this_result = MatchPrefix(kResultNames, rest, result_len);
    size_t used = 0;
    if (this_op >= 0 && op < 0) {
      op = this_op;
      used = op_len;
    } else if (this_result >= 0 && result < 0) {
      result = this_result;
      used = result_len;
    } else {
      const std::string_view part = rest.substr(0, rest.find('-'));
      std::string expected;
      if (op < 0 && result < 0) {
        expected = Cat("an op (", Spellings(kOpNames), ") or a result (",
                       Spellings(kResultNames), ")");
      } else if (result < 0) {
        expected = Cat("a result (", Spellings(kResultNames), ")");
      } else if (op < 0) {
        expected = Cat("an op (", Spellings(kOpNames), ")");
      } else {
        expected = "nothing more after the op and the result";
      }
      return absl::InvalidArgumentError(
          Cat("cache event '", name, "': unexpected '", part, "' at offset ",
              name.size() - rest.size(), "; expected ", expected));
    }
    rest.remove_prefix(used);
    if (!rest.empty()) rest.remove_prefix(1);
  }
  event.op = op < 0 ? uint32_t{PERF_COUNT_HW_CACHE_OP_READ}
                    : static_cast<uint32_t>(op);
  event.result = result < 0 ? uint32_t{PERF_COUNT_HW_CACHE_RESULT_ACCESS}
                            : static_cast<uint32_t>(result);
  if (!IsHwCacheOpSupported(event.cache, event.op)) {
    std::vector<std::string_view> ops;
    for (uint32_t o = 0; o < std::size(kOpNames); ++o) {
      if (IsHwCacheOpSupported(event.cache, o)) ops.push_back(kOpNames[o][0]);
    }
    return absl::InvalidArgumentError(Cat(
        "cache event '", name, "': ", kCacheNames[event.cache][0], " has no '",
        kOpNames[event.op][0], "' op; it supports ", Join(ops, ", ")));
  }
  return event;
}

std::vector<HwCacheEvent> AllHwCacheEvents() {
  std::vector<HwCacheEvent> all;
  for (uint32_t cache = 0; cache < std::size(kCacheNames); ++cache) {
    for (uint32_t op = 0; op < std::size(kOpNames); ++op) {
      if (!IsHwCacheOpSupported(cache, op)) continue;
      for (uint32_t result = 0; result < std::size(kResultNames); ++result) {
        all.push_back({cache, op, result});
      }
    }
  }
  return all;
}

}  // namespace perfcounters
