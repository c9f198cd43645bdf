// compare_output.cc: what the outputs of `perfcounters compare` share
// (compare_output_internal.h: cells, gate marks and lines, the verdict) and
// RenderTo(), which writes the table (compare_table.cc), Markdown
// (compare_markdown.cc) or JSON (compare_json.cc). Every output states the
// verdict ExitCode() gives, and benchmark names are printed with control
// bytes escaped.
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
#include "compare_rows.h"
#include "oom_safe_map.h"

namespace perfcounters::tools {
namespace {

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

}  // namespace

namespace compare_internal {

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

size_t OneSampleCount(const Comparison& c) {
  size_t n = 0;
  for (const BenchmarkComparison& bc : c.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      n += m.evidence == Evidence::kOneSample;
    }
  }
  return n;
}

std::string OneSampleNote(const Comparison& c) {
  const size_t n = OneSampleCount(c);
  if (n == 0) return "";
  return absl::StrCat(
      n,
      " comparison(s) have one sample on a side: their changes rest on "
      "one sample each (no significance test; run the benchmarks with "
      "--benchmark_repetitions=5)");
}

std::string PairedNote(const Comparison& c) {
  size_t n = 0;
  for (const BenchmarkComparison& bc : c.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      n += m.evidence == Evidence::kPaired;
    }
  }
  if (n == 0) return "";
  return absl::StrCat(
      n,
      " comparison(s) are paired by round (perfcounters ab): their change "
      "is the median of the rounds' new/base ratios and p the sign test's "
      "on them, and the geometric mean uses these changes; --format json "
      "has each 95 % interval");
}

}  // namespace compare_internal

void RenderTo(const Comparison& comparison,
              const std::vector<GateResult>& gates,
              const RenderOptions& options, const TextWriter& write) {
  switch (options.format) {
    case Format::kTable:
      compare_internal::RenderTable(comparison, gates, options, write);
      return;
    case Format::kMarkdown:
      write(compare_internal::RenderMarkdown(comparison, gates, options));
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
