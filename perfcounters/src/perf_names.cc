// perf_names.cc: perf's names for perf_event_attr constants and flag words.
#include "perfcounters/perf_names.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace perfcounters {
namespace {

struct FlagName {
  uint64_t bit;
  std::string_view name;
};

// A family of flag bits: the kernel prefix and perf's names in perf's order.
struct FlagFamily {
  std::string_view field;   // the attr field, for error messages
  std::string_view prefix;  // kernel constant prefix, e.g. "PERF_SAMPLE_"
  std::span<const FlagName> names;
};

// perf's order (tools/perf/util/perf_event_attr_fprintf.c), then the bits
// perf does not print.
constexpr FlagName kSampleTypeNames[] = {
    {PERF_SAMPLE_IP, "IP"},
    {PERF_SAMPLE_TID, "TID"},
    {PERF_SAMPLE_TIME, "TIME"},
    {PERF_SAMPLE_ADDR, "ADDR"},
    {PERF_SAMPLE_READ, "READ"},
    {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
    {PERF_SAMPLE_ID, "ID"},
    {PERF_SAMPLE_CPU, "CPU"},
    {PERF_SAMPLE_PERIOD, "PERIOD"},
    {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
    {PERF_SAMPLE_RAW, "RAW"},
    {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {PERF_SAMPLE_REGS_USER, "REGS_USER"},
    {PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
    {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
    {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
    {PERF_SAMPLE_WEIGHT, "WEIGHT"},
    {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
    {PERF_SAMPLE_AUX, "AUX"},
    {PERF_SAMPLE_CGROUP, "CGROUP"},
    {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
    {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
    {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
    {PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
};

constexpr FlagName kReadFormatNames[] = {
    {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
    {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
    {PERF_FORMAT_ID, "ID"},
    {PERF_FORMAT_GROUP, "GROUP"},
    {PERF_FORMAT_LOST, "LOST"},
};

constexpr FlagName kBranchSampleTypeNames[] = {
    {PERF_SAMPLE_BRANCH_USER, "USER"},
    {PERF_SAMPLE_BRANCH_KERNEL, "KERNEL"},
    {PERF_SAMPLE_BRANCH_HV, "HV"},
    {PERF_SAMPLE_BRANCH_ANY, "ANY"},
    {PERF_SAMPLE_BRANCH_ANY_CALL, "ANY_CALL"},
    {PERF_SAMPLE_BRANCH_ANY_RETURN, "ANY_RETURN"},
    {PERF_SAMPLE_BRANCH_IND_CALL, "IND_CALL"},
    {PERF_SAMPLE_BRANCH_ABORT_TX, "ABORT_TX"},
    {PERF_SAMPLE_BRANCH_IN_TX, "IN_TX"},
    {PERF_SAMPLE_BRANCH_NO_TX, "NO_TX"},
    {PERF_SAMPLE_BRANCH_COND, "COND"},
    {PERF_SAMPLE_BRANCH_CALL_STACK, "CALL_STACK"},
    {PERF_SAMPLE_BRANCH_IND_JUMP, "IND_JUMP"},
    {PERF_SAMPLE_BRANCH_CALL, "CALL"},
    {PERF_SAMPLE_BRANCH_NO_FLAGS, "NO_FLAGS"},
    {PERF_SAMPLE_BRANCH_NO_CYCLES, "NO_CYCLES"},
    {PERF_SAMPLE_BRANCH_TYPE_SAVE, "TYPE_SAVE"},
    {PERF_SAMPLE_BRANCH_HW_INDEX, "HW_INDEX"},
    {PERF_SAMPLE_BRANCH_PRIV_SAVE, "PRIV_SAVE"},
};

constexpr FlagFamily kSampleType{"sample_type", "PERF_SAMPLE_",
                                 kSampleTypeNames};
constexpr FlagFamily kReadFormat{"read_format", "PERF_FORMAT_",
                                 kReadFormatNames};
constexpr FlagFamily kBranchSampleType{
    "branch_sample_type", "PERF_SAMPLE_BRANCH_", kBranchSampleTypeNames};

absl::string_view Absl(std::string_view s) { return {s.data(), s.size()}; }

std::string FormatFlags(const FlagFamily& family, uint64_t value) {
  std::string out;
  uint64_t unnamed = value;
  for (const FlagName& flag : family.names) {
    if ((value & flag.bit) == 0) continue;
    if (!out.empty()) out += '|';
    out += flag.name;
    unnamed &= ~flag.bit;
  }
  if (unnamed != 0) {
    if (!out.empty()) out += '|';
    absl::StrAppend(&out, "0x", absl::Hex(unnamed));
  }
  return out;
}

absl::StatusOr<uint64_t> ParseFlags(const FlagFamily& family,
                                    std::string_view text) {
  uint64_t bits = 0;
  if (absl::StripAsciiWhitespace(Absl(text)).empty()) return bits;
  for (absl::string_view word : absl::StrSplit(Absl(text), '|')) {
    word = absl::StripAsciiWhitespace(word);
    if (absl::StartsWithIgnoreCase(word, Absl(family.prefix))) {
      word.remove_prefix(family.prefix.size());
    }
    bool found = false;
    for (const FlagName& flag : family.names) {
      if (absl::EqualsIgnoreCase(word, Absl(flag.name))) {
        bits |= flag.bit;
        found = true;
        break;
      }
    }
    if (found) continue;
    uint64_t raw = 0;
    if (absl::StartsWithIgnoreCase(word, "0x") && word.size() > 2 &&
        absl::SimpleHexAtoi(word.substr(2), &raw)) {
      bits |= raw;
      continue;
    }
    std::vector<std::string_view> valid;
    for (const FlagName& flag : family.names) valid.push_back(flag.name);
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown ", Absl(family.field), " flag \"", word, "\" in \"",
        Absl(text), "\": use '|'-separated names from ",
        absl::StrJoin(
            valid, ", ",
            [](std::string* out, std::string_view name) { out->append(name); }),
        " or hexadecimal bits such as 0x100"));
  }
  return bits;
}

}  // namespace

std::string_view PerfTypeName(uint32_t type) {
  switch (type) {
    case PERF_TYPE_HARDWARE:
      return "PERF_TYPE_HARDWARE";
    case PERF_TYPE_SOFTWARE:
      return "PERF_TYPE_SOFTWARE";
    case PERF_TYPE_TRACEPOINT:
      return "PERF_TYPE_TRACEPOINT";
    case PERF_TYPE_HW_CACHE:
      return "PERF_TYPE_HW_CACHE";
    case PERF_TYPE_RAW:
      return "PERF_TYPE_RAW";
    case PERF_TYPE_BREAKPOINT:
      return "PERF_TYPE_BREAKPOINT";
    default:
      return {};
  }
}

std::string_view HwCacheIdName(uint64_t cache) {
  switch (cache) {
    case PERF_COUNT_HW_CACHE_L1D:
      return "PERF_COUNT_HW_CACHE_L1D";
    case PERF_COUNT_HW_CACHE_L1I:
      return "PERF_COUNT_HW_CACHE_L1I";
    case PERF_COUNT_HW_CACHE_LL:
      return "PERF_COUNT_HW_CACHE_LL";
    case PERF_COUNT_HW_CACHE_DTLB:
      return "PERF_COUNT_HW_CACHE_DTLB";
    case PERF_COUNT_HW_CACHE_ITLB:
      return "PERF_COUNT_HW_CACHE_ITLB";
    case PERF_COUNT_HW_CACHE_BPU:
      return "PERF_COUNT_HW_CACHE_BPU";
    case PERF_COUNT_HW_CACHE_NODE:
      return "PERF_COUNT_HW_CACHE_NODE";
    default:
      return {};
  }
}

std::string_view HwCacheOpName(uint64_t op) {
  switch (op) {
    case PERF_COUNT_HW_CACHE_OP_READ:
      return "PERF_COUNT_HW_CACHE_OP_READ";
    case PERF_COUNT_HW_CACHE_OP_WRITE:
      return "PERF_COUNT_HW_CACHE_OP_WRITE";
    case PERF_COUNT_HW_CACHE_OP_PREFETCH:
      return "PERF_COUNT_HW_CACHE_OP_PREFETCH";
    default:
      return {};
  }
}

std::string_view HwCacheResultName(uint64_t result) {
  switch (result) {
    case PERF_COUNT_HW_CACHE_RESULT_ACCESS:
      return "PERF_COUNT_HW_CACHE_RESULT_ACCESS";
    case PERF_COUNT_HW_CACHE_RESULT_MISS:
      return "PERF_COUNT_HW_CACHE_RESULT_MISS";
    default:
      return {};
  }
}

std::string SampleTypeNames(uint64_t sample_type) {
  return FormatFlags(kSampleType, sample_type);
}
std::string ReadFormatNames(uint64_t read_format) {
  return FormatFlags(kReadFormat, read_format);
}
std::string BranchSampleTypeNames(uint64_t branch_sample_type) {
  return FormatFlags(kBranchSampleType, branch_sample_type);
}

absl::StatusOr<uint64_t> ParseSampleType(std::string_view names) {
  return ParseFlags(kSampleType, names);
}
absl::StatusOr<uint64_t> ParseReadFormat(std::string_view names) {
  return ParseFlags(kReadFormat, names);
}
absl::StatusOr<uint64_t> ParseBranchSampleType(std::string_view names) {
  return ParseFlags(kBranchSampleType, names);
}

}  // namespace perfcounters
