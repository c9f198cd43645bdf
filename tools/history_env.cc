// history_env.cc: a stored run's context read back (history_env.h).
#include "history_env.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "status_macros.h"

namespace perfcounters::tools {

absl::StatusOr<std::optional<BenchmarkFile>> LatestRunContext(
    HistoryStore& store, const std::string& machine, const std::string& branch,
    const std::string& skip_digest) {
  std::string sql =
      "SELECT context, source, time FROM runs WHERE machine = ? AND digest "
      "<> ?";
  std::vector<SqlValue> params = {machine, skip_digest};
  if (!branch.empty()) {
    sql += " AND branch = ?";
    params.emplace_back(branch);
  }
  sql += " ORDER BY time DESC, id DESC LIMIT 1";
  std::optional<BenchmarkFile> out;
  std::string context_text;
  RETURN_IF_ERROR(store.Query(
      sql, params, {SqlType::kText, SqlType::kText, SqlType::kText},
      [&](const std::vector<SqlValue>& row) {
        BenchmarkFile file;
        file.source = absl::StrCat("the history's latest run (",
                                   std::get<std::string>(row[1]), ", ",
                                   std::get<std::string>(row[2]), ")");
        context_text = std::get<std::string>(row[0]);
        out = std::move(file);
      }));
  if (!out) return out;
  const nlohmann::json context =
      nlohmann::json::parse(context_text, nullptr, /*allow_exceptions=*/false);
  if (!context.is_object()) return out;  // no context: no fingerprint
  for (const auto& [key, value] : context.items()) {
    if (value.is_string()) {
      out->context.emplace_back(key, value.get<std::string>());
    } else if (value.is_structured()) {
      out->context_json.emplace_back(key, value.dump());
    } else if (!value.is_null()) {
      out->context.emplace_back(key, value.dump());
    }
  }
  return out;
}

}  // namespace perfcounters::tools
