// compare_output.cc: the table, Markdown and JSON outputs of
// `perfcounters compare`. Every output states the verdict ExitCode() gives,
// and benchmark names are printed with control bytes escaped.
#include "compare_output.h"

#include <algorithm>
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
#include "oom_safe_map.h"

namespace perfcounters::tools {
namespace {

constexpr const char* kRed = "\x1b[31m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kBoldRed = "\x1b[1;31m";
constexpr const char* kReset = "\x1b[0m";

}  // namespace

namespace {

// A side's median for people; `~` before it when Flagged() (an estimate).
std::string FormatSide(const MetricComparison& m, const SideStats& s) {
  if (!s.present) return "absent";
  if (!s.median) return "not counted";
  std::string text = absl::StrCat(Flagged(s) ? kEstimateMarker : "",
                                  FormatValue(m.metric, *s.median));
  if (s.not_counted > 0) {
    absl::StrAppend(&text, " (", s.not_counted, " of ",
                    s.not_counted + s.samples.size(), " not counted)");
  }
  return text;
}

std::string Reps(const MetricComparison& m) {
  return absl::StrCat(m.base.samples.size(), " vs ", m.next.samples.size());
}

// (benchmark, metric) -> the gates it violated / met without significance.
struct GateMarks {
  std::vector<std::string> failed;
  std::vector<std::string> held;  // "GATE (p=0.3, not significant)"
};
using MarkIndex = OomSafeMap<std::pair<std::string, std::string>, GateMarks>;

std::string HeldNote(const GateViolation& v) {
  if (v.evidence == Evidence::kExact) return "ranges overlap";
  std::string note = absl::StrFormat("p=%.3f", v.p.value_or(1.0));
  if (v.min_p > 0) {
    absl::StrAppendFormat(&note,
                          ", not significant; these repetitions "
                          "allow p >= %.3f",
                          v.min_p);
  } else {
    note += ", not significant";
  }
  return note;
}

MarkIndex IndexMarks(const std::vector<GateResult>& gates) {
  MarkIndex index;
  for (const GateResult& g : gates) {
    for (const GateViolation& v : g.violations) {
      index[{v.benchmark, v.metric}].failed.push_back(g.gate);
    }
    for (const GateViolation& v : g.not_significant) {
      index[{v.benchmark, v.metric}].held.push_back(
          absl::StrCat(g.gate, " (", HeldNote(v), ")"));
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
  return EscapeControlBytes(note);
}

}  // namespace

namespace compare_internal {

std::string VerdictText(const std::vector<GateResult>& gates) {
  const int code = ExitCode(gates);
  size_t failed = 0, errors = 0;
  for (const GateResult& g : gates) {
    if (g.status == GateStatus::kFailed || g.status == GateStatus::kMissing) {
      ++failed;
    }
    if (g.status == GateStatus::kUnchecked ||
        g.status == GateStatus::kNoMatch || g.status == GateStatus::kRefused) {
      ++errors;
    }
  }
  if (code == 2) {
    return absl::StrCat("ERROR (exit 2): ", errors, " of ", gates.size(),
                        " gate(s) could not be applied");
  }
  if (code == 1) {
    return absl::StrCat("FAILED (exit 1): ", failed, " of ", gates.size(),
                        " gate(s) failed");
  }
  return absl::StrCat("passed (exit 0): all ", gates.size(), " gate(s) passed");
}

}  // namespace compare_internal

namespace {

using compare_internal::ComplexityNote;
using compare_internal::LabelledMetric;
using compare_internal::NoValue;
using compare_internal::OneSampleCount;
using compare_internal::SimulatedNote;
using compare_internal::Uncounted;
using compare_internal::VerdictText;

// "BM_a, BM_b and 3 more": the benchmarks that violated `g`.
std::string ViolatedNames(const GateResult& g) {
  std::vector<std::string> names;
  for (size_t i = 0; i < g.violations.size() && i < 5; ++i) {
    names.push_back(EscapeControlBytes(g.violations[i].benchmark));
  }
  std::string out = absl::StrJoin(names, ", ");
  if (g.violations.size() > names.size()) {
    absl::StrAppend(&out, " and ", g.violations.size() - names.size(), " more");
  }
  return out;
}

std::string GateSummaryLine(const GateResult& g) {
  std::string line = absl::StrCat(
      "gate ", EscapeControlBytes(g.gate), ": ", StatusName(g.status), " (",
      g.checked, " checked, ", g.violations.size(), " violated");
  if (!g.not_significant.empty()) {
    absl::StrAppend(&line, ", ", g.not_significant.size(),
                    " beyond the threshold but not significant");
  }
  if (g.one_sample > 0) {
    absl::StrAppend(&line, ", ", g.one_sample, " resting on one sample each");
  }
  if (g.estimated > 0) {
    absl::StrAppend(&line, ", ", g.estimated,
                    " on multiplexed estimates (marked ", kEstimateMarker, ")");
  }
  if (!g.violations.empty()) {
    absl::StrAppend(&line, ", violated by ", ViolatedNames(g));
  }
  if (!g.not_evaluated.empty()) {
    absl::StrAppend(&line, ", not evaluated on ", g.not_evaluated.size(),
                    ", e.g. ", EscapeControlBytes(g.not_evaluated[0].benchmark),
                    ": ", EscapeControlBytes(g.not_evaluated[0].reason));
  }
  absl::StrAppend(&line, ")");
  if (!g.message.empty()) {
    absl::StrAppend(&line, ": ", EscapeControlBytes(g.message));
  }
  return line;
}

}  // namespace

namespace compare_internal {

size_t OneSampleCount(const Comparison& c) {
  size_t n = 0;
  for (const BenchmarkComparison& bc : c.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      n += m.evidence == Evidence::kOneSample;
    }
  }
  return n;
}

}  // namespace compare_internal

namespace {

std::string OneSampleNote(const Comparison& c) {
  const size_t n = OneSampleCount(c);
  if (n == 0) return "";
  return absl::StrCat(
      n,
      " comparison(s) have one sample on a side: their changes rest on "
      "one sample each (no significance test; run the benchmarks with "
      "--benchmark_repetitions=5)");
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
  const int d = ChangeDirection(m);
  if (d == 0) return nullptr;
  return d > 0 ? kRed : kGreen;
}

// Written in pieces of about kTablePiece bytes, whole rows each: the
// table of many small benchmarks is tens of MB.
constexpr size_t kTablePiece = 1 << 16;

void RenderTable(const Comparison& c, const std::vector<GateResult>& gates,
                 const RenderOptions& options, const TextWriter& write) {
  const bool color = options.color;
  const MarkIndex marks = IndexMarks(gates);
  // The rows are made twice, for the columns' widths and then for the
  // text, instead of being kept (they would take many times the inputs'
  // size for many small benchmarks).
  size_t shown = 0, left_out = 0;
  bool flagged = false;  // a shown value is an estimate
  auto for_each_row = [&](const std::function<void(const Row&)>& visit) {
    shown = left_out = 0;
    flagged = false;
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
        if (options.max_rows > 0 && shown >= options.max_rows) {
          ++left_out;
          continue;
        }
        ++shown;
        r = Row();
        r.cells[0] = first ? name : "";
        first = false;
        r.cells[1] = EscapeControlBytes(LabelledMetric(c, m.metric));
        r.cells[2] = FormatSide(m, m.base);
        r.cells[3] = FormatSide(m, m.next);
        flagged = flagged || Flagged(m.base) || Flagged(m.next);
        r.cells[4] = FormatChange(m.change_pct);
        r.cells[5] = FormatP(m);
        r.cells[6] = Reps(m);
        r.change_color = ChangeColor(m);
        if (it != marks.end()) {
          r.failed = !it->second.failed.empty();
          for (const std::string& g : it->second.failed) {
            absl::StrAppend(&r.cells[6], "  FAIL ", EscapeControlBytes(g));
          }
          for (const std::string& g : it->second.held) {
            absl::StrAppend(&r.cells[6], "  held: ", EscapeControlBytes(g));
          }
        }
        visit(r);
      }
    }
  };
  size_t width[7] = {};
  size_t rows = 0;
  for_each_row([&](const Row& r) {
    ++rows;
    const int columns = r.note.empty() ? 6 : 1;
    for (int i = 0; i < columns; ++i) {
      width[i] = std::max(width[i], r.cells[i].size());
    }
  });
  std::string out;
  out.reserve(std::min(rows * 100, 2 * kTablePiece));
  for_each_row([&](const Row& r) {
    if (out.size() >= kTablePiece) {
      write(out);
      out.clear();
    }
    if (!r.note.empty()) {
      absl::StrAppend(&out, r.cells[0],
                      std::string(width[0] - r.cells[0].size() + 2, ' '),
                      r.note, "\n");
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
  });
  if (left_out > 0) {
    absl::StrAppend(&out, "(", left_out,
                    " more rows left out by --max-rows)\n");
  }
  for (const auto& [metric, text] : Uncounted(c)) {
    absl::StrAppend(&out, EscapeControlBytes(metric), ": ",
                    EscapeControlBytes(text), "\n");
  }
  if (const std::string note = ComplexityNote(c); !note.empty()) {
    absl::StrAppend(&out, "Note: ", note, "\n");
  }
  if (flagged) {
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
  if (const std::string note = OneSampleNote(c); !note.empty()) {
    absl::StrAppend(&out, "\nNote: ", note, ".\n");
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
  write(out);
}

// ---- Markdown.

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
  MarkdownWriter(const RenderOptions& options, size_t reserved = 0)
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
std::string FormatMetricRow(const Comparison& c, const BenchmarkComparison& bc,
                            const MetricComparison& m, const std::string& last,
                            bool gate_column) {
  return absl::StrCat(
      "| ", Code(bc.name), " | ", Md(LabelledMetric(c, m.metric)), " | ",
      MdMarked(FormatSide(m, m.base)), " | ", MdMarked(FormatSide(m, m.next)),
      " | ", FormatChange(m.change_pct), " | ", FormatP(m), " | ", Reps(m),
      gate_column ? " | " : "", last, " |\n");
}

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
  if (!gates.empty()) {
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
  if (const std::string note = OneSampleNote(c); !note.empty()) {
    absl::StrAppend(&out, "\n> **Note:** ", note, ".\n");
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

  // Rows by section: gate violations, regressions, improvements, other
  // changes, unchanged; each sorted by the size of the change.
  struct Item {
    const BenchmarkComparison* bc;
    const MetricComparison* m;
    std::string gate_cell;
  };
  std::vector<Item> violated, regressions, improvements, other, unchanged;
  std::vector<const BenchmarkComparison*> not_compared;
  for (const BenchmarkComparison& bc : c.benchmarks) {
    if (!PairingNote(bc).empty()) not_compared.push_back(&bc);
    for (const MetricComparison& m : bc.metrics) {
      Item item{&bc, &m, ""};
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
          violated.push_back(std::move(item));
          continue;
        }
      }
      if (!m.change_pct) continue;  // shown under "not compared" if at all
      if (!Changed(m, options.alpha)) {
        if (!options.only_changed) unchanged.push_back(std::move(item));
        continue;
      }
      const int d = ChangeDirection(m);
      (d > 0   ? regressions
       : d < 0 ? improvements
               : other)
          .push_back(std::move(item));
    }
  }
  auto by_size = [](const Item& a, const Item& b) {
    return std::fabs(a.m->change_pct.value_or(0)) >
           std::fabs(b.m->change_pct.value_or(0));
  };
  struct Section {
    const char* title;
    std::vector<Item>* items;
    size_t left_out = 0;
  };
  bool flagged = false;  // a written value is an estimate
  Section sections[] = {{"Gate violations", &violated},
                        {"Regressions", &regressions},
                        {"Improvements", &improvements},
                        {"Other changes (no better direction known)", &other},
                        {"No significant change", &unchanged}};
  for (Section& s : sections) {
    std::stable_sort(s.items->begin(), s.items->end(), by_size);
    if (s.items->empty()) continue;
    // A Gate column where a row has a gate's mark (a held gate's note
    // too): never a cell beyond the header's, which GitHub drops.
    const bool gate_column =
        std::any_of(s.items->begin(), s.items->end(),
                    [](const Item& item) { return !item.gate_cell.empty(); });
    const std::string heading = absl::StrCat(
        "### ", s.title, " (", s.items->size(), ")\n\n",
        "| Benchmark | Metric | Base | New | Change | p | Reps",
        gate_column ? " | Gate |\n|---|---|---:|---:|---:|---:|---:|---|\n"
                    : " |\n|---|---|---:|---:|---:|---:|---:|\n");
    size_t i = 0;
    if (w.Fits(heading.size() + 200)) {
      out += heading;
      for (; i < s.items->size(); ++i) {
        const Item& item = (*s.items)[i];
        if (!w.Row(FormatMetricRow(c, *item.bc, *item.m, item.gate_cell,
                                   gate_column))) {
          break;
        }
        flagged = flagged || Flagged(item.m->base) || Flagged(item.m->next);
      }
      out += "\n";
    }
    s.left_out = s.items->size() - i;
  }
  if (flagged) {
    absl::StrAppend(&out, MdMarked(EstimateLegend()),
                    "; `--format json` has each side's coverage.\n\n");
  }
  if (!not_compared.empty() && !options.only_changed) {
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
  std::vector<std::string> left;
  for (const Section& s : sections) {
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
  return out;
}

}  // namespace

void RenderTo(const Comparison& comparison,
              const std::vector<GateResult>& gates,
              const RenderOptions& options, const TextWriter& write) {
  switch (options.format) {
    case Format::kTable:
      RenderTable(comparison, gates, options, write);
      return;
    case Format::kMarkdown:
      write(RenderMarkdown(comparison, gates, options));
      return;
    case Format::kJson:
      compare_internal::RenderJson(comparison, gates, options, write);
      return;
  }
}

std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates,
                   const RenderOptions& options) {
  std::string out;
  RenderTo(comparison, gates, options, [&out](absl::string_view piece) {
    out.append(piece.data(), piece.size());
  });
  return out;
}

std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates, Format format,
                   bool color) {
  RenderOptions options;
  options.format = format;
  options.color = color;
  return Render(comparison, gates, options);
}

}  // namespace perfcounters::tools
