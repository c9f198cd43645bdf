// history_fingerprints.cc: a history's fingerprints as known boundaries
// (history_fingerprints.h).
#include "history_fingerprints.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "env_diff.h"
#include "history_env.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {

absl::StatusOr<RunFingerprints> RunFingerprints::Read(
    HistoryStore& store, const std::string& machine) {
  RunFingerprints out;
  std::map<std::string, size_t> index;  // a fingerprint's text -> prints_
  RETURN_IF_ERROR(ForEachRunContext(
      store, machine, [&](int64_t run_id, const BenchmarkFile& file) {
        BenchmarkFile print;
        std::string key;
        for (const auto& [k, v] : file.context) {
          // Neither the load nor the binary is a boundary.
          const bool env = absl::StartsWith(k, "perfcounters.env.") &&
                           !absl::StartsWith(k, "perfcounters.env.loadavg.") &&
                           !absl::StartsWith(k, "perfcounters.env.binary.");
          if (!env && k != "library_build_type" && k != "library_version" &&
              k != "perfcounters.events") {
            continue;
          }
          print.context.emplace_back(k, v);
          absl::StrAppend(&key, k.size(), ":", k, v.size(), ":", v);
        }
        if (FingerprintOf(print).empty()) return;  // no fingerprint
        auto [it, added] = index.emplace(key, out.prints_.size());
        if (added) out.prints_.push_back(std::move(print));
        out.of_run_[run_id] = it->second;
      }));
  return out;
}

std::vector<EnvFieldChange> RunFingerprints::Moved(const std::string& metric,
                                                   int64_t before,
                                                   int64_t after) const {
  const auto a = of_run_.find(before), b = of_run_.find(after);
  if (a == of_run_.end() || b == of_run_.end() || a->second == b->second) {
    return {};
  }
  const BenchmarkFile& next = prints_[b->second];
  const EnvDiff diff = DiffEnvironments(prints_[a->second], next);
  std::vector<EnvFieldChange> out;
  for (const FieldDiff* f : MovingFields(diff, metric, EventsOf(next), {})) {
    out.push_back({f->field, f->base, f->next});
  }
  return out;
}

EnvironmentDiffer RunFingerprints::Differ() const {
  return [this](const Series& s, const SeriesPoint& before,
                const SeriesPoint& after) {
    return Moved(s.metric, before.run_id, after.run_id);
  };
}

}  // namespace perfcounters::tools
