// history_env.h: the environment fingerprints of the history's runs. `history
// add` stores each run's context whole (runs.context), fingerprint
// (perfcounters.env.*, docs/environment.md) included; this reads the one of
// a series' latest run back as a BenchmarkFile's context, for `history
// check`'s environment diff (env_diff.h).
#ifndef PERFCOUNTERS_TOOLS_HISTORY_ENV_H_
#define PERFCOUNTERS_TOOLS_HISTORY_ENV_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "gbench_json.h"
#include "history_store.h"

namespace perfcounters::tools {

// The context of the latest run (by time, then by when it was added) of
// `machine` on `branch` (empty: any branch), leaving out the run whose
// digest is `skip_digest`, as a BenchmarkFile with only `source` ("the
// history's latest run, <its source>") and `context`/`context_json` set;
// nullopt when the history has no such run.
absl::StatusOr<std::optional<BenchmarkFile>> LatestRunContext(
    HistoryStore& store, const std::string& machine, const std::string& branch,
    const std::string& skip_digest);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_ENV_H_
