// history_fingerprints.h: the environment fingerprints of a history's runs
// (docs/environment.md), as known boundaries of its series: where two
// consecutive runs of a series differ in a field that can move the series'
// metric (env_diff.h's decision table), a new level starts, and `history
// changes`, `history check` and `report --db` say so (kind "environment")
// rather than attribute a shift there to the code.
#ifndef PERFCOUNTERS_TOOLS_HISTORY_FINGERPRINTS_H_
#define PERFCOUNTERS_TOOLS_HISTORY_FINGERPRINTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gbench_json.h"
#include "history_export.h"
#include "history_store.h"
#include "oom_safe_map.h"

namespace perfcounters::tools {

class RunFingerprints {
 public:
  // The fingerprints of the runs of `machine` (empty: every machine). Each
  // distinct fingerprint is kept once (the load averages, which differ in
  // every run, are left out).
  static absl::StatusOr<RunFingerprints> Read(HistoryStore& store,
                                              const std::string& machine);

  // The fields that differ between runs `before` and `after` and can move
  // `metric`; empty when either run has no fingerprint (stored before
  // fingerprints, or not from benchmark_ext) or nothing that moves it
  // differs.
  std::vector<EnvFieldChange> Moved(const std::string& metric, int64_t before,
                                    int64_t after) const;

  // Moved() as history_export.h's EnvironmentDiffer (valid while this
  // object lives).
  EnvironmentDiffer Differ() const;

  // How many distinct fingerprints the runs have.
  size_t Distinct() const { return prints_.size(); }

 private:
  // Each distinct fingerprint as a file's context (perfcounters.env.* but
  // the load averages, gbench's library fields, perfcounters.events).
  std::vector<BenchmarkFile> prints_;
  OomSafeMap<int64_t, size_t> of_run_;
};

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_FINGERPRINTS_H_
