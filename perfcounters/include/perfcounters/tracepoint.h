// tracepoint.h: kernel tracepoints, found through tracefs.
//
// A tracepoint `category:name` (e.g. `sched:sched_switch`) is opened as
// PERF_TYPE_TRACEPOINT with config = the number in
// <tracefs>/events/<category>/<name>/id. tracefs is looked for in
// SystemPaths::tracefs, in order (/sys/kernel/tracing, then
// /sys/kernel/debug/tracing); these functions find it, read ids and list
// what exists (for `perfcounters list`).
#ifndef PERFCOUNTERS_TRACEPOINT_H_
#define PERFCOUNTERS_TRACEPOINT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"
#include "perfcounters/paths.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The first SystemPaths::tracefs candidate that holds an events/ directory.
// NotFoundError when none does: the message lists where it looked and says
// how to mount tracefs (`mount -t tracefs nodev /sys/kernel/tracing`, as
// root).
absl::StatusOr<std::string> FindTracefs(const SystemPaths& paths = {});

// The id of tracepoint category:name (the contents of
// events/<category>/<name>/id). NotFoundError when it does not exist (with
// close names from that category when there are any); PermissionDenied when
// tracefs may not be read (tracefs is root-only on most kernels).
absl::StatusOr<uint64_t> TracepointId(std::string_view category,
                                      std::string_view name,
                                      const SystemPaths& paths = {});

// Every tracepoint category (the directories under events/), sorted.
absl::StatusOr<std::vector<std::string>> ListTracepointCategories(
    const SystemPaths& paths = {});

// Every tracepoint of one category (the directories under
// events/<category>/ that hold an id file), sorted.
absl::StatusOr<std::vector<std::string>> ListTracepoints(
    std::string_view category, const SystemPaths& paths = {});

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_TRACEPOINT_H_
