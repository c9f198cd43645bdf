// history_pg.cc: the PostgreSQL back end of the history store (a
// postgresql:// URL, libpq): one connection, statements with numbered
// parameters sent as text, transactions as the server gives them (two CI
// jobs adding at once are serialized on the unique keys they share).
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "history_store.h"

namespace perfcounters::tools {

bool IsPostgresUrl(absl::string_view db) {
  return absl::StartsWith(db, "postgresql://") ||
         absl::StartsWith(db, "postgres://");
}

std::string RedactUrl(absl::string_view url) {
  // scheme://user:password@host...: the password is between the first ':'
  // after the scheme and the last '@' of the authority.
  const size_t scheme = url.find("://");
  if (scheme == absl::string_view::npos) return std::string(url);
  const size_t start = scheme + 3;
  size_t end = url.find_first_of("/?", start);
  if (end == absl::string_view::npos) end = url.size();
  const absl::string_view authority = url.substr(start, end - start);
  const size_t at = authority.rfind('@');
  if (at == absl::string_view::npos) return std::string(url);
  const size_t colon = authority.substr(0, at).find(':');
  if (colon == absl::string_view::npos) return std::string(url);
  return absl::StrCat(url.substr(0, start + colon + 1), "***",
                      url.substr(start + at));
}

namespace {

void IgnoreNotice(void*, const char*) {}

// `sql` with each ? written as $1, $2, ...
std::string NumberPlaceholders(absl::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (char c : sql) {
    if (c == '?') {
      absl::StrAppend(&out, "$", ++n);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

class PostgresStore final : public HistoryStore {
 public:
  PostgresStore(PGconn* conn, std::string name)
      : conn_(conn), name_(std::move(name)) {}
  ~PostgresStore() override { PQfinish(conn_); }

  const char* Backend() const override { return "postgresql"; }
  const std::string& Name() const override { return name_; }
  const char* SerialKey() const override { return "BIGSERIAL PRIMARY KEY"; }

  absl::Status Exec(absl::string_view sql,
                    const std::vector<SqlValue>& params) override {
    return Query(sql, params, {}, nullptr);
  }

  absl::Status Query(
      absl::string_view sql, const std::vector<SqlValue>& params,
      const std::vector<SqlType>& types,
      const std::function<void(const std::vector<SqlValue>&)>& row) override {
    std::vector<std::string> text(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlValue& p = params[i];
      if (std::holds_alternative<std::monostate>(p)) continue;
      if (const auto* v = std::get_if<int64_t>(&p)) {
        text[i] = absl::StrCat(*v);
      } else if (const auto* d = std::get_if<double>(&p)) {
        text[i] = absl::StrFormat("%.17g", *d);
      } else {
        text[i] = std::get<std::string>(p);
      }
      values[i] = text[i].c_str();
    }
    const std::string statement = NumberPlaceholders(sql);
    PGresult* res =
        PQexecParams(conn_, statement.c_str(), static_cast<int>(params.size()),
                     nullptr, values.data(), nullptr, nullptr, 0);
    std::unique_ptr<PGresult, void (*)(PGresult*)> owner(res, PQclear);
    const ExecStatusType status = PQresultStatus(res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
      std::string message =
          absl::StrCat("store ", name_, ": a statement failed: ",
                       absl::StripAsciiWhitespace(PQresultErrorMessage(res)));
      if (PQstatus(conn_) != CONNECTION_OK) {
        return absl::UnavailableError(
            absl::StrCat(message, " (the connection to the server was lost)"));
      }
      if (state != nullptr && absl::StartsWith(state, "42501")) {
        return absl::PermissionDeniedError(message);
      }
      if (state != nullptr && absl::StartsWith(state, "53")) {
        return absl::ResourceExhaustedError(message);
      }
      return absl::InternalError(message);
    }
    if (!row) return absl::OkStatus();
    const int rows = PQntuples(res);
    std::vector<SqlValue> out(types.size());
    for (int r = 0; r < rows; ++r) {
      for (size_t i = 0; i < types.size(); ++i) {
        const int c = static_cast<int>(i);
        if (PQgetisnull(res, r, c)) {
          out[i] = std::monostate{};
          continue;
        }
        const char* v = PQgetvalue(res, r, c);
        if (types[i] == SqlType::kInt) {
          out[i] = static_cast<int64_t>(std::strtoll(v, nullptr, 10));
        } else if (types[i] == SqlType::kDouble) {
          out[i] = std::strtod(v, nullptr);
        } else {
          out[i] = std::string(v, PQgetlength(res, r, c));
        }
      }
      row(out);
    }
    return absl::OkStatus();
  }

  absl::Status Begin() override { return Exec("BEGIN", {}); }
  absl::Status Commit() override { return Exec("COMMIT", {}); }
  void Rollback() override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      PQclear(PQexec(conn_, "ROLLBACK"));
    }
  }

 private:
  PGconn* conn_;
  std::string name_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HistoryStore>> OpenPostgresStore(
    const std::string& url) {
  const std::string name = RedactUrl(url);
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &parse_error);
  if (options == nullptr) {
    std::string why = parse_error != nullptr
                          ? std::string(absl::StripAsciiWhitespace(parse_error))
                          : "out of memory";
    PQfreemem(parse_error);
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed PostgreSQL URL ", name, ": ", why,
        "; expected postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE]"
        "[?host=/socket/dir&...]"));
  }
  PQconninfoFree(options);
  // The URL, and a connect timeout unless it sets one.
  const char* keywords[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), "10", nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("libpq: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string why(absl::StripAsciiWhitespace(PQerrorMessage(conn)));
    PQfinish(conn);
    const std::string message = absl::StrCat(
        "cannot connect to the PostgreSQL store ", name, ": ", why);
    if (absl::StrContains(why, "password") ||
        absl::StrContains(why, "authentication")) {
      return absl::PermissionDeniedError(
          absl::StrCat(message,
                       " (check the user and password in the URL, "
                       "or PGPASSWORD / ~/.pgpass)"));
    }
    if (absl::StrContains(why, "does not exist")) {
      return absl::NotFoundError(message);
    }
    return absl::UnavailableError(absl::StrCat(
        message, " (is the server running and reachable at that address?)"));
  }
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  return std::unique_ptr<HistoryStore>(
      std::make_unique<PostgresStore>(conn, name));
}

}  // namespace perfcounters::tools
