// history_env.cc: a stored run's context read back (history_env.h).
#include "history_env.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

// Fills file's context and context_json from a stored context's JSON text
// (nothing when it is no JSON object: a run without one).
void SetContext(const std::string& text, BenchmarkFile& file) {
  const nlohmann::json context =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!context.is_object()) return;
  for (const auto& [key, value] : context.items()) {
    if (value.is_string()) {
      file.context.emplace_back(key, value.get<std::string>());
    } else if (value.is_structured()) {
      file.context_json.emplace_back(key, value.dump());
    } else if (!value.is_null()) {
      file.context.emplace_back(key, value.dump());
    }
  }
}

}  // namespace

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
  SetContext(context_text, *out);
  return out;
}

absl::Status ForEachRunContext(
    HistoryStore& store, const std::string& machine,
    const std::function<void(int64_t run_id, const BenchmarkFile& file)>&
        visit) {
  std::string sql = "SELECT id, context FROM runs";
  std::vector<SqlValue> params;
  if (!machine.empty()) {
    sql += " WHERE machine = ?";
    params.emplace_back(machine);
  }
  return store.Query(sql, params, {SqlType::kInt, SqlType::kText},
                     [&](const std::vector<SqlValue>& row) {
                       BenchmarkFile file;
                       SetContext(std::get<std::string>(row[1]), file);
                       visit(std::get<int64_t>(row[0]), file);
                     });
}

}  // namespace perfcounters::tools
