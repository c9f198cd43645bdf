// compare_gates.cc: the CI gates of `perfcounters compare` (see compare.h):
// parsing `[FILTER:]METRIC OP VALUE`, evaluating gates on a comparison with
// the significance rule, and the statuses the exit code follows from.
#include "compare_gates.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "compare.h"
#include "perfcounters/internal/edit_distance.h"

namespace perfcounters::tools {
namespace {

// Metrics the output shows as times (IsTimeValued): their absolute
// gates need a unit, as the table prints them (task-clock 1.089 us).
bool IsTimeMetric(absl::string_view metric) { return IsTimeValued(metric); }

}  // namespace

bool Gate::Violated(double value) const {
  switch (op) {
    case Op::kLess:
      return value < threshold;
    case Op::kLessEqual:
      return value <= threshold;
    case Op::kGreater:
      return value > threshold;
    case Op::kGreaterEqual:
      return value >= threshold;
  }
  return false;
}

namespace {

// The canonical name of a known metric (exact, else case-insensitive when
// unique), or empty.
std::string FindMetric(absl::string_view name,
                       const std::vector<std::string>& known) {
  std::string found;
  int matches = 0;
  for (const std::string& k : known) {
    if (k == name) return k;
    if (absl::EqualsIgnoreCase(k, name)) {
      found = k;
      ++matches;
    }
  }
  return matches == 1 ? found : std::string();
}

// What an unknown metric name could have been: the table's metric (its
// inputs are missing), or the table's names.
std::string DerivedMetricsNote(absl::string_view name) {
  if (const TableMetric t = FindTableMetric(name); t.metric != nullptr) {
    return absl::StrCat(CompareMetricName(*t.metric, t.modifiers), " = ",
                        InputLabel(t.metric->numerator, t.modifiers, ""), " / ",
                        InputLabel(t.metric->denominator, t.modifiers, ""),
                        " needs both counters in the files");
  }
  // The files' metrics (listed before this) hold every derived metric
  // both of whose inputs they count; the table's others cannot be gated
  // here, so listing them would only lengthen the error.
  return "a derived metric (IPC, cpi, miss rates, ...) is among them where "
         "the files count both its inputs";
}

constexpr absl::string_view kGateSyntax =
    "gate syntax: [FILTER:]METRIC OP VALUE, OP one of < <= > >=, VALUE a "
    "change in % (IPC<-2%, instructions>+0.5%) or an absolute limit "
    "(IPC<1.2, cpu_time>1.5ms)";

// The error for gate `text`: `why`, then the syntax.
absl::Status BadGate(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("bad gate '", ShortForMessage(text, 60),
                   "': ", ShortForMessage(why, 240), "; ", kGateSyntax));
}

// The metric of a gate's left side `left`: METRIC, or FILTER:METRIC
// (metric names may themselves contain ':'), with the FILTER in
// *filter_text; empty when none of `known_metrics` is named.
std::string FindGateMetric(absl::string_view left,
                           const std::vector<std::string>& known_metrics,
                           std::string* filter_text) {
  std::string metric = FindMetric(left, known_metrics);
  if (metric.empty()) {
    for (size_t p = left.find(':'); p != absl::string_view::npos;
         p = left.find(':', p + 1)) {
      metric = FindMetric(absl::StripAsciiWhitespace(left.substr(p + 1)),
                          known_metrics);
      if (!metric.empty()) {
        *filter_text = std::string(left.substr(0, p));
        break;
      }
    }
  }
  return metric;
}

// The error for gate `text` whose left side `left` names no metric of
// the files: the nearest names, the files' variants, the files' metrics.
absl::Status UnknownGateMetric(absl::string_view text, absl::string_view left,
                               const std::vector<std::string>& known_metrics) {
  // The metric named: a derived metric with its modifiers (cpi:k), after
  // a FILTER or not, else what follows the last ':'.
  absl::string_view name = left;
  if (FindTableMetric(left).metric == nullptr) {
    if (size_t p = left.rfind(':'); p != absl::string_view::npos) {
      name = left.substr(p + 1);
    }
    for (size_t p = left.find(':'); p != absl::string_view::npos;
         p = left.find(':', p + 1)) {
      const absl::string_view rest =
          absl::StripAsciiWhitespace(left.substr(p + 1));
      if (FindTableMetric(rest).metric != nullptr) {
        name = rest;
        break;
      }
    }
  }
  // IPC<-2% on files with only instructions:u/cycles:u: name IPC:u.
  std::vector<std::string> variants;
  for (const std::string& k : known_metrics) {
    if (absl::StartsWithIgnoreCase(k, absl::StrCat(name, ":"))) {
      variants.push_back(k);
    }
  }
  // A typo of a metric of the files (task_clock, IPX): the nearest.
  const std::vector<std::string> close =
      variants.empty()
          ? internal::ClosestNames(std::string(name), known_metrics, 3)
          : std::vector<std::string>();
  return absl::InvalidArgumentError(absl::StrCat(
      "bad gate '", ShortForMessage(text, 60), "': unknown metric '",
      ShortForMessage(name, 40), "'",
      close.empty() ? std::string()
                    : absl::StrCat(" (did you mean '",
                                   absl::StrJoin(close, "', '"), "'?)"),
      variants.empty()
          ? std::string()
          : absl::StrCat(" (these files have ",
                         ShortForMessage(absl::StrJoin(variants, ", "), 200),
                         ": counters with modifiers keep them, e.g. "
                         "IPC:u = instructions:u / cycles:u)"),
      "; metrics in these files: ",
      ShortForMessage(absl::StrJoin(known_metrics, ", "), 200), "; ",
      DerivedMetricsNote(name)));
}

// The gate's VALUE `right` (NUMBER% or NUMBER[UNIT]) into gate->relative
// and gate->threshold (in ns for times).
absl::Status ParseGateValue(absl::string_view text, absl::string_view right,
                            Gate* gate) {
  const std::string& metric = gate->metric;
  absl::string_view number = right;
  absl::string_view unit;
  if (absl::ConsumeSuffix(&number, "%")) {
    gate->relative = true;
  } else {
    size_t end = number.size();
    while (end > 0 &&
           (absl::ascii_isalpha(static_cast<unsigned char>(number[end - 1])) ||
            static_cast<unsigned char>(number[end - 1]) >= 0x80)) {
      --end;
    }
    unit = number.substr(end);
    number = absl::StripAsciiWhitespace(number.substr(0, end));
  }
  absl::string_view digits = number;
  absl::ConsumePrefix(&digits, "+");
  double value = 0;
  if (digits.empty() || !absl::SimpleAtod(digits, &value) ||
      !std::isfinite(value) ||
      absl::StrContains(absl::AsciiStrToLower(digits), "n")) {
    return BadGate(text, absl::StrCat("'", right, "' is not a finite number"));
  }
  if (gate->relative) {
    gate->threshold = value;
  } else if (gate->geomean) {
    return BadGate(text,
                   "@geomean gates compare changes; write the value in %");
  } else if (IsTimeMetric(metric)) {
    const std::string u = unit == "\xC2\xB5s" ? "us" : std::string(unit);
    const std::optional<double> scale = NanosecondsPer(u);
    if (!scale) {
      return BadGate(
          text,
          absl::StrCat(metric,
                       " needs a unit: ns, us, ms or s (a time, as the table "
                       "prints it; e.g. ",
                       metric, ">1.5ms)",
                       unit.empty() ? "" : absl::StrCat(", not '", unit, "'")));
    }
    gate->threshold = value * *scale;
  } else {
    if (!unit.empty()) {
      return BadGate(text, absl::StrCat("unit '", unit, "' given for ", metric,
                                        ", which has none (units are for "
                                        "times: real_time, cpu_time, "
                                        "task-clock, cpu-clock)"));
    }
    gate->threshold = value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Gate> ParseGate(absl::string_view text,
                               const std::vector<std::string>& known_metrics) {
  Gate gate;
  gate.text = std::string(text);
  auto bad = [&](absl::string_view why) { return BadGate(text, why); };
  // The last < or >: a FILTER may contain both (templates), a value none.
  const size_t op_pos = text.find_last_of("<>");
  if (op_pos == absl::string_view::npos) return bad("no comparison < or >");
  absl::string_view left = absl::StripAsciiWhitespace(text.substr(0, op_pos));
  absl::string_view right = text.substr(op_pos + 1);
  const bool less = text[op_pos] == '<';
  bool or_equal = false;
  if (absl::ConsumePrefix(&right, "=")) or_equal = true;
  gate.op = less ? (or_equal ? Gate::Op::kLessEqual : Gate::Op::kLess)
                 : (or_equal ? Gate::Op::kGreaterEqual : Gate::Op::kGreater);
  right = absl::StripAsciiWhitespace(right);
  if (left.empty()) return bad("no metric before the comparison");
  if (right.empty()) return bad("no value after the comparison");

  const std::string metric =
      FindGateMetric(left, known_metrics, &gate.filter_text);
  if (metric.empty()) return UnknownGateMetric(text, left, known_metrics);
  gate.metric = metric;
  if (gate.filter_text == "@geomean") {
    gate.geomean = true;
  } else if (absl::StartsWith(gate.filter_text, "=")) {
    gate.exact_name = gate.filter_text.substr(1);
    if (gate.exact_name->empty()) return bad("'=' names no benchmark");
  } else if (!gate.filter_text.empty()) {
    absl::StatusOr<NameFilter> filter = NameFilter::Create(gate.filter_text);
    if (!filter.ok()) {
      return bad(
          absl::StrCat("the benchmark filter ", filter.status().message()));
    }
    gate.filter = *std::move(filter);
  }
  if (absl::Status s = ParseGateValue(text, right, &gate); !s.ok()) return s;
  return gate;
}

bool Gate::Applies(absl::string_view name) const {
  if (exact_name) return name == *exact_name;
  return !filter || filter->Matches(name);
}

namespace {

// Why `gate` could not be checked on `bc`, or empty when it can be.
std::string SkipReason(const Gate& gate, const Comparison& comparison,
                       const BenchmarkComparison& bc,
                       const MetricComparison* m) {
  if (bc.pairing == Pairing::kBaseOnly) {
    return gate.relative ? "only in the base file" : "not in the new file";
  }
  if (bc.pairing == Pairing::kNewOnly && gate.relative) {
    return "only in the new file";
  }
  auto side_reason = [&](const SideStats& s, const char* side,
                         const std::string& problem,
                         const std::vector<UnavailableGroup>& unavailable) {
    if (!problem.empty()) return absl::StrCat(side, ": ", problem);
    if (!s.present) return absl::StrCat(gate.metric, " absent from ", side);
    const std::string why = NotCountedReason(unavailable, gate.metric);
    return absl::StrCat(gate.metric, " not counted in ", side,
                        why.empty() ? "" : absl::StrCat(" (", why, ")"));
  };
  if (m == nullptr) {
    return !bc.next_problem.empty()
               ? absl::StrCat("new: ", bc.next_problem)
               : absl::StrCat(gate.metric, " absent from both files");
  }
  if (!m->next.median) {
    // Not counted on either side: one statement, not "in new".
    if (gate.relative && !m->base.median && m->base.present &&
        m->next.present && bc.base_problem.empty() && bc.next_problem.empty()) {
      const std::string why =
          NotCountedReason(comparison.next_unavailable, gate.metric);
      return absl::StrCat(gate.metric, " not counted in either file",
                          why.empty() ? "" : absl::StrCat(" (", why, ")"));
    }
    return side_reason(m->next, "new", bc.next_problem,
                       comparison.next_unavailable);
  }
  if (gate.relative && !m->base.median) {
    return side_reason(m->base, "base", bc.base_problem,
                       comparison.base_unavailable);
  }
  return "";
}

void EvaluateGeomean(const Comparison& comparison, const Gate& gate,
                     GateResult& r) {
  r.matched = comparison.benchmarks.size();
  for (const GeomeanSummary& g : comparison.geomean) {
    if (g.metric != gate.metric) continue;
    ++r.checked;
    if (gate.Violated(g.change_pct)) {
      GateViolation v;
      v.benchmark = "@geomean";
      v.metric = g.metric;
      v.value = g.change_pct;
      r.violations.push_back(std::move(v));
    }
  }
  if (r.checked == 0) {
    r.not_evaluated.push_back(
        {"@geomean", absl::StrCat("no benchmark has ", gate.metric,
                                  " counted on both sides")});
  }
}

// `gate` on each benchmark it applies to: checked, violated, held or
// not evaluated.
void EvaluateOnBenchmarks(const Comparison& comparison, const Gate& gate,
                          const GateOptions& options, GateResult& r) {
  for (const BenchmarkComparison& bc : comparison.benchmarks) {
    if (!gate.Applies(bc.name)) continue;
    ++r.matched;
    const MetricComparison* m = nullptr;
    for (const MetricComparison& x : bc.metrics) {
      if (x.metric == gate.metric) m = &x;
    }
    if (std::string why = SkipReason(gate, comparison, bc, m); !why.empty()) {
      r.not_evaluated.push_back({bc.name, std::move(why)});
      continue;
    }
    // A not-counted side has no median and was skipped above: only
    // counted values are checked.
    const double value = gate.relative ? *m->change_pct : *m->next.median;
    ++r.checked;
    // An estimate is checked like any value; the outputs say so.
    const bool estimated =
        Flagged(m->next) || (gate.relative && Flagged(m->base));
    r.estimated += estimated;
    if (!gate.Violated(value)) continue;
    GateViolation v;
    v.benchmark = bc.name;
    v.metric = gate.metric;
    v.value = value;
    v.estimated = estimated;
    if (!gate.relative) {
      r.violations.push_back(std::move(v));
      continue;
    }
    v.evidence = m->evidence;
    v.p = m->p_value;
    if (m->evidence == Evidence::kUTest) {
      v.min_p = MinimumP(m->base.samples.size(), m->next.samples.size());
    }
    if (m->evidence == Evidence::kOneSample) ++r.one_sample;
    if (Significant(*m, options.alpha)) {
      r.violations.push_back(std::move(v));
    } else {
      r.not_significant.push_back(std::move(v));
    }
  }
}

// The status, from the most severe finding, and what it says.
void SetGateStatus(const Comparison& comparison, const Gate& gate,
                   const GateOptions& options, GateResult& r) {
  if (r.matched == 0) {
    r.status = GateStatus::kNoMatch;
    r.message =
        gate.filter_text.empty()
            ? std::string(
                  "no benchmark of these files is compared, so "
                  "none can be gated")
            : absl::StrCat("its filter '", ShortForMessage(gate.filter_text),
                           "' matches no benchmark in either file",
                           gate.exact_name
                               ? ""
                               : " (a regular expression; =NAME is exact)");
  } else if (r.checked == 0 && !options.allow_unchecked &&
             !(options.fail_on_missing && !r.not_evaluated.empty())) {
    r.status = GateStatus::kUnchecked;
    const std::vector<std::string> measured = MeasuredMetrics(comparison);
    r.message = absl::StrCat(
        "checked nothing: no benchmark it applies to has ", gate.metric,
        gate.relative ? " counted on both sides" : " counted in the new file",
        r.not_evaluated.empty()
            ? std::string()
            : absl::StrCat(" (", r.not_evaluated[0].benchmark, ": ",
                           r.not_evaluated[0].reason, ")"),
        "; metrics with values on both sides: ",
        measured.empty() ? std::string("none") : absl::StrJoin(measured, ", "),
        "; --allow-unchecked-gates accepts this");
  } else if (!r.violations.empty()) {
    r.status = GateStatus::kFailed;
  } else if (options.fail_on_missing && !r.not_evaluated.empty()) {
    r.status = GateStatus::kMissing;
    r.message = absl::StrCat(
        "not evaluated on ", r.not_evaluated.size(), " benchmark(s) (",
        r.not_evaluated[0].benchmark, ": ", r.not_evaluated[0].reason,
        r.not_evaluated.size() > 1 ? ", ..." : "", "; --fail-on-missing)");
  } else {
    r.status = GateStatus::kPassed;
    if (r.checked == 0) {
      r.message = "checked nothing (allowed by --allow-unchecked-gates)";
    }
  }
}

}  // namespace

std::vector<GateResult> EvaluateGates(const Comparison& comparison,
                                      const std::vector<Gate>& gates,
                                      const GateOptions& options) {
  std::vector<GateResult> results;
  for (const Gate& gate : gates) {
    GateResult r;
    r.gate = gate.text;
    r.metric = gate.metric;
    r.relative = gate.relative;
    if (gate.geomean) {
      EvaluateGeomean(comparison, gate, r);
    } else {
      EvaluateOnBenchmarks(comparison, gate, options, r);
    }
    SetGateStatus(comparison, gate, options, r);
    results.push_back(std::move(r));
  }
  return results;
}

int ExitCode(const std::vector<GateResult>& results) {
  int code = 0;
  for (const GateResult& r : results) {
    switch (r.status) {
      case GateStatus::kPassed:
        break;
      case GateStatus::kFailed:
      case GateStatus::kMissing:
        code = std::max(code, 1);
        break;
      case GateStatus::kUnchecked:
      case GateStatus::kNoMatch:
      case GateStatus::kRefused:
        code = 2;
        break;
    }
  }
  return code;
}

const char* StatusName(GateStatus status) {
  switch (status) {
    case GateStatus::kPassed:
      return "passed";
    case GateStatus::kFailed:
      return "FAILED";
    case GateStatus::kMissing:
      return "FAILED (missing)";
    case GateStatus::kUnchecked:
      return "ERROR (checked nothing)";
    case GateStatus::kNoMatch:
      return "ERROR (matches no benchmark)";
    case GateStatus::kRefused:
      return "ERROR (environment differs)";
  }
  return "?";
}

}  // namespace perfcounters::tools
