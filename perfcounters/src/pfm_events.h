// pfm_events.h (internal): the pieces of the libpfm4 vendor-name support
// (vendor_events.h) that the grammar needs besides EncodeVendorEvent.
#ifndef PERFCOUNTERS_SRC_PFM_EVENTS_H_
#define PERFCOUNTERS_SRC_PFM_EVENTS_H_

#include <string>
#include <string_view>
#include <vector>

namespace perfcounters::internal {

// "this build lacks libpfm4, ..." with what to do instead.
std::string NoLibpfmMessage();

// perf's dotted spelling to libpfm's: the dots of the event part (after an
// optional "table::", before the first ':') become ':'
// (inst_retired.any_p -> inst_retired:any_p). Other text is kept.
std::string ToLibpfmName(std::string_view name);

// The umask and modifier names of the vendor event that `event` (a name as
// EncodeVendorEvent takes it) starts with, in the first table in use that
// has it; empty when none has it or without libpfm4.
std::vector<std::string> VendorEventAttrNames(std::string_view event);

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_PFM_EVENTS_H_
