// history_pg.cc: the PostgreSQL back end of the history store (a
// postgresql:// URL, libpq): one connection, statements with numbered
// parameters sent as text, transactions as the server gives them (two CI
// jobs adding at once are serialized on the unique keys they share).
#include <libpq-fe.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "history_store.h"

namespace perfcounters::tools {

bool IsPostgresUrl(absl::string_view db) {
  return absl::StartsWith(db, "postgresql://") ||
         absl::StartsWith(db, "postgres://");
}

namespace {

// The user-information part of a URL (between "://" and the last '@'
// before the query), or npos when there is none. The last '@' is taken,
// and '/' is not an end, so that a password with a raw '@' or '/' is
// still inside it.
std::pair<size_t, size_t> UserInfo(absl::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == absl::string_view::npos) return {absl::string_view::npos, 0};
  const size_t start = scheme + 3;
  const size_t query = url.find('?', start);
  const absl::string_view head = url.substr(start, query - start);
  const size_t at = head.rfind('@');
  if (at == absl::string_view::npos) return {absl::string_view::npos, 0};
  return {start, at};
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 &&
        HexDigit(s[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The ranges of `url` that hold a password: the user information's after
// its first ':', and each password= parameter's value.
std::vector<std::pair<size_t, size_t>> PasswordRanges(absl::string_view url) {
  std::vector<std::pair<size_t, size_t>> out;
  const auto [start, length] = UserInfo(url);
  if (start != absl::string_view::npos) {
    const size_t colon = url.substr(start, length).find(':');
    if (colon != absl::string_view::npos) {
      out.emplace_back(start + colon + 1, length - colon - 1);
    }
  }
  const size_t query = url.find('?');
  if (query != absl::string_view::npos) {
    size_t at = query + 1;
    while (at < url.size()) {
      size_t end = url.find('&', at);
      if (end == absl::string_view::npos) end = url.size();
      const absl::string_view param = url.substr(at, end - at);
      if (absl::StartsWithIgnoreCase(param, "password=")) {
        out.emplace_back(at + 9, end - at - 9);
      }
      at = end + 1;
    }
  }
  return out;
}

}  // namespace

std::string RedactUrl(absl::string_view url) {
  std::string out(url);
  std::vector<std::pair<size_t, size_t>> ranges = PasswordRanges(url);
  // From the last, so that earlier offsets stay valid.
  std::sort(ranges.begin(), ranges.end());
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    out.replace(it->first, it->second, "***");
  }
  return out;
}

std::vector<std::string> UrlSecrets(absl::string_view url) {
  std::vector<std::string> out;
  for (const auto& [start, length] : PasswordRanges(url)) {
    if (length == 0) continue;
    const absl::string_view raw = url.substr(start, length);
    out.emplace_back(raw);
    out.push_back(PercentDecode(raw));
    // libpq ends the user information at a '/': what it may quote.
    if (const size_t slash = raw.find('/'); slash > 0 && slash != raw.npos) {
      out.emplace_back(raw.substr(0, slash));
    }
  }
  if (const char* env = std::getenv("PGPASSWORD"); env && *env) {
    out.emplace_back(env);
  }
  // Longest first: a secret that contains another is replaced whole.
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

std::string ScrubMessage(absl::string_view text, absl::string_view url) {
  // The URL as the user wrote it (libpq quotes it in parse errors) becomes
  // the redacted one, then any password left (decoded, PGPASSWORD) ***.
  std::string out = absl::StrReplaceAll(text, {{url, RedactUrl(url)}});
  for (const std::string& secret : UrlSecrets(url)) {
    if (!secret.empty()) out = absl::StrReplaceAll(out, {{secret, "***"}});
  }
  // libpq's messages are lines, the hints indented by a tab: one line.
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) lines.emplace_back(line);
  }
  return absl::StrJoin(lines, "; ");
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
  PostgresStore(PGconn* conn, std::string url)
      : conn_(conn), url_(std::move(url)), name_(RedactUrl(url_)) {}
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
                       ScrubMessage(PQresultErrorMessage(res), url_));
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
  std::string url_;  // for ScrubMessage(); never printed
  std::string name_;
};

}  // namespace

namespace {

// The connect timeout in seconds that applies: the URL's connect_timeout,
// else PGCONNECT_TIMEOUT, else none (empty); libpq reads both itself.
std::string GivenConnectTimeout(PQconninfoOption* options) {
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (absl::string_view(o->keyword) == "connect_timeout" &&
        o->val != nullptr && *o->val != '\0') {
      return o->val;
    }
  }
  const char* env = std::getenv("PGCONNECT_TIMEOUT");
  return env != nullptr && *env != '\0' ? env : "";
}

// Why a connection failed, as a status: what libpq said (one line, no
// password), and what to check.
absl::Status ConnectError(PGconn* conn, const std::string& url,
                          const std::string& timeout) {
  const std::string why = ScrubMessage(PQerrorMessage(conn), url);
  const std::string host = PQhost(conn) != nullptr ? PQhost(conn) : "";
  const std::string port = PQport(conn) != nullptr ? PQport(conn) : "";
  const std::string message = absl::StrCat(
      "cannot connect to the PostgreSQL store ", RedactUrl(url), ": ", why);
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
  // 'invalid integer value "abc" for connection option "connect_timeout"'.
  if (const size_t at = why.find("for connection option \"");
      absl::StrContains(why, "invalid integer value") &&
      at != std::string::npos) {
    const size_t name_at = at + 23;
    const std::string option =
        why.substr(name_at, why.find('"', name_at) - name_at);
    if (option != "port") {
      return absl::InvalidArgumentError(absl::StrCat(
          message, " (the URL's ?", option, "= must be a whole number)"));
    }
  }
  if (absl::StrContains(why, "invalid port") ||
      absl::StrContains(why, "invalid integer value")) {
    return absl::InvalidArgumentError(absl::StrCat(
        message,
        " (a port is a number from 1 to 65535: postgresql://HOST:PORT/"
        "DATABASE)"));
  }
  // libpq: 'invalid sslmode value: "bogus"' (and so for gssencmode,
  // channel_binding, target_session_attrs, ...): the URL's parameter.
  if (const size_t at = why.find("invalid "); at != std::string::npos) {
    const size_t name_at = at + 8;
    const size_t end = why.find(" value", name_at);
    const std::string param =
        end == std::string::npos ? "" : why.substr(name_at, end - name_at);
    if (!param.empty() && param.find(' ') == std::string::npos &&
        param != "integer" && param != "port") {
      return absl::InvalidArgumentError(absl::StrCat(
          message, " (the URL's ?", param,
          "= has a value libpq does not accept",
          param == "sslmode"
              ? ": disable, allow, prefer, require, verify-ca or verify-full"
              : "",
          "; see libpq's connection parameters)"));
    }
  }
  if (absl::StrContains(why, "timeout expired")) {
    return absl::UnavailableError(absl::StrCat(
        message, " (no answer within the connect timeout of ", timeout,
        " s from host ", host, " port ", port,
        ": a firewall, or not a PostgreSQL server there; the timeout is "
        "?connect_timeout=SECONDS or PGCONNECT_TIMEOUT)"));
  }
  if (absl::StrContains(why, "Connection refused")) {
    return absl::UnavailableError(absl::StrCat(
        message, " (nothing accepts connections on host ", host, " port ", port,
        ": check the port in the URL, postgresql://HOST:PORT/ (default "
        "5432, or PGPORT), and that the server listens there)"));
  }
  if (absl::StrContains(why, "No such file or directory") &&
      absl::StrContains(why, "socket")) {
    return absl::UnavailableError(absl::StrCat(
        message, " (no server socket for port ", port, " in ", host,
        ": check host= (the socket directory) and the port, and that the "
        "server runs)"));
  }
  return absl::UnavailableError(
      absl::StrCat(message,
                   " (check the host and port in the URL, and that the server "
                   "runs and is reachable from here)"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HistoryStore>> OpenPostgresStore(
    const std::string& url) {
  const std::string name = RedactUrl(url);
  // libpq ends the user information at the first '@', so a raw '@' in a
  // password would make the rest of it the host name, which libpq's errors
  // quote: refused before libpq sees the URL.
  if (const auto [start, length] = UserInfo(url);
      start != absl::string_view::npos &&
      url.substr(start, length).find('@') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed PostgreSQL URL ", name,
        ": more than one '@' before its query; write an '@' inside the user "
        "name, password or database name as %40"));
  }
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &parse_error);
  if (options == nullptr) {
    std::string why = parse_error != nullptr ? ScrubMessage(parse_error, url)
                                             : "out of memory";
    PQfreemem(parse_error);
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed PostgreSQL URL ", name, ": ", why,
        "; expected postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE]"
        "[?host=/socket/dir&...]"));
  }
  std::string timeout = GivenConnectTimeout(options);
  PQconninfoFree(options);
  // The URL, and a connect timeout of 10 s unless the URL or the
  // environment sets one (a keyword after dbname would override both).
  const bool default_timeout = timeout.empty();
  if (default_timeout) timeout = "10";
  const char* keywords[] = {
      "dbname", default_timeout ? "connect_timeout" : nullptr, nullptr};
  const char* values[] = {url.c_str(), timeout.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) {
    return absl::ResourceExhaustedError("libpq: out of memory");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    absl::Status error = ConnectError(conn, url, timeout);
    PQfinish(conn);
    return error;
  }
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  return std::unique_ptr<HistoryStore>(
      std::make_unique<PostgresStore>(conn, url));
}

}  // namespace perfcounters::tools
