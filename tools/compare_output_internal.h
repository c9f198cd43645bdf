// compare_output_internal.h: what compare_output.cc (table, markdown) and
// compare_json.cc (JSON) share. Not part of the tools' interface.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_INTERNAL_H_
#define PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_INTERNAL_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"

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

// The JSON output, in pieces (RenderTo()).
void RenderJson(const Comparison& c, const std::vector<GateResult>& gates,
                const RenderOptions& options, const TextWriter& write);

}  // namespace perfcounters::tools::compare_internal

#endif  // PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_INTERNAL_H_
