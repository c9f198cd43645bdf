// compare_rows.cc: the rows of a comparison's writers (compare_rows.h).
#include "compare_rows.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "counting_source.h"

namespace perfcounters::tools {
namespace {

// Why a gate beyond its threshold held: "p=0.300, not significant".
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

// The side's cell from its median's text (`value`, "" without a median).
std::string SideCell(const SideStats& s, const std::string& value) {
  if (!s.present) return "absent";
  if (!s.median) return "not counted";
  std::string text = absl::StrCat(Flagged(s) ? kEstimateMarker : "", value);
  if (s.not_counted > 0) {
    absl::StrAppend(&text, " (", s.not_counted, " of ",
                    s.not_counted + s.samples.size(), " not counted)");
  }
  return text;
}

std::string MedianText(const MetricComparison& m, const SideStats& s) {
  return s.median ? FormatValue(m.metric, *s.median) : std::string();
}

}  // namespace

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

ComparisonRow MakeComparisonRow(absl::string_view benchmark,
                                const MetricComparison& m, bool simulated,
                                const GateMarks* marks) {
  ComparisonRow r;
  r.benchmark = std::string(benchmark);
  r.comparison = &m;
  r.metric = TaggedMetric(m.metric, simulated);
  r.kind = KindOfValue(m.metric, simulated);
  r.base_value = MedianText(m, m.base);
  r.next_value = MedianText(m, m.next);
  r.base = SideCell(m.base, r.base_value);
  r.next = SideCell(m.next, r.next_value);
  r.change = FormatChange(m.change_pct);
  r.p = FormatP(m);
  r.reps = absl::StrCat(m.base.samples.size(), " vs ", m.next.samples.size());
  r.estimated = Flagged(m.base) || Flagged(m.next);
  r.direction = ChangeDirection(m);
  r.marks = marks;
  return r;
}

}  // namespace perfcounters::tools
