// history_add.cc: `history add`'s storing of one run (history.h): its
// parsing, its identity, its digest, and every value in one transaction.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "compare.h"
#include "counting_source.h"
#include "history.h"
#include "nlohmann/json.hpp"
#include "oom_safe_map.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string ContextValue(const BenchmarkFile& file, absl::string_view key) {
  for (const auto& [k, v] : file.context) {
    if (k == key) return v;
  }
  return "";
}

// An ISO 8601 time as stored: UTC, to the second.
absl::StatusOr<std::string> NormalizeTime(const std::string& text) {
  absl::Time t;
  std::string err;
  for (const char* format :
       {absl::RFC3339_full, "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%Ez",
        "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"}) {
    if (absl::ParseTime(format, text, absl::UTCTimeZone(), &t, &err)) {
      return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "time '", text, "' is not ISO 8601 (e.g. 2026-12-01T20:50:00Z)"));
}

// Get-or-create ids of names in `table` (benchmarks or metrics).
class NameIds {
 public:
  NameIds(HistoryStore& store, const char* table)
      : store_(store), table_(table) {}

  absl::Status Load() {
    return store_.Query(
        absl::StrCat("SELECT id, name FROM ", table_), {},
        {SqlType::kInt, SqlType::kText}, [&](const std::vector<SqlValue>& r) {
          ids_[std::get<std::string>(r[1])] = std::get<int64_t>(r[0]);
        });
  }

  absl::StatusOr<int64_t> Id(const std::string& name) {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    RETURN_IF_ERROR(store_.Exec(
        absl::StrCat("INSERT INTO ", table_,
                     " (name) VALUES (?) ON CONFLICT (name) DO NOTHING"),
        {name}));
    int64_t id = -1;
    RETURN_IF_ERROR(store_.Query(
        absl::StrCat("SELECT id FROM ", table_, " WHERE name = ?"), {name},
        {SqlType::kInt},
        [&](const std::vector<SqlValue>& r) { id = std::get<int64_t>(r[0]); }));
    ids_[name] = id;
    return id;
  }

 private:
  HistoryStore& store_;
  const char* table_;
  OomSafeMap<std::string, int64_t> ids_;
};

SqlValue Nullable(const std::optional<double>& v) {
  return v ? SqlValue(*v) : SqlValue(std::monostate{});
}

AddProgressHook add_progress_hook = nullptr;

void Progress(size_t written) {
  if (add_progress_hook != nullptr) add_progress_hook(written);
}

// One value of an entry: empty when not counted; coverage empty when on
// the PMU the whole time (or a time).
struct EntryValue {
  std::string metric;
  std::optional<double> value;
  std::optional<double> coverage;
};

std::vector<EntryValue> EntryValues(const BenchmarkFile& file,
                                    const RunEntry& e) {
  std::vector<EntryValue> out;
  if (e.real_time_ns) out.push_back({"real_time", e.real_time_ns, {}});
  if (e.cpu_time_ns) out.push_back({"cpu_time", e.cpu_time_ns, {}});
  for (const EntryCounter& c : e.counters) {
    EntryValue v{file.counter_names[c.name], std::nullopt, std::nullopt};
    if (c.counted) {
      v.value = c.value;
      for (const auto& [name, coverage] : e.coverages()) {
        if (name == c.name) v.coverage = coverage;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

// Stores the repetitions (of benchmarks with more than one) and the
// aggregates of `file`.
absl::Status StoreEntries(HistoryStore& store, const BenchmarkFile& file,
                          NameIds& benchmarks, NameIds& metrics,
                          AddResult& result, size_t& written) {
  // Repetitions (of benchmarks with more than one) and aggregates.
  OomSafeMap<std::string, int64_t> repetitions;
  for (const RunEntry& e : file.entries) {
    if (e.run_type == RunType::kIteration && !e.error_occurred && !e.skipped) {
      ++repetitions[e.run_name];
    }
  }
  OomSafeMap<std::string, int64_t> ordinal;
  for (const RunEntry& e : file.entries) {
    if (e.error_occurred || e.skipped) continue;
    const bool iteration = e.run_type == RunType::kIteration;
    if (iteration && repetitions[e.run_name] < 2) continue;
    ASSIGN_OR_RETURN(int64_t bid, benchmarks.Id(e.run_name));
    const int64_t rep = iteration && e.repetition_index >= 0
                            ? e.repetition_index
                            : ordinal[e.run_name];
    if (iteration) ++ordinal[e.run_name];
    for (const EntryValue& v : EntryValues(file, e)) {
      ASSIGN_OR_RETURN(int64_t mid, metrics.Id(v.metric));
      RETURN_IF_ERROR(
          iteration
              ? store.Exec(
                    "INSERT INTO samples (run_id, benchmark_id, metric_id, "
                    "repetition, value, coverage) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    {result.run_id, bid, mid, rep, Nullable(v.value),
                     Nullable(v.coverage)})
              : store.Exec(
                    "INSERT INTO aggregates (run_id, benchmark_id, "
                    "metric_id, aggregate, value, coverage) VALUES (?, ?, ?, "
                    "?, ?, ?) ON CONFLICT DO NOTHING",
                    {result.run_id, bid, mid, e.aggregate_name(),
                     Nullable(v.value), Nullable(v.coverage)}));
      ++(iteration ? result.samples : result.aggregates);
      Progress(++written);
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string BranchFromEnvironment() {
  std::string branch = Env("GITHUB_REF_NAME");
  if (branch.empty()) branch = Env("CI_COMMIT_REF_NAME");
  return branch;
}

absl::StatusOr<RunIdentity> ResolveIdentity(const BenchmarkFile& file,
                                            const RunIdentity& given) {
  RunIdentity id = given;
  if (id.machine.empty()) {
    // What does not move between runs: not the clock (mhz_per_cpu follows
    // the CPU's frequency, 2695 in one run and 2701 in the next).
    const std::string host = ContextValue(file, "host_name");
    const std::string model = ContextValue(file, "perfcounters.cpu_model");
    const std::string cpus = ContextValue(file, "num_cpus");
    id.machine = absl::StrCat(
        host.empty() ? "unknown-host" : host, " / ",
        !model.empty() ? model
                       : absl::StrCat(cpus.empty() ? "?" : cpus, " CPUs"));
  }
  // Simulated values (benchmark_ext's --perf_counters_source=simulate) are
  // a series of their own, never mixed with measured ones.
  if (CountingSource(file) == "simulate" && !SimulatedMachine(id.machine)) {
    absl::StrAppend(&id.machine, kSimulatedMachineSuffix);
  }
  if (id.commit.empty()) id.commit = Env("GITHUB_SHA");
  if (id.commit.empty()) id.commit = Env("CI_COMMIT_SHA");
  if (id.branch.empty()) id.branch = BranchFromEnvironment();
  if (id.time.empty()) {
    const std::string date = ContextValue(file, "date");
    absl::StatusOr<std::string> t = NormalizeTime(date);
    id.time = t.ok() ? *t
                     : absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                                        absl::UTCTimeZone());
  } else {
    absl::StatusOr<std::string> t = NormalizeTime(id.time);
    if (!t.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("--time: ", t.status().message()));
    id.time = *t;
  }
  return id;
}

std::string RunDigest(const std::string& text) {
  // Two independent 64-bit hashes (FNV-1a, and a multiply-rotate hash) of
  // the bytes: 128 bits, no collision among any realistic number of runs.
  uint64_t fnv = 1469598103934665603ull, mix = 0x9e3779b97f4a7c15ull;
  for (unsigned char c : text) {
    fnv = (fnv ^ c) * 1099511628211ull;
    mix = (mix ^ c) * 0xff51afd7ed558ccdull;
    mix = (mix << 31) | (mix >> 33);
  }
  mix ^= text.size();
  return absl::StrFormat("%016x%016x", fnv, mix);
}

absl::StatusOr<AddResult> AddRun(HistoryStore& store, const std::string& text,
                                 const BenchmarkFile& file,
                                 const RunIdentity& identity) {
  AddResult result;
  result.identity = identity;
  const std::string digest = RunDigest(text);
  nlohmann::json context = nlohmann::json::object();
  for (const auto& [k, v] : file.context) context[k] = v;
  for (const auto& [k, v] : file.context_json) {
    context[k] = nlohmann::json::parse(v, nullptr, /*allow_exceptions=*/false);
  }
  const std::string added =
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
  const std::vector<BenchmarkMetrics> summary = Summarize(file);

  absl::Status s = InTransaction(store, [&]() -> absl::Status {
    bool found = false;
    RETURN_IF_ERROR(store.Query(
        "INSERT INTO runs (digest, machine, commit_sha, branch, time, source, "
        "context, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (digest) "
        "DO NOTHING RETURNING id",
        {digest, identity.machine, identity.commit, identity.branch,
         identity.time, file.source, context.dump(), added},
        {SqlType::kInt}, [&](const std::vector<SqlValue>& r) {
          result.run_id = std::get<int64_t>(r[0]);
          found = true;
        }));
    if (!found) {
      result.already_stored = true;
      return store.Query("SELECT id FROM runs WHERE digest = ?", {digest},
                         {SqlType::kInt}, [&](const std::vector<SqlValue>& r) {
                           result.run_id = std::get<int64_t>(r[0]);
                         });
    }
    NameIds benchmarks(store, "benchmarks"), metrics(store, "metrics");
    RETURN_IF_ERROR(benchmarks.Load());
    RETURN_IF_ERROR(metrics.Load());
    size_t written = 0;
    // The series' points, derived metrics included.
    for (const BenchmarkMetrics& b : summary) {
      ASSIGN_OR_RETURN(int64_t bid, benchmarks.Id(b.name));
      for (const auto& [name, side] : b.metrics) {
        if (!side.present) continue;
        ASSIGN_OR_RETURN(int64_t mid, metrics.Id(name));
        std::optional<double> lo, hi;
        if (!side.samples.empty()) {
          const auto [l, h] =
              std::minmax_element(side.samples.begin(), side.samples.end());
          lo = *l;
          hi = *h;
        }
        RETURN_IF_ERROR(store.Exec(
            "INSERT INTO points (benchmark_id, metric_id, run_id, value, "
            "lo, hi, samples, not_counted, from_aggregate, coverage) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            {bid, mid, result.run_id, Nullable(side.median), Nullable(lo),
             Nullable(hi), static_cast<int64_t>(side.samples.size()),
             static_cast<int64_t>(side.not_counted),
             int64_t{side.from_aggregate ? 1 : 0}, Nullable(side.coverage)}));
        ++result.points;
        if (!side.median) ++result.not_counted;
        Progress(++written);
      }
    }
    return StoreEntries(store, file, benchmarks, metrics, result, written);
  });
  if (!s.ok()) return s;
  return result;
}

absl::StatusOr<BenchmarkFile> ParseRunText(const std::string& text,
                                           const std::string& path) {
  absl::StatusOr<BenchmarkFile> file = ParseBenchmarkJson(text, path);
  if (!file.ok()) {
    return absl::Status(
        file.status().code(),
        absl::StrCat(file.status().message(), " (nothing of it was stored)"));
  }
  if (file->entries.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     " has no benchmarks: not a Google Benchmark JSON run "
                     "(nothing stored)"));
  }
  PrintWarnings("history add", *file);
  return file;
}

absl::StatusOr<AddResult> AddParsedRun(HistoryStore& store,
                                       const std::string& text,
                                       const BenchmarkFile& file,
                                       const RunIdentity& given) {
  ASSIGN_OR_RETURN(RunIdentity id, ResolveIdentity(file, given));
  absl::StatusOr<AddResult> r = AddRun(store, text, file, id);
  if (!r.ok()) {
    return absl::Status(
        r.status().code(),
        absl::StrCat(r.status().message(), " (the store is as it was before)"));
  }
  return r;
}

absl::StatusOr<AddResult> AddRunText(HistoryStore& store,
                                     const std::string& text,
                                     const std::string& path,
                                     const RunIdentity& given) {
  ASSIGN_OR_RETURN(BenchmarkFile file, ParseRunText(text, path));
  return AddParsedRun(store, text, file, given);
}

void SetAddProgressHook(AddProgressHook hook) { add_progress_hook = hook; }

}  // namespace perfcounters::tools
