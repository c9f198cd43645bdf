// compare_output_internal.h: what the outputs of compare share:
// compare_output.cc (shared cells and lines, RenderTo), compare_table.cc,
// compare_markdown.cc and compare_json.cc. Not part of the tools'
// interface.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_INTERNAL_H_
#define PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_INTERNAL_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "compare_rows.h"

namespace perfcounters::tools::compare_internal {

// The verdict sentence every format states ("FAILED (exit 1): ...").
std::string VerdictText(const std::vector<GateResult>& gates);

// How many compared metrics rest on one sample a side.
size_t OneSampleCount(const Comparison& c);

// Whether neither side of `m` has a value (not counted, or absent): no
// row of the table or markdown, but a line of Uncounted().
bool NoValue(const MetricComparison& m);

// The metrics with no value on either side, once each (not once per
// benchmark): (metric, "not counted in either file (13 benchmarks):
// why"), in order of first appearance.
std::vector<std::pair<std::string, std::string>> Uncounted(const Comparison& c);

// What is said of the complexity rows (Comparison::complexity); empty when
// there are none.
std::string ComplexityNote(const Comparison& c);

// `metric` as a table shows it: with its kind's tag when its values are
// not measured ("est_cycles [estimate]", "instructions [simulated]";
// counting_source.h).
std::string LabelledMetric(const Comparison& c, const std::string& metric);

// For a simulated comparison, the sentence saying so and what the tags
// mean; else empty.
std::string SimulatedNote(const Comparison& c);

// "only in base; new error: ...", or "" when both sides have data.
std::string PairingNote(const BenchmarkComparison& bc);

// "gate G: failed (N checked, M violated, ...)".
std::string GateSummaryLine(const GateResult& g);

// What OneSampleCount() means, or "" when it is 0.
std::string OneSampleNote(const Comparison& c);

// What a change paired by round (`perfcounters ab`'s files) is, or ""
// when no comparison is paired.
std::string PairedNote(const Comparison& c);

// The table output, in pieces of whole rows (RenderTo()).
void RenderTable(const Comparison& c, const std::vector<GateResult>& gates,
                 const RenderOptions& options, const TextWriter& write);

// The Markdown output (RenderTo()).
std::string RenderMarkdown(const Comparison& c,
                           const std::vector<GateResult>& gates,
                           const RenderOptions& options);

// The JSON output, in pieces (RenderTo()).
void RenderJson(const Comparison& c, const std::vector<GateResult>& gates,
                const RenderOptions& options, const TextWriter& write);

}  // namespace perfcounters::tools::compare_internal

namespace perfcounters::tools {

// The table and markdown writers (compare_table.cc, compare_markdown.cc)
// name these by their short names.
using compare_internal::ComplexityNote;
using compare_internal::GateSummaryLine;
using compare_internal::LabelledMetric;
using compare_internal::NoValue;
using compare_internal::OneSampleNote;
using compare_internal::PairedNote;
using compare_internal::PairingNote;
using compare_internal::SimulatedNote;
using compare_internal::Uncounted;
using compare_internal::VerdictText;

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_INTERNAL_H_
