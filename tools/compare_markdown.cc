// compare_markdown.cc: the Markdown output of `perfcounters compare`
// (compare_output.h), for a pull-request comment: the verdict and gates,
// then sections of changed, unchanged and not compared metrics, kept
// within a length budget.

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
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

// Table-cell text: pipes escaped (GitHub's tables split cells at unescaped
// pipes, even inside code spans), newlines and control bytes escaped.
std::string Md(absl::string_view s) {
  return absl::StrReplaceAll(EscapeControlBytes(s), {{"|", "\\|"}});
}

// `s` as a code span that stays one: a fence longer than any run of
// backticks inside, spaces when it starts or ends with one.
std::string Code(absl::string_view s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return absl::StrCat(fence, pad ? " " : "", Md(s), pad ? " " : "", fence);
}

class MarkdownWriter {
 public:
  // `reserved`: room kept for a part appended after the rows.
  explicit MarkdownWriter(const RenderOptions& options, size_t reserved = 0)
      : options_(options), reserved_(reserved) {}

  std::string& out() { return out_; }

  // Appends `text` if it fits the length budget (keeping room for the
  // closing notes).
  bool Fits(size_t extra) const {
    return out_.size() + extra + kTailRoom + reserved_ <= options_.max_chars;
  }
  // Appends a benchmark row if the row and length budgets allow.
  bool Row(const std::string& row) {
    if ((options_.max_rows > 0 && rows_ >= options_.max_rows) ||
        !Fits(row.size())) {
      return false;
    }
    ++rows_;
    out_ += row;
    return true;
  }

 private:
  static constexpr size_t kTailRoom = 1200;
  const RenderOptions& options_;
  size_t reserved_;
  std::string out_;
  size_t rows_ = 0;
};

// Md() with the estimate marker escaped too (GitHub reads `~text~` as
// struck through).
std::string MdMarked(absl::string_view s) {
  return absl::StrReplaceAll(Md(s), {{kEstimateMarker, "\\~"}});
}

// A row of a section's table; `gate_column`: the section has a Gate
// column (then `last` is its cell, maybe empty); else `last` is empty.
std::string FormatMetricRow(const ComparisonRow& row, const std::string& last,
                            bool gate_column) {
  return absl::StrCat("| ", Code(row.benchmark), " | ", Md(row.metric), " | ",
                      MdMarked(row.base), " | ", MdMarked(row.next), " | ",
                      row.change, " | ", row.p, " | ", row.reps,
                      gate_column ? " | " : "", last, " |\n");
}

// The verdict, the gates' table and what each gate says.
void AppendMdGates(std::string& out, const std::vector<GateResult>& gates) {
  absl::StrAppend(&out, "**Verdict: ", VerdictText(gates), ".**\n\n");
  out +=
      "| Gate | Result | Checked | Violated | Not significant | Not "
      "evaluated |\n|---|---|---:|---:|---:|---:|\n";
  for (const GateResult& g : gates) {
    absl::StrAppend(&out, "| ", Code(g.gate), " | ",
                    g.status == GateStatus::kPassed
                        ? "passed"
                        : absl::StrCat("**", StatusName(g.status), "**"),
                    " | ", g.checked, " | ", g.violations.size(), " | ",
                    g.not_significant.size(), " | ", g.not_evaluated.size(),
                    " |\n");
  }
  for (const GateResult& g : gates) {
    if (!g.message.empty()) {
      absl::StrAppend(&out, "\n- ", Code(g.gate), ": ", Md(g.message));
    }
    if (!g.violations.empty()) {
      std::vector<std::string> names;
      for (size_t i = 0; i < g.violations.size() && i < 5; ++i) {
        names.push_back(Code(g.violations[i].benchmark));
      }
      absl::StrAppend(&out, "\n- ", Code(g.gate), ": violated by ",
                      absl::StrJoin(names, ", "));
      if (g.violations.size() > names.size()) {
        absl::StrAppend(&out, " and ", g.violations.size() - names.size(),
                        " more");
      }
    }
    if (g.estimated > 0) {
      absl::StrAppend(&out, "\n- ", Code(g.gate), ": ", g.estimated,
                      " checked value(s) on multiplexed estimates (marked ",
                      MdMarked(kEstimateMarker), ")");
    }
  }
  out += "\n";
}

// A metric's row to be: its benchmark, the metric and its Gate cell.
struct MdItem {
  const BenchmarkComparison* bc;
  const MetricComparison* m;
  std::string gate_cell;
};

// Rows by section: gate violations, regressions, improvements, drift, other
// changes, unchanged; and the benchmarks not compared.
struct MdRows {
  std::vector<MdItem> violated, regressions, improvements, drift, other,
      unchanged;
  std::vector<const BenchmarkComparison*> not_compared;
};

MdRows SortMdRows(const Comparison& c, const MarkIndex& marks,
                  const RenderOptions& options) {
  MdRows rows;
  for (const BenchmarkComparison& bc : c.benchmarks) {
    if (!PairingNote(bc).empty()) rows.not_compared.push_back(&bc);
    for (const MetricComparison& m : bc.metrics) {
      MdItem item{&bc, &m, ""};
      if (auto it = marks.find({bc.name, m.metric}); it != marks.end()) {
        for (const std::string& g : it->second.failed) {
          absl::StrAppend(&item.gate_cell, item.gate_cell.empty() ? "" : " ",
                          "**FAIL** ", Code(g));
        }
        for (const std::string& g : it->second.held) {
          absl::StrAppend(&item.gate_cell, item.gate_cell.empty() ? "" : " ",
                          "held: ", Md(g));
        }
        if (!it->second.failed.empty()) {
          rows.violated.push_back(std::move(item));
          continue;
        }
      }
      if (!m.change_pct) continue;  // shown under "not compared" if at all
      if (!Changed(m, options.alpha)) {
        if (!options.only_changed) rows.unchanged.push_back(std::move(item));
        continue;
      }
      const int d = ChangeDirection(m);
      (d > 0           ? rows.regressions
       : d < 0         ? rows.improvements
       : m.common_mode ? rows.drift
                       : rows.other)
          .push_back(std::move(item));
    }
  }
  return rows;
}

struct MdSection {
  const char* title;
  std::vector<MdItem>* items;
  size_t left_out = 0;
};

// The sections' tables, each sorted by the size of the change, as far as
// the budgets allow; whether a written value is an estimate.
bool WriteMdSections(MarkdownWriter& w, const Comparison& c,
                     std::span<MdSection> sections) {
  std::string& out = w.out();
  auto by_size = [](const MdItem& a, const MdItem& b) {
    return std::fabs(a.m->change_pct.value_or(0)) >
           std::fabs(b.m->change_pct.value_or(0));
  };
  bool flagged = false;  // a written value is an estimate
  for (MdSection& s : sections) {
    std::stable_sort(s.items->begin(), s.items->end(), by_size);
    if (s.items->empty()) continue;
    // A Gate column where a row has a gate's mark (a held gate's note
    // too): never a cell beyond the header's, which GitHub drops.
    const bool gate_column =
        std::any_of(s.items->begin(), s.items->end(),
                    [](const MdItem& item) { return !item.gate_cell.empty(); });
    const std::string heading = absl::StrCat(
        "### ", s.title, " (", s.items->size(), ")\n\n",
        "| Benchmark | Metric | Base | New | Change | p | Reps",
        gate_column ? " | Gate |\n|---|---|---:|---:|---:|---:|---:|---|\n"
                    : " |\n|---|---|---:|---:|---:|---:|---:|\n");
    size_t i = 0;
    if (w.Fits(heading.size() + 200)) {
      out += heading;
      for (; i < s.items->size(); ++i) {
        const MdItem& item = (*s.items)[i];
        const ComparisonRow row =
            MakeComparisonRow(item.bc->name, *item.m, c.simulated);
        if (!w.Row(FormatMetricRow(row, item.gate_cell, gate_column))) {
          break;
        }
        flagged = flagged || row.estimated;
      }
      out += "\n";
    }
    s.left_out = s.items->size() - i;
  }
  return flagged;
}

void WriteMdNotCompared(
    MarkdownWriter& w,
    const std::vector<const BenchmarkComparison*>& not_compared) {
  std::string& out = w.out();
  const std::string heading =
      absl::StrCat("### Not compared (", not_compared.size(), ")\n\n");
  size_t i = 0;
  if (w.Fits(heading.size() + 200)) {
    out += heading;
    for (; i < not_compared.size(); ++i) {
      if (!w.Row(absl::StrCat("- ", Code(not_compared[i]->name), ": ",
                              Md(PairingNote(*not_compared[i])), "\n"))) {
        break;
      }
    }
    out += "\n";
  }
  if (i < not_compared.size()) {
    absl::StrAppend(&out, "(", not_compared.size() - i,
                    " more not compared benchmarks left out)\n\n");
  }
}

// What the budgets left out of the sections, and the closing notes.
void AppendMdClosing(std::string& out, std::span<const MdSection> sections,
                     const RenderOptions& options) {
  std::vector<std::string> left;
  for (const MdSection& s : sections) {
    if (s.left_out > 0) {
      left.push_back(absl::StrCat(s.left_out, " of ", s.items->size(), " ",
                                  absl::AsciiStrToLower(s.title)));
    }
  }
  if (!left.empty()) {
    absl::StrAppend(&out, "**Left out:** ", absl::StrJoin(left, ", "), " (",
                    options.max_rows > 0
                        ? absl::StrCat("--max-rows ", options.max_rows, ", ")
                        : "",
                    "the comment stays within ", options.max_chars,
                    " characters; `--format json` has every row).\n\n");
  }
  if (options.only_changed) {
    out +=
        "Only changed rows are shown (--only-changed): significant and at "
        "least 1 % (0.1 % for exact counters), or violating a gate.\n\n";
  }
  if (!options.warnings.empty()) {
    absl::StrAppend(&out, "Input warnings: ", options.warnings.size(),
                    " (see stderr or `--format json`)\n");
  }
}

}  // namespace

namespace compare_internal {

std::string RenderMarkdown(const Comparison& c,
                           const std::vector<GateResult>& gates,
                           const RenderOptions& options) {
  const MarkIndex marks = IndexMarks(gates);
  // The profiles' part gets up to a quarter of the comment.
  const std::string profiles =
      ProfileMarkdown(c.profiles, options.max_chars / 4);
  MarkdownWriter w(options, profiles.size());
  std::string& out = w.out();
  out = "## perfcounters compare\n\n";
  absl::StrAppend(&out, "Base: ", Code(c.base_source),
                  ", new: ", Code(c.next_source), "\n\n");
  if (const std::string note = SimulatedNote(c); !note.empty()) {
    absl::StrAppend(&out, "Note: ", Md(note), ".\n\n");
  }
  if (!gates.empty()) AppendMdGates(out, gates);
  for (const std::string& note : {OneSampleNote(c), PairedNote(c)}) {
    if (!note.empty()) absl::StrAppend(&out, "\n> **Note:** ", note, ".\n");
  }
  out += "\n";
  if (!c.geomean.empty() && w.Fits(100 + 40 * c.geomean.size())) {
    out += "| Geometric mean | Change | Benchmarks |\n|---|---:|---:|\n";
    for (const GeomeanSummary& g : c.geomean) {
      absl::StrAppendFormat(&out, "| %s | %+.2f%% | %d |\n",
                            Md(LabelledMetric(c, g.metric)), g.change_pct,
                            g.benchmarks);
    }
    out += "\n";
  }

  MdRows rows = SortMdRows(c, marks, options);
  MdSection sections[] = {
      {"Gate violations", &rows.violated},
      {"Regressions", &rows.regressions},
      {"Improvements", &rows.improvements},
      {"Common-mode drift (the machine; not improvements or regressions)",
       &rows.drift},
      {"Other changes (no better direction known)", &rows.other},
      {"No significant change", &rows.unchanged}};
  if (WriteMdSections(w, c, sections)) {
    absl::StrAppend(&out, MdMarked(EstimateLegend()),
                    "; `--format json` has each side's coverage.\n\n");
  }
  if (!rows.not_compared.empty() && !options.only_changed) {
    WriteMdNotCompared(w, rows.not_compared);
  }
  if (const auto uncounted = Uncounted(c);
      !uncounted.empty() && w.Fits(60 + 120 * uncounted.size())) {
    absl::StrAppend(&out, "### Not counted (", uncounted.size(), ")\n\n");
    for (const auto& [metric, text] : uncounted) {
      absl::StrAppend(&out, "- ", Code(metric), ": ", Md(text), "\n");
    }
    out += "\n";
  }
  if (const std::string note = ComplexityNote(c); !note.empty()) {
    absl::StrAppend(&out, "> **Note:** ", Md(note), ".\n\n");
  }
  out += profiles;
  AppendMdClosing(out, sections, options);
  return out;
}

}  // namespace compare_internal
}  // namespace perfcounters::tools
