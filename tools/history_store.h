// history_store.h: the results store of `perfcounters history` behind one
// small interface with two back ends: SQLite (a file path; libsqlite3, WAL
// with a busy timeout) and PostgreSQL (a postgresql:// or postgres:// URL;
// libpq). Both hold the same versioned schema (history_schema.cc); callers
// write SQL with `?` placeholders, which the PostgreSQL back end numbers.
// Neither library appears in this header.
#ifndef PERFCOUNTERS_TOOLS_HISTORY_STORE_H_
#define PERFCOUNTERS_TOOLS_HISTORY_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perfcounters::tools {

// A parameter or a column value: NULL, an integer, a double or text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;

// The type a query's column is read as.
enum class SqlType { kInt, kDouble, kText };

// A column of a row of QueryNumbers(): NULL, or its value read as its
// SqlType (`i` for kInt, `d` for kDouble; the other is 0).
struct SqlNumber {
  bool null = true;
  int64_t i = 0;
  double d = 0;
};

class HistoryStore {
 public:
  virtual ~HistoryStore() = default;

  // "sqlite" or "postgresql".
  virtual const char* Backend() const = 0;
  // The store as named to people (a URL without its password).
  virtual const std::string& Name() const = 0;

  // Runs one statement. Errors name the store and what failed.
  virtual absl::Status Exec(absl::string_view sql,
                            const std::vector<SqlValue>& params = {}) = 0;
  // Runs a query; `row` gets each row's columns read as `types`.
  virtual absl::Status Query(
      absl::string_view sql, const std::vector<SqlValue>& params,
      const std::vector<SqlType>& types,
      const std::function<void(const std::vector<SqlValue>&)>& row) = 0;
  // Query() of columns that are all kInt or kDouble, each row handed over
  // without a variant or a string per column: how a large store's points
  // are read. The same values as Query() gives; this default reads them
  // through it, a back end may read them directly.
  virtual absl::Status QueryNumbers(
      absl::string_view sql, const std::vector<SqlValue>& params,
      const std::vector<SqlType>& types,
      const std::function<void(const SqlNumber* row)>& row);
  // A write transaction (SQLite: BEGIN IMMEDIATE, waiting for other writers
  // up to the busy timeout).
  virtual absl::Status Begin() = 0;
  virtual absl::Status Commit() = 0;
  // Never fails loudly: rolling back what may not have begun is harmless.
  virtual void Rollback() = 0;

  // The DDL type of an auto-numbered primary key column.
  virtual const char* SerialKey() const = 0;
};

// The schema version this build writes, and reads.
// Version 2 added each value's multiplexing coverage; version 3 dropped the
// CPU's clock from the default machine ("host / 2 CPUs / 2695 MHz" became
// "host / 2 CPUs").
inline constexpr int64_t kHistorySchemaVersion = 3;

// What a command does with a store.
enum class StoreAccess {
  // `history add`: creates a store that does not exist (a file that does
  // not exist or is empty; a PostgreSQL database without our tables) and
  // migrates its schema forward.
  kAdd,
  // Everything else: opens the store read-only (SQLite; PostgreSQL's
  // readers only SELECT), so that a user who may read but not write it
  // can; a store that does not exist or holds no history is NotFound,
  // naming it. (An older schema is migrated, which needs write access.)
  kRead,
};

// Opens the store `db`. A file or database that holds tables of another
// program (SQLite: any table; PostgreSQL: a table of ours, without our
// schema version) is refused (InvalidArgument): perfcounters never writes
// into another program's database. A store of a newer schema version is
// FailedPrecondition, naming both versions. A URL that is malformed, a
// server that cannot be reached or refuses the login, a file that is not a
// store: InvalidArgument / Unavailable / PermissionDenied naming `db`
// (never its password).
absl::StatusOr<std::unique_ptr<HistoryStore>> OpenHistoryStore(
    const std::string& db, StoreAccess mode = StoreAccess::kAdd);

// Whether `db` names a PostgreSQL store (a postgresql:// or postgres://
// URL).
bool IsPostgresUrl(absl::string_view db);

// `url` with its passwords (USER:PASSWORD@ and ?password=) replaced by
// "***" (for messages).
std::string RedactUrl(absl::string_view url);

// The passwords a PostgreSQL connection to `url` may use, each as written
// and percent-decoded: the URL's and PGPASSWORD; longest first.
std::vector<std::string> UrlSecrets(absl::string_view url);

// A libpq message `text` about `url` made fit to print: the URL redacted,
// every password of UrlSecrets() "***", its lines joined by "; ".
std::string ScrubMessage(absl::string_view text, absl::string_view url);

// The back ends (history_sqlite.cc, history_pg.cc): open without the
// schema step.
absl::StatusOr<std::unique_ptr<HistoryStore>> OpenSqliteStore(
    const std::string& path, bool read_only = false);
absl::StatusOr<std::unique_ptr<HistoryStore>> OpenPostgresStore(
    const std::string& url);

// Creates or migrates the schema (history_schema.cc) to `version` (tests
// make an older store with a smaller one), in one transaction.
absl::Status PrepareSchema(HistoryStore& store,
                           int64_t version = kHistorySchemaVersion);

// Runs `body` in one write transaction: committed when it returns OK,
// rolled back otherwise.
absl::Status InTransaction(HistoryStore& store,
                           const std::function<absl::Status()>& body);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_HISTORY_STORE_H_
