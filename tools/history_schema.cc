// history_schema.cc: the history store's schema, created and migrated
// forward in one transaction, and the store's opening. docs/history.md
// describes the tables.
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "history_store.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

// The tables of schema version 1. SERIAL is the back end's auto-numbered
// key; WITHOUT_ROWID clusters SQLite's tables on their primary keys.
const std::vector<std::string>& SchemaV1() {
  static const auto* statements = new std::vector<std::string>{
      "CREATE TABLE IF NOT EXISTS runs (id SERIAL, digest TEXT NOT NULL "
      "UNIQUE, machine TEXT NOT NULL, commit_sha TEXT NOT NULL, branch TEXT "
      "NOT NULL, time TEXT NOT NULL, source TEXT NOT NULL, context TEXT NOT "
      "NULL, added TEXT NOT NULL)",
      "CREATE INDEX IF NOT EXISTS runs_by_series ON runs (machine, branch, "
      "time)",
      "CREATE TABLE IF NOT EXISTS benchmarks (id SERIAL, name TEXT NOT NULL "
      "UNIQUE)",
      "CREATE TABLE IF NOT EXISTS metrics (id SERIAL, name TEXT NOT NULL "
      "UNIQUE)",
      // One value per run, benchmark and metric: the series' point. value
      // NULL: not counted in that run.
      "CREATE TABLE IF NOT EXISTS points (benchmark_id BIGINT NOT NULL, "
      "metric_id BIGINT NOT NULL, run_id BIGINT NOT NULL REFERENCES runs "
      "(id), value DOUBLE PRECISION, lo DOUBLE PRECISION, hi DOUBLE "
      "PRECISION, samples BIGINT NOT NULL, not_counted BIGINT NOT NULL, "
      "from_aggregate BIGINT NOT NULL, PRIMARY KEY (benchmark_id, metric_id, "
      "run_id)) WITHOUT_ROWID",
      "CREATE INDEX IF NOT EXISTS points_by_run ON points (run_id)",
      // Each repetition's value (runs with more than one repetition).
      "CREATE TABLE IF NOT EXISTS samples (run_id BIGINT NOT NULL "
      "REFERENCES runs (id), benchmark_id BIGINT NOT NULL, metric_id BIGINT "
      "NOT NULL, repetition BIGINT NOT NULL, value DOUBLE PRECISION, PRIMARY "
      "KEY (run_id, benchmark_id, metric_id, repetition)) WITHOUT_ROWID",
      // gbench's aggregates (mean, median, stddev, cv, ...).
      "CREATE TABLE IF NOT EXISTS aggregates (run_id BIGINT NOT NULL "
      "REFERENCES runs (id), benchmark_id BIGINT NOT NULL, metric_id BIGINT "
      "NOT NULL, aggregate TEXT NOT NULL, value DOUBLE PRECISION, PRIMARY KEY "
      "(run_id, benchmark_id, metric_id, aggregate)) WITHOUT_ROWID",
  };
  return *statements;
}

// Migrations: Migrations()[v - 1] takes a store from version v to v + 1. A
// new store is created at version 1 and migrated like an old one, so that
// both take the same path.
const std::vector<std::vector<std::string>>& Migrations() {
  static const auto* steps = new std::vector<std::vector<std::string>>{
      // 1 -> 2: the multiplexing coverage of each value ("<label>.coverage";
      // NULL: on the PMU the whole time, or not a counter). Values stored
      // before have none.
      {"ALTER TABLE points ADD COLUMN coverage DOUBLE PRECISION",
       "ALTER TABLE samples ADD COLUMN coverage DOUBLE PRECISION",
       "ALTER TABLE aggregates ADD COLUMN coverage DOUBLE PRECISION"},
      // 2 -> 3: the default machine no longer has the CPU's clock
      // (DropClockFromMachines()).
      {},
  };
  return *steps;
}

// "host / 2 CPUs / 2695 MHz", the default machine of versions 1 and 2,
// becomes "host / 2 CPUs": the clock moves between runs of one machine.
absl::Status DropClockFromMachines(HistoryStore& store) {
  std::vector<std::string> machines;
  RETURN_IF_ERROR(
      store.Query("SELECT DISTINCT machine FROM runs", {}, {SqlType::kText},
                  [&](const std::vector<SqlValue>& row) {
                    machines.push_back(std::get<std::string>(row[0]));
                  }));
  for (const std::string& m : machines) {
    const size_t slash = m.rfind(" / ");
    if (slash == std::string::npos || !absl::EndsWith(m, " MHz") ||
        !absl::EndsWith(m.substr(0, slash), " CPUs")) {
      continue;
    }
    RETURN_IF_ERROR(store.Exec("UPDATE runs SET machine = ? WHERE machine = ?",
                               {m.substr(0, slash), m}));
  }
  return absl::OkStatus();
}

std::string ForBackend(const HistoryStore& store, const std::string& sql) {
  const bool sqlite = std::string(store.Backend()) == "sqlite";
  return absl::StrReplaceAll(
      sql, {{"id SERIAL", absl::StrCat("id ", store.SerialKey())},
            {" WITHOUT_ROWID", sqlite ? " WITHOUT ROWID" : ""}});
}

absl::StatusOr<bool> HasMetaTable(HistoryStore& store) {
  const bool sqlite = std::string(store.Backend()) == "sqlite";
  int64_t count = 0;
  RETURN_IF_ERROR(store.Query(
      sqlite ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
               "name = 'perfcounters_meta'"
             : "SELECT count(*) FROM information_schema.tables WHERE "
               "table_name = 'perfcounters_meta' AND table_schema = "
               "current_schema()",
      {}, {SqlType::kInt}, [&](const std::vector<SqlValue>& row) {
        count = std::get<int64_t>(row[0]);
      }));
  return count > 0;
}

absl::StatusOr<int64_t> StoredVersion(HistoryStore& store) {
  std::string text;
  RETURN_IF_ERROR(store.Query(
      "SELECT value FROM perfcounters_meta WHERE key = 'schema_version'", {},
      {SqlType::kText}, [&](const std::vector<SqlValue>& row) {
        if (const auto* v = std::get_if<std::string>(&row[0])) text = *v;
      }));
  int64_t version = 0;
  if (!absl::SimpleAtoi(text, &version) || version < 1) {
    return absl::DataLossError(absl::StrCat("store ", store.Name(),
                                            " has no valid schema version ('",
                                            text, "' in perfcounters_meta)"));
  }
  return version;
}

absl::Status TooNew(const HistoryStore& store, int64_t version) {
  return absl::FailedPreconditionError(absl::StrCat(
      "store ", store.Name(), " has schema version ", version,
      ", written by a newer perfcounters; this one reads schema version ",
      kHistorySchemaVersion,
      " and older: use a newer perfcounters (the store is left unchanged)"));
}

}  // namespace

absl::Status HistoryStore::QueryNumbers(
    absl::string_view sql, const std::vector<SqlValue>& params,
    const std::vector<SqlType>& types,
    const std::function<void(const SqlNumber* row)>& row) {
  std::vector<SqlNumber> numbers(types.size());
  return Query(sql, params, types, [&](const std::vector<SqlValue>& values) {
    for (size_t c = 0; c < values.size(); ++c) {
      SqlNumber& n = numbers[c];
      n = SqlNumber{};
      if (const auto* i = std::get_if<int64_t>(&values[c])) {
        n.null = false;
        n.i = *i;
      } else if (const auto* d = std::get_if<double>(&values[c])) {
        n.null = false;
        n.d = *d;
      }
    }
    row(numbers.data());
  });
}

absl::Status InTransaction(HistoryStore& store,
                           const std::function<absl::Status()>& body) {
  RETURN_IF_ERROR(store.Begin());
  absl::Status s = body();
  if (s.ok()) s = store.Commit();
  if (!s.ok()) store.Rollback();
  return s;
}

absl::Status PrepareSchema(HistoryStore& store, int64_t target) {
  ASSIGN_OR_RETURN(bool has_meta, HasMetaTable(store));
  if (has_meta) {
    ASSIGN_OR_RETURN(int64_t version, StoredVersion(store));
    if (version > kHistorySchemaVersion) return TooNew(store, version);
    if (version >= target) return absl::OkStatus();
  }
  // Create or migrate, one writer at a time.
  return InTransaction(store, [&]() -> absl::Status {
    if (std::string(store.Backend()) == "postgresql") {
      RETURN_IF_ERROR(store.Exec("SELECT pg_advisory_xact_lock(7243028)"));
    }
    RETURN_IF_ERROR(store.Exec(
        "CREATE TABLE IF NOT EXISTS perfcounters_meta (key TEXT PRIMARY "
        "KEY, value TEXT NOT NULL)"));
    int64_t version = 0;
    RETURN_IF_ERROR(store.Query(
        "SELECT value FROM perfcounters_meta WHERE key = 'schema_version'", {},
        {SqlType::kText}, [&](const std::vector<SqlValue>& row) {
          if (const auto* v = std::get_if<std::string>(&row[0])) {
            if (!absl::SimpleAtoi(*v, &version)) version = 0;
          }
        }));
    if (version > kHistorySchemaVersion) return TooNew(store, version);
    if (version >= target) return absl::OkStatus();  // another writer did it
    if (version == 0) {
      for (const std::string& sql : SchemaV1()) {
        RETURN_IF_ERROR(store.Exec(ForBackend(store, sql)));
      }
      version = 1;
    }
    for (; version < target; ++version) {
      for (const std::string& sql : Migrations()[version - 1]) {
        RETURN_IF_ERROR(store.Exec(ForBackend(store, sql)));
      }
      if (version == 2) RETURN_IF_ERROR(DropClockFromMachines(store));
    }
    RETURN_IF_ERROR(store.Exec(
        "DELETE FROM perfcounters_meta WHERE key = 'schema_version'"));
    return store.Exec(
        "INSERT INTO perfcounters_meta (key, value) VALUES "
        "('schema_version', ?)",
        {absl::StrCat(target)});
  });
}

namespace {

// The tables of the store's database (SQLite: all; PostgreSQL: those of
// the current schema).
absl::StatusOr<std::vector<std::string>> Tables(HistoryStore& store) {
  std::vector<std::string> out;
  RETURN_IF_ERROR(store.Query(
      std::string(store.Backend()) == "sqlite"
          ? "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
          : "SELECT table_name FROM information_schema.tables WHERE "
            "table_schema = current_schema() ORDER BY table_name",
      {}, {SqlType::kText}, [&](const std::vector<SqlValue>& row) {
        if (const auto* t = std::get_if<std::string>(&row[0])) {
          out.push_back(*t);
        }
      }));
  return out;
}

constexpr const char* kOurTables[] = {
    "perfcounters_meta", "runs",      "benchmarks", "metrics", "points",
    "samples",           "aggregates"};

// OK for a store of ours or an empty one (`*empty` says which); an error
// for a database of another program.
absl::Status CheckOurs(HistoryStore& store, bool* empty) {
  ASSIGN_OR_RETURN(std::vector<std::string> tables, Tables(store));
  *empty = tables.empty();
  std::vector<std::string> foreign;
  for (const std::string& t : tables) {
    if (t == "perfcounters_meta") return absl::OkStatus();
    const bool ours = std::find(std::begin(kOurTables), std::end(kOurTables),
                                t) != std::end(kOurTables);
    // PostgreSQL: a database may hold other programs' tables beside ours,
    // but not tables of our names that are not ours.
    if (ours || std::string(store.Backend()) == "sqlite") foreign.push_back(t);
  }
  if (foreign.empty()) return absl::OkStatus();
  if (foreign.size() > 5) {
    foreign.resize(5);
    foreign.push_back("...");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "store ", store.Name(),
      " is not a perfcounters history store: it holds tables of another "
      "program (",
      absl::StrJoin(foreign, ", "),
      ") and no perfcounters_meta; give --db a new file (or an empty one) "
      "for a new store, or the path of an existing store"));
}

absl::Status MissingStore(const std::string& db, bool exists) {
  return absl::NotFoundError(absl::StrCat(
      "store ", IsPostgresUrl(db) ? RedactUrl(db) : db,
      exists ? " holds no history (no run was added to it)" : " does not exist",
      ": check --db; `perfcounters history add RUN.json --db DB` creates a "
      "store"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HistoryStore>> OpenHistoryStore(
    const std::string& db, StoreAccess mode) {
  const bool pg = IsPostgresUrl(db);
  const bool read = mode == StoreAccess::kRead;
  if (read && !pg && !db.empty() && ::access(db.c_str(), F_OK) != 0) {
    return MissingStore(db, false);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HistoryStore> store,
                   pg ? OpenPostgresStore(db) : OpenSqliteStore(db, read));
  bool empty = false;
  RETURN_IF_ERROR(CheckOurs(*store, &empty));
  if (!read) {
    RETURN_IF_ERROR(PrepareSchema(*store));
    return store;
  }
  ASSIGN_OR_RETURN(bool has_meta, HasMetaTable(*store));
  if (!has_meta) return MissingStore(db, true);
  ASSIGN_OR_RETURN(int64_t version, StoredVersion(*store));
  if (version > kHistorySchemaVersion) return TooNew(*store, version);
  if (version < kHistorySchemaVersion) {
    // An older store is migrated forward (as add would), which writes.
    if (!pg) {
      store.reset();
      ASSIGN_OR_RETURN(store, OpenSqliteStore(db, false));
    }
    if (absl::Status s = PrepareSchema(*store); !s.ok()) {
      return absl::Status(
          s.code(),
          absl::StrCat(s.message(), "; the store has schema version ", version,
                       ", which this perfcounters "
                       "migrates to ",
                       kHistorySchemaVersion,
                       " when it opens it: once, as a user who "
                       "may write the store"));
    }
  }
  return store;
}

}  // namespace perfcounters::tools
