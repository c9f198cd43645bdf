// history_sqlite.cc: the SQLite back end of the history store (a file
// path): WAL journal, so that readers never block a writer; a busy timeout,
// so that two CI jobs adding at once wait for each other instead of
// failing; write transactions BEGIN IMMEDIATE; prepared statements cached
// by their text.
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "history_store.h"
#include "oom_safe_map.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

// How long a writer waits for another one (a CI job adding a large run).
constexpr int kBusyTimeoutMs = 120000;

class SqliteStore final : public HistoryStore {
 public:
  SqliteStore(sqlite3* db, std::string path)
      : db_(db), name_(std::move(path)) {}
  ~SqliteStore() override {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  const char* Backend() const override { return "sqlite"; }
  const std::string& Name() const override { return name_; }
  const char* SerialKey() const override { return "INTEGER PRIMARY KEY"; }

  absl::Status Error(int rc, absl::string_view what) const {
    const std::string message =
        absl::StrCat("store ", name_, ": ", what, ": ", sqlite3_errmsg(db_));
    switch (rc & 0xff) {
      case SQLITE_READONLY:
      case SQLITE_PERM:
      case SQLITE_CANTOPEN:
        return absl::PermissionDeniedError(absl::StrCat(
            message, " (the file or its directory is not writable here)"));
      case SQLITE_FULL:
        return absl::ResourceExhaustedError(absl::StrCat(
            message, " (no space left for the store, or a file size limit)"));
      case SQLITE_NOTADB:
        return absl::InvalidArgumentError(
            absl::StrCat("store ", name_,
                         " is not a perfcounters history store (not an "
                         "SQLite database)"));
      case SQLITE_CORRUPT:
        return absl::DataLossError(message);
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return absl::UnavailableError(
            absl::StrCat(message, " (another writer held it longer than ",
                         kBusyTimeoutMs / 1000, " s)"));
      default:
        return absl::InternalError(message);
    }
  }

  absl::StatusOr<sqlite3_stmt*> Prepare(absl::string_view sql) {
    std::string key(sql);
    if (auto it = cache_.find(key); it != cache_.end()) {
      sqlite3_reset(it->second);
      sqlite3_clear_bindings(it->second);
      return it->second;
    }
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v2(
        db_, key.data(), static_cast<int>(key.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) return Error(rc, "cannot prepare a statement");
    cache_.emplace(std::move(key), stmt);
    return stmt;
  }

  absl::Status Bind(sqlite3_stmt* stmt, const std::vector<SqlValue>& params) {
    for (size_t i = 0; i < params.size(); ++i) {
      const int k = static_cast<int>(i + 1);
      int rc = SQLITE_OK;
      const SqlValue& p = params[i];
      if (std::holds_alternative<std::monostate>(p)) {
        rc = sqlite3_bind_null(stmt, k);
      } else if (const auto* v = std::get_if<int64_t>(&p)) {
        rc = sqlite3_bind_int64(stmt, k, *v);
      } else if (const auto* d = std::get_if<double>(&p)) {
        rc = sqlite3_bind_double(stmt, k, *d);
      } else {
        const std::string& s = std::get<std::string>(p);
        rc = sqlite3_bind_text(stmt, k, s.data(), static_cast<int>(s.size()),
                               SQLITE_TRANSIENT);
      }
      if (rc != SQLITE_OK) return Error(rc, "cannot bind a value");
    }
    return absl::OkStatus();
  }

  // Whether `stmt` has another row; on an error it is reset.
  absl::StatusOr<bool> Step(sqlite3_stmt* stmt) {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    absl::Status error = Error(rc, "a statement failed");
    sqlite3_reset(stmt);
    return error;
  }

  absl::Status Exec(absl::string_view sql,
                    const std::vector<SqlValue>& params) override {
    return Query(sql, params, {}, nullptr);
  }

  absl::Status Query(
      absl::string_view sql, const std::vector<SqlValue>& params,
      const std::vector<SqlType>& types,
      const std::function<void(const std::vector<SqlValue>&)>& row) override {
    ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    RETURN_IF_ERROR(Bind(stmt, params));
    std::vector<SqlValue> values(types.size());
    while (true) {
      ASSIGN_OR_RETURN(const bool more, Step(stmt));
      if (!more) break;
      if (!row) continue;
      for (size_t i = 0; i < types.size(); ++i) {
        const int c = static_cast<int>(i);
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
          values[i] = std::monostate{};
        } else if (types[i] == SqlType::kInt) {
          values[i] = static_cast<int64_t>(sqlite3_column_int64(stmt, c));
        } else if (types[i] == SqlType::kDouble) {
          values[i] = sqlite3_column_double(stmt, c);
        } else {
          const unsigned char* text = sqlite3_column_text(stmt, c);
          values[i] = std::string(reinterpret_cast<const char*>(text),
                                  sqlite3_column_bytes(stmt, c));
        }
      }
      row(values);
    }
    sqlite3_reset(stmt);
    return absl::OkStatus();
  }

  // Query()'s loop without its variants: each column's value is read
  // straight into the row's SqlNumber.
  absl::Status QueryNumbers(
      absl::string_view sql, const std::vector<SqlValue>& params,
      const std::vector<SqlType>& types,
      const std::function<void(const SqlNumber* row)>& row) override {
    ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    RETURN_IF_ERROR(Bind(stmt, params));
    std::vector<SqlNumber> numbers(types.size());
    const int columns = static_cast<int>(types.size());
    while (true) {
      ASSIGN_OR_RETURN(const bool more, Step(stmt));
      if (!more) break;
      for (int c = 0; c < columns; ++c) {
        // One call into the statement per column: its value, read here
        // in this thread only (the connection is NOMUTEX, used by one).
        sqlite3_value* v = sqlite3_column_value(stmt, c);
        SqlNumber& n = numbers[static_cast<size_t>(c)];
        n.null = sqlite3_value_type(v) == SQLITE_NULL;
        n.i = 0;
        n.d = 0;
        if (n.null) continue;
        if (types[static_cast<size_t>(c)] == SqlType::kInt) {
          n.i = static_cast<int64_t>(sqlite3_value_int64(v));
        } else {
          n.d = sqlite3_value_double(v);
        }
      }
      row(numbers.data());
    }
    sqlite3_reset(stmt);
    return absl::OkStatus();
  }

  absl::Status Begin() override { return Exec("BEGIN IMMEDIATE", {}); }
  absl::Status Commit() override { return Exec("COMMIT", {}); }
  void Rollback() override {
    if (sqlite3_get_autocommit(db_) == 0) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
  }

 private:
  sqlite3* db_;
  std::string name_;
  OomSafeMap<std::string, sqlite3_stmt*> cache_;
};

// Whether this process may create files in the directory of `path`.
bool DirectoryWritable(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  return access(dir.c_str(), W_OK) == 0;
}

// `path` for a file: URI (RFC 3986: '%', '?' and '#' escaped).
std::string UriPath(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      absl::StrAppend(&out, absl::StrFormat("%%%02X", c));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HistoryStore>> OpenSqliteStore(
    const std::string& path, bool read_only) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "--db is empty: give a file path (SQLite) or a postgresql:// URL");
  }
  // A reader that may not create the WAL index (a directory it cannot
  // write, no writer active: no -wal file) reads the file as it is
  // (immutable): SQLite cannot open a WAL store read-only otherwise.
  const bool immutable = read_only && access(path.c_str(), F_OK) == 0 &&
                         access((path + "-wal").c_str(), F_OK) != 0 &&
                         access((path + "-shm").c_str(), F_OK) != 0 &&
                         !DirectoryWritable(path);
  const std::string name =
      immutable ? absl::StrCat("file:", UriPath(path), "?immutable=1") : path;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      name.c_str(), &db,
      (read_only ? SQLITE_OPEN_READONLY
                 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
          SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0),
      nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    if (db != nullptr) sqlite3_close_v2(db);
    const int err = errno;
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open the store ", path, ": ", why,
                     err != 0 ? absl::StrCat(" (", std::strerror(err), ")")
                              : std::string()));
  }
  auto store = std::make_unique<SqliteStore>(db, path);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 1);
  // WAL: readers do not block the writer; the journal mode sticks to the
  // file. A read-only file stays in its mode (the schema step then says
  // what cannot be written).
  if (!read_only) {
    if (absl::Status s = store->Query("PRAGMA journal_mode=WAL", {},
                                      {SqlType::kText}, [](const auto&) {});
        !s.ok() && s.code() != absl::StatusCode::kPermissionDenied) {
      return s;
    }
    RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=NORMAL", {}));
  }
  RETURN_IF_ERROR(store->Exec("PRAGMA foreign_keys=ON", {}));
  return std::unique_ptr<HistoryStore>(std::move(store));
}

}  // namespace perfcounters::tools
