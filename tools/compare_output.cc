// compare_output.cc: the table, Markdown and JSON outputs of
// `perfcounters compare`.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "compare.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {
namespace {

constexpr const char* kRed = "\x1b[31m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kBoldRed = "\x1b[1;31m";
constexpr const char* kReset = "\x1b[0m";

std::string FormatChange(const std::optional<double>& change) {
  if (!change) return "n/a";
  if (std::isinf(*change)) return *change > 0 ? "+inf%" : "-inf%";
  return absl::StrFormat("%+.2f%%", *change);
}

std::string FormatP(const MetricComparison& m) {
  if (!m.p_value) return "";
  if (*m.p_value < 0.001) return "<0.001";
  return absl::StrFormat("%.3f", *m.p_value);
}

std::string FormatSide(const MetricComparison& m, const SideStats& s) {
  if (!s.present) return "absent";
  if (!s.median) return "not counted";
  std::string text = FormatValue(m.metric, *s.median);
  if (s.not_counted > 0) {
    absl::StrAppend(&text, " (", s.not_counted, " of ",
                    s.not_counted + s.samples.size(), " not counted)");
  }
  return text;
}

std::string Reps(const MetricComparison& m) {
  return absl::StrCat(m.base.samples.size(), " vs ", m.next.samples.size());
}

// (benchmark, metric) -> gates it violated.
using ViolationIndex = absl::flat_hash_map<std::pair<std::string, std::string>,
                                           std::vector<std::string>>;

ViolationIndex IndexViolations(const std::vector<GateResult>& gates) {
  ViolationIndex index;
  for (const GateResult& g : gates) {
    for (const GateViolation& v : g.violations) {
      index[{v.benchmark, v.metric}].push_back(g.gate);
    }
  }
  return index;
}

std::string PairingNote(const BenchmarkComparison& bc) {
  std::string note;
  if (bc.pairing == Pairing::kBaseOnly) note = "only in base";
  if (bc.pairing == Pairing::kNewOnly) note = "only in new";
  if (!bc.base_problem.empty()) {
    absl::StrAppend(&note, note.empty() ? "" : "; ", "base ", bc.base_problem);
  }
  if (!bc.next_problem.empty()) {
    absl::StrAppend(&note, note.empty() ? "" : "; ", "new ", bc.next_problem);
  }
  return note;
}

size_t TotalViolations(const std::vector<GateResult>& gates) {
  size_t n = 0;
  for (const GateResult& g : gates) n += g.violations.size();
  return n;
}

std::string GateSummaryLine(const GateResult& g) {
  std::string line = absl::StrCat(
      "gate ", g.gate, ": ", g.violations.empty() ? "passed" : "FAILED", " (",
      g.checked, " checked, ", g.violations.size(), " violated");
  if (!g.not_evaluated.empty()) {
    absl::StrAppend(&line, ", not evaluated on ", g.not_evaluated.size(),
                    ", e.g. ", g.not_evaluated[0].benchmark, ": ",
                    g.not_evaluated[0].reason);
  }
  absl::StrAppend(&line, ")");
  return line;
}

// ---- Table.

struct Row {
  std::string cells[7];
  const char* change_color = nullptr;
  bool failed = false;
  // A note row: the benchmark name, then this text (not in the columns).
  std::string note;
};

const char* ChangeColor(const MetricComparison& m) {
  if (!m.change_pct || std::fabs(*m.change_pct) < 1.0) return nullptr;
  const Better better = BetterDirection(m.metric);
  if (better == Better::kUnknown) return nullptr;
  const bool up = *m.change_pct > 0;
  return (up == (better == Better::kHigher)) ? kGreen : kRed;
}

std::string RenderTable(const Comparison& c,
                        const std::vector<GateResult>& gates, bool color) {
  const ViolationIndex violations = IndexViolations(gates);
  std::vector<Row> rows;
  {
    Row header;
    const char* titles[7] = {"Benchmark", "Metric", "Base", "New",
                             "Change",    "p",      "Reps"};
    for (int i = 0; i < 7; ++i) header.cells[i] = titles[i];
    rows.push_back(std::move(header));
  }
  for (const BenchmarkComparison& bc : c.benchmarks) {
    const std::string note = PairingNote(bc);
    bool first = true;
    if (!note.empty()) {
      Row r;
      r.cells[0] = bc.name;
      r.note = absl::StrCat("(", note, ")");
      rows.push_back(std::move(r));
      first = false;
    }
    for (const MetricComparison& m : bc.metrics) {
      Row r;
      r.cells[0] = first ? bc.name : "";
      first = false;
      r.cells[1] = m.metric;
      r.cells[2] = FormatSide(m, m.base);
      r.cells[3] = FormatSide(m, m.next);
      r.cells[4] = FormatChange(m.change_pct);
      r.cells[5] = FormatP(m);
      r.cells[6] = Reps(m);
      r.change_color = ChangeColor(m);
      if (auto it = violations.find({bc.name, m.metric});
          it != violations.end()) {
        r.failed = true;
        for (const std::string& g : it->second) {
          absl::StrAppend(&r.cells[6], "  FAIL ", g);
        }
      }
      rows.push_back(std::move(r));
    }
  }
  size_t width[7] = {};
  for (const Row& r : rows) {
    const int columns = r.note.empty() ? 6 : 1;
    for (int i = 0; i < columns; ++i) {
      width[i] = std::max(width[i], r.cells[i].size());
    }
  }
  std::string out;
  out.reserve(rows.size() * 100);
  for (const Row& r : rows) {
    if (!r.note.empty()) {
      absl::StrAppend(&out, r.cells[0],
                      std::string(width[0] - r.cells[0].size() + 2, ' '),
                      r.note, "\n");
      continue;
    }
    for (int i = 0; i < 7; ++i) {
      const std::string& cell = r.cells[i];
      const bool right = i >= 2 && i <= 5;
      const size_t pad = i < 6 ? width[i] - cell.size() : 0;
      const char* col = i == 4 ? r.change_color : nullptr;
      if (i == 6 && r.failed) col = kBoldRed;
      if (right) out.append(pad, ' ');
      if (color && col != nullptr) out += col;
      out += cell;
      if (color && col != nullptr) out += kReset;
      if (!right && i < 6) out.append(pad, ' ');
      if (i < 6) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  if (!c.geomean.empty()) {
    out += "\nGeometric mean of new/base over benchmarks:\n";
    for (const GeomeanSummary& g : c.geomean) {
      absl::StrAppendFormat(&out, "  %-20s %+8.2f%%  (%d benchmarks)\n",
                            g.metric, g.change_pct, g.benchmarks);
    }
  }
  if (!gates.empty()) out += "\n";
  for (const GateResult& g : gates) {
    const char* col = g.violations.empty() ? kGreen : kBoldRed;
    if (color) out += col;
    out += GateSummaryLine(g);
    if (color) out += kReset;
    out += '\n';
  }
  return out;
}

// ---- Markdown.

std::string Md(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"|", "\\|"}, {"\n", " "}});
}

std::string RenderMarkdown(const Comparison& c,
                           const std::vector<GateResult>& gates) {
  const ViolationIndex violations = IndexViolations(gates);
  std::string out = "## perfcounters compare\n\n";
  absl::StrAppend(&out, "Base: `", Md(c.base_source), "`, new: `",
                  Md(c.next_source), "`\n\n");
  if (!gates.empty()) {
    const size_t n = TotalViolations(gates);
    absl::StrAppend(&out, n == 0 ? "**All gates passed.**\n\n"
                                 : absl::StrCat("**FAILED: ", n,
                                                " gate violation(s).**\n\n"));
    out += "| Gate | Result | Checked | Violated | Not evaluated |\n";
    out += "|---|---|---:|---:|---:|\n";
    for (const GateResult& g : gates) {
      absl::StrAppend(&out, "| `", Md(g.gate), "` | ",
                      g.violations.empty() ? "passed" : "**FAILED**", " | ",
                      g.checked, " | ", g.violations.size(), " | ",
                      g.not_evaluated.size(), " |\n");
    }
    out += "\n";
  }
  if (!c.geomean.empty()) {
    out += "| Geometric mean | Change | Benchmarks |\n|---|---:|---:|\n";
    for (const GeomeanSummary& g : c.geomean) {
      absl::StrAppendFormat(&out, "| %s | %+.2f%% | %d |\n", Md(g.metric),
                            g.change_pct, g.benchmarks);
    }
    out += "\n";
  }
  out += "| Benchmark | Metric | Base | New | Change | p | Reps | Gate |\n";
  out += "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const BenchmarkComparison& bc : c.benchmarks) {
    const std::string note = PairingNote(bc);
    if (!note.empty()) {
      absl::StrAppend(&out, "| `", Md(bc.name), "` | *", Md(note),
                      "* | | | | | | |\n");
    }
    for (const MetricComparison& m : bc.metrics) {
      std::string gate;
      if (auto it = violations.find({bc.name, m.metric});
          it != violations.end()) {
        for (const std::string& g : it->second) {
          absl::StrAppend(&gate, gate.empty() ? "" : " ", "**FAIL** `", Md(g),
                          "`");
        }
      }
      absl::StrAppend(&out, "| `", Md(bc.name), "` | ", Md(m.metric), " | ",
                      Md(FormatSide(m, m.base)), " | ",
                      Md(FormatSide(m, m.next)), " | ",
                      FormatChange(m.change_pct), " | ", FormatP(m), " | ",
                      Reps(m), " | ", gate, " |\n");
    }
  }
  return out;
}

// ---- JSON.

nlohmann::ordered_json SideJson(const SideStats& s) {
  nlohmann::ordered_json j;
  j["present"] = s.present;
  j["counted"] = s.median.has_value();
  j["median"] = s.median ? nlohmann::ordered_json(*s.median) : nullptr;
  j["samples"] = s.samples;
  j["not_counted"] = s.not_counted;
  j["from_aggregate"] = s.from_aggregate;
  return j;
}

const char* PairingName(Pairing p) {
  switch (p) {
    case Pairing::kBoth:
      return "both";
    case Pairing::kBaseOnly:
      return "base_only";
    case Pairing::kNewOnly:
      return "new_only";
  }
  return "?";
}

std::string RenderJson(const Comparison& c,
                       const std::vector<GateResult>& gates) {
  using json = nlohmann::ordered_json;
  json root;
  root["base"] = c.base_source;
  root["new"] = c.next_source;
  root["exit_code"] = TotalViolations(gates) == 0 ? 0 : 1;
  json& jg = root["gates"] = json::array();
  for (const GateResult& g : gates) {
    json x;
    x["gate"] = g.gate;
    x["passed"] = g.violations.empty();
    x["checked"] = g.checked;
    json& v = x["violations"] = json::array();
    for (const GateViolation& viol : g.violations) {
      v.push_back({{"benchmark", viol.benchmark},
                   {"metric", viol.metric},
                   {"value", std::isfinite(viol.value)
                                 ? json(viol.value)
                                 : json(FormatChange(viol.value))}});
    }
    json& ne = x["not_evaluated"] = json::array();
    for (const GateSkip& s : g.not_evaluated) {
      ne.push_back({{"benchmark", s.benchmark}, {"reason", s.reason}});
    }
    jg.push_back(std::move(x));
  }
  json& geo = root["geomean"] = json::array();
  for (const GeomeanSummary& g : c.geomean) {
    geo.push_back({{"metric", g.metric},
                   {"benchmarks", g.benchmarks},
                   {"change_pct", g.change_pct}});
  }
  json& benchmarks = root["benchmarks"] = json::array();
  for (const BenchmarkComparison& bc : c.benchmarks) {
    json b;
    b["name"] = bc.name;
    b["in"] = PairingName(bc.pairing);
    if (!bc.base_problem.empty()) b["base_problem"] = bc.base_problem;
    if (!bc.next_problem.empty()) b["new_problem"] = bc.next_problem;
    json& metrics = b["metrics"] = json::array();
    for (const MetricComparison& m : bc.metrics) {
      json x;
      x["metric"] = m.metric;
      x["base"] = SideJson(m.base);
      x["new"] = SideJson(m.next);
      if (m.change_pct && std::isfinite(*m.change_pct)) {
        x["change_pct"] = *m.change_pct;
      } else {
        x["change_pct"] = nullptr;
        if (m.change_pct) x["change"] = FormatChange(m.change_pct);
      }
      x["p_value"] = m.p_value ? json(*m.p_value) : json(nullptr);
      x["p_method"] = m.p_method == PMethod::kExact    ? "exact"
                      : m.p_method == PMethod::kNormal ? "normal"
                                                       : "none";
      metrics.push_back(std::move(x));
    }
    benchmarks.push_back(std::move(b));
  }
  // Gate texts come from the command line and need not be UTF-8: replace
  // invalid bytes (U+FFFD) instead of throwing.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

// Four significant digits with trailing zeros kept (1.000, 12.50, 995.0),
// so that columns of times line up.
std::string FourDigits(double v) {
  const double a = std::fabs(v);
  if (a >= 1000 || a == 0) return absl::StrFormat("%.0f", v);
  if (a >= 100) return absl::StrFormat("%.1f", v);
  if (a >= 10) return absl::StrFormat("%.2f", v);
  if (a >= 1) return absl::StrFormat("%.3f", v);
  return absl::StrFormat("%.4g", v);
}

}  // namespace

std::string FormatValue(absl::string_view metric, double value) {
  if (metric == "real_time" || metric == "cpu_time") {
    const double a = std::fabs(value);
    if (a < 1e3) return absl::StrCat(FourDigits(value), " ns");
    if (a < 1e6) return absl::StrCat(FourDigits(value / 1e3), " us");
    if (a < 1e9) return absl::StrCat(FourDigits(value / 1e6), " ms");
    return absl::StrCat(FourDigits(value / 1e9), " s");
  }
  if (BetterDirection(metric) == Better::kHigher &&
      absl::StartsWithIgnoreCase(metric, "ipc")) {
    return absl::StrFormat("%.3f", value);
  }
  const double a = std::fabs(value);
  if (a < 1e6) return absl::StrFormat("%.6g", value);
  if (a < 1e9) return absl::StrFormat("%.4gM", value / 1e6);
  if (a < 1e12) return absl::StrFormat("%.4gG", value / 1e9);
  return absl::StrFormat("%.4gT", value / 1e12);
}

std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates, Format format,
                   bool color) {
  switch (format) {
    case Format::kTable:
      return RenderTable(comparison, gates, color);
    case Format::kMarkdown:
      return RenderMarkdown(comparison, gates);
    case Format::kJson:
      return RenderJson(comparison, gates);
  }
  return "";
}

}  // namespace perfcounters::tools
