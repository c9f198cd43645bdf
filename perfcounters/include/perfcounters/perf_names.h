// perf_names.h: the names perf prints for the kernel's perf_event constants.
//
// These are the spellings of `perf stat -vv` / `perf_event_attr__fprintf`:
// the PERF_TYPE_* name of an attr type, the PERF_COUNT_HW_CACHE_* parts of a
// hardware cache config, and the flag words sample_type (`IP|TID|TIME`),
// read_format and branch_sample_type. encode.h uses them; the ring buffer
// and the command-line tools can reuse them to print or parse the same
// words. The generic hardware and software event names
// (PERF_COUNT_HW_* / PERF_COUNT_SW_*) are in generic_events.h.
#ifndef PERFCOUNTERS_PERF_NAMES_H_
#define PERFCOUNTERS_PERF_NAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// "PERF_TYPE_HARDWARE" ... "PERF_TYPE_BREAKPOINT" for the six fixed types;
// empty for dynamic PMU types (read from sysfs) and unknown values.
std::string_view PerfTypeName(uint32_t type);

// The PERF_COUNT_HW_CACHE_* name of a cache id (config & 0xff), e.g.
// "PERF_COUNT_HW_CACHE_L1D"; empty when unknown.
std::string_view HwCacheIdName(uint64_t cache);
// "PERF_COUNT_HW_CACHE_OP_READ" / _WRITE / _PREFETCH; empty when unknown.
std::string_view HwCacheOpName(uint64_t op);
// "PERF_COUNT_HW_CACHE_RESULT_ACCESS" / _MISS; empty when unknown.
std::string_view HwCacheResultName(uint64_t result);

// The PERF_SAMPLE_* bits of `sample_type` as perf prints them: names
// without the prefix, joined by '|', in perf's order, e.g. "IP|TID|TIME".
// perf leaves out bits it has no name for; here they are appended as one
// hexadecimal number (e.g. "IP|0x4000000") so no bit is ever hidden.
// PERF_SAMPLE_TRANSACTION, which perf does not print, appears as
// "TRANSACTION" after perf's names. Empty for 0.
std::string SampleTypeNames(uint64_t sample_type);
// The PERF_FORMAT_* bits of `read_format`, e.g.
// "TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|GROUP"; same rules.
std::string ReadFormatNames(uint64_t read_format);
// The PERF_SAMPLE_BRANCH_* bits of `branch_sample_type`, e.g.
// "USER|ANY_CALL"; same rules.
std::string BranchSampleTypeNames(uint64_t branch_sample_type);

// The inverses: parse a '|'-separated list of the names above
// (case-insensitive, with or without the PERF_SAMPLE_ / PERF_FORMAT_ /
// PERF_SAMPLE_BRANCH_ prefix; hexadecimal numbers such as 0x100 are taken as
// raw bits). "" is 0. InvalidArgumentError naming the unknown word and
// listing the valid ones.
absl::StatusOr<uint64_t> ParseSampleType(std::string_view names);
absl::StatusOr<uint64_t> ParseReadFormat(std::string_view names);
absl::StatusOr<uint64_t> ParseBranchSampleType(std::string_view names);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_PERF_NAMES_H_
