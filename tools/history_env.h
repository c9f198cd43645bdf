// history_env.h: the environment fingerprints of the history's runs. `history
// add` stores each run's context whole (runs.context), fingerprint
// (perfcounters.env.*, docs/environment.md) included; this reads the one of
// a series' latest run back as a BenchmarkFile's context, for `history
// check`'s environment diff (env_diff.h), and every run's, for the known
// boundaries of `history changes` and `report --db`.
#ifndef PERFCOUNTERS_TOOLS_HISTORY_ENV_H_
#define PERFCOUNTERS_TOOLS_HISTORY_ENV_H_

#include <cstdint>
#include <functional>
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

// Calls `visit(run_id, file)` for each stored run of `machine` (empty:
// every machine) with its context as a BenchmarkFile (only `context` and
// `context_json` set; empty for a run stored without one), one run at a
// time.
absl::Status ForEachRunContext(
    HistoryStore& store, const std::string& machine,
    const std::function<void(int64_t run_id, const BenchmarkFile& file)>&
        visit);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_ENV_H_
