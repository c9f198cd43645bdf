// compare_table.cc: the table output of `perfcounters compare`
// (compare_output.h): one row per metric of each benchmark, columns
// aligned, optionally coloured, written in pieces of whole rows.

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output_internal.h"
#include "compare_rows.h"
#include "oom_safe_map.h"

namespace perfcounters::tools {
namespace {

constexpr const char* kRed = "\x1b[31m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kBoldRed = "\x1b[1;31m";
constexpr const char* kReset = "\x1b[0m";

struct Row {
  std::array<std::string, 7> cells;
  const char* change_color = nullptr;
  bool failed = false;
  // A note row: the benchmark name, then this text (not in the columns).
  std::string note;
};

// Red for a regression of 1 % or more, green for an improvement.
const char* ChangeColor(const ComparisonRow& row) {
  const MetricComparison& m = *row.comparison;
  if (!m.change_pct || std::fabs(*m.change_pct) < 1.0) return nullptr;
  if (row.direction == 0) return nullptr;
  return row.direction > 0 ? kRed : kGreen;
}

// Written in pieces of about kTablePiece bytes, whole rows each: the
// table of many small benchmarks is tens of MB.
constexpr size_t kTablePiece = 1 << 16;

// What a pass over the rows counted: rows shown and left out by
// --max-rows, and whether a shown value is an estimate.
struct TableCounts {
  size_t shown = 0, left_out = 0;
  bool flagged = false;
};

// The table's row of `row`; `name`: its first cell (the benchmark's, or
// empty after its first row).
Row TableMetricRow(const ComparisonRow& row, std::string name) {
  Row r;
  r.cells[0] = std::move(name);
  r.cells[1] = EscapeControlBytes(row.metric);
  r.cells[2] = row.base;
  r.cells[3] = row.next;
  r.cells[4] = row.change;
  r.cells[5] = row.p;
  r.cells[6] = row.reps;
  r.change_color = ChangeColor(row);
  if (row.marks != nullptr) {
    r.failed = !row.marks->failed.empty();
    for (const std::string& g : row.marks->failed) {
      absl::StrAppend(&r.cells[6], "  FAIL ", EscapeControlBytes(g));
    }
    for (const std::string& g : row.marks->held) {
      absl::StrAppend(&r.cells[6], "  held: ", EscapeControlBytes(g));
    }
  }
  return r;
}

// Visits the titles' row, then each benchmark's note and metrics' rows.
void ForEachTableRow(const Comparison& c, const MarkIndex& marks,
                     const RenderOptions& options, TableCounts& counts,
                     const std::function<void(const Row&)>& visit) {
  counts = TableCounts();
  Row r;
  const char* titles[7] = {"Benchmark", "Metric", "Base", "New",
                           "Change",    "p",      "Reps"};
  for (int i = 0; i < 7; ++i) r.cells[i] = titles[i];
  visit(r);
  for (const BenchmarkComparison& bc : c.benchmarks) {
    const std::string name = EscapeControlBytes(bc.name);
    const std::string note = PairingNote(bc);
    bool first = true;
    if (!note.empty() && !options.only_changed) {
      r = Row();
      r.cells[0] = name;
      r.note = absl::StrCat("(", note, ")");
      visit(r);
      first = false;
    }
    for (const MetricComparison& m : bc.metrics) {
      if (NoValue(m)) continue;  // one line per metric after the table
      auto it = marks.find({bc.name, m.metric});
      const bool marked = it != marks.end() && !it->second.failed.empty();
      if (options.only_changed && !marked && !Changed(m, options.alpha)) {
        continue;
      }
      if (options.max_rows > 0 && counts.shown >= options.max_rows) {
        ++counts.left_out;
        continue;
      }
      ++counts.shown;
      const ComparisonRow row = MakeComparisonRow(
          bc.name, m, c.simulated, it != marks.end() ? &it->second : nullptr);
      counts.flagged = counts.flagged || row.estimated;
      visit(TableMetricRow(row, first ? name : std::string()));
      first = false;
    }
  }
}

// One row of text: cells padded to `width`, optionally coloured.
void AppendTableRow(std::string& out, const Row& r, const size_t (&width)[7],
                    bool color) {
  if (!r.note.empty()) {
    absl::StrAppend(&out, r.cells[0],
                    std::string(width[0] - r.cells[0].size() + 2, ' '), r.note,
                    "\n");
    return;
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

// What follows the rows: rows left out, notes, geometric means, profiles,
// gates and the verdict.
void AppendTableClosing(std::string& out, const Comparison& c,
                        const std::vector<GateResult>& gates, bool color,
                        const TableCounts& counts) {
  if (counts.left_out > 0) {
    absl::StrAppend(&out, "(", counts.left_out,
                    " more rows left out by --max-rows)\n");
  }
  for (const auto& [metric, text] : Uncounted(c)) {
    absl::StrAppend(&out, EscapeControlBytes(metric), ": ",
                    EscapeControlBytes(text), "\n");
  }
  if (const std::string note = ComplexityNote(c); !note.empty()) {
    absl::StrAppend(&out, "Note: ", note, "\n");
  }
  if (counts.flagged) {
    absl::StrAppend(&out, EstimateLegend(),
                    "; --format json has each side's coverage\n");
  }
  if (const std::string note = SimulatedNote(c); !note.empty()) {
    absl::StrAppend(&out, "Note: ", EscapeControlBytes(note), "\n");
  }
  if (!c.geomean.empty()) {
    out += "\nGeometric mean of new/base over benchmarks:\n";
    for (const GeomeanSummary& g : c.geomean) {
      absl::StrAppendFormat(&out, "  %-20s %+8.2f%%  (%d benchmarks)\n",
                            EscapeControlBytes(LabelledMetric(c, g.metric)),
                            g.change_pct, g.benchmarks);
    }
  }
  out += ProfileTableText(c.profiles);
  for (const std::string& note : {OneSampleNote(c), PairedNote(c)}) {
    if (!note.empty()) absl::StrAppend(&out, "\nNote: ", note, ".\n");
  }
  if (!gates.empty()) out += "\n";
  for (const GateResult& g : gates) {
    const char* col = g.status == GateStatus::kPassed ? kGreen : kBoldRed;
    if (color) out += col;
    out += GateSummaryLine(g);
    if (color) out += kReset;
    out += '\n';
  }
  if (!gates.empty()) {
    absl::StrAppend(&out, "verdict: ", VerdictText(gates), "\n");
  }
}

}  // namespace

namespace compare_internal {

void RenderTable(const Comparison& c, const std::vector<GateResult>& gates,
                 const RenderOptions& options, const TextWriter& write) {
  const MarkIndex marks = IndexMarks(gates);
  // The rows are made twice, for the columns' widths and then for the
  // text, instead of being kept (they would take many times the inputs'
  // size for many small benchmarks).
  TableCounts counts;
  size_t width[7] = {};
  size_t rows = 0;
  ForEachTableRow(c, marks, options, counts, [&](const Row& r) {
    ++rows;
    const int columns = r.note.empty() ? 6 : 1;
    for (int i = 0; i < columns; ++i) {
      width[i] = std::max(width[i], r.cells[i].size());
    }
  });
  std::string out;
  out.reserve(std::min(rows * 100, 2 * kTablePiece));
  ForEachTableRow(c, marks, options, counts, [&](const Row& r) {
    if (out.size() >= kTablePiece) {
      write(out);
      out.clear();
    }
    AppendTableRow(out, r, width, options.color);
  });
  AppendTableClosing(out, c, gates, options.color, counts);
  write(out);
}

}  // namespace compare_internal
}  // namespace perfcounters::tools
