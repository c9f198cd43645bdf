// compare_output.h: `compare`'s output (table, markdown, JSON) of a
// comparison and its gate results, and the formatting of changes, p-values
// and values that report shares.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_H_
#define PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "compare.h"
#include "compare_gates.h"

namespace perfcounters::tools {

// Output formats of `perfcounters compare`.
enum class Format { kTable, kMarkdown, kJson };

// GitHub's limit on a comment's length.
inline constexpr size_t kMarkdownLimit = 65536;

// How Render() writes.
struct RenderOptions {
  Format format = Format::kTable;
  // ANSI colours (kTable only).
  bool color = false;
  // Table and markdown: only rows whose change is Significant() and at
  // least 1 % (or violates a gate).
  bool only_changed = false;
  // Table and markdown: at most this many benchmark rows (0: no limit);
  // what is left out is counted.
  size_t max_rows = 0;
  // Markdown: at most this many characters (rows that do not fit are left
  // out and counted).
  size_t max_chars = kMarkdownLimit - 1536;
  // Significance level (what "changed" means, shown in notes).
  double alpha = 0.05;
  // Input warnings (shown in the JSON and markdown).
  std::vector<std::string> warnings;
};

// Renders the comparison and the gate results; the verdict it states is
// ExitCode(gates).
std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates,
                   const RenderOptions& options);
// A piece of rendered text; the pieces in order make the whole.
using TextWriter = std::function<void(absl::string_view piece)>;

// Render()'s text handed to `write` in pieces: JSON a benchmark at a time,
// so that the whole text (several times the inputs' size for many small
// benchmarks) is never in memory.
void RenderTo(const Comparison& comparison,
              const std::vector<GateResult>& gates,
              const RenderOptions& options, const TextWriter& write);
// The same with default options.
std::string Render(const Comparison& comparison,
                   const std::vector<GateResult>& gates, Format format,
                   bool color);

// ---- Formatting, shared by the outputs of compare and report.

// "+1.23%", "+inf%", or "n/a" without a change.
std::string FormatChange(const std::optional<double>& change);

// The p column: the U test's p ("0.008", "<0.001"), "exact" for exact
// counters, "n=1" where a side has one sample, "" without a change.
std::string FormatP(const MetricComparison& m);

// A change that matters: Significant() and at least 1 % (0.1 % for exact
// counters).
bool Changed(const MetricComparison& m, double alpha);

// +1 when the change is a regression, -1 an improvement, 0 when the
// metric's better direction is unknown, there is no change or it is
// common-mode drift (MetricComparison::common_mode).
int ChangeDirection(const MetricComparison& m);

// Formats a value of `metric` for people: times with a unit (1.23 us),
// counts with 4 significant digits and SI suffix (12.35M), IPC and ratios
// with 3 decimals.
std::string FormatValue(absl::string_view metric, double value);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_OUTPUT_H_
