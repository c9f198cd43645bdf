// changepoint_options.h: the change-point options `history changes`,
// `history check` and `report --db` share (--method, --cp-min-sigmas,
// --cp-window, --cp-p-value, --cp-min-change), wired in one place.
#ifndef PERFCOUNTERS_TOOLS_CHANGEPOINT_OPTIONS_H_
#define PERFCOUNTERS_TOOLS_CHANGEPOINT_OPTIONS_H_

#include "history_changes.h"

namespace CLI {
class App;
}  // namespace CLI

namespace perfcounters::tools {

// Adds the change-point options to `app`, writing into `cp`.
void AddChangePointOptions(CLI::App& app, ChangePointOptions& cp);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_CHANGEPOINT_OPTIONS_H_
