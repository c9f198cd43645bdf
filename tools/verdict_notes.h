// verdict_notes.h: what `compare` and `report` state above a verdict and
// how it changes the gates: common-mode drift of the times (drift.h) —
// not headlined as improvements or regressions, a gate on such a time is
// unreliable — and the environment diff of the two runs (env_diff.h) —
// gates on metrics it can move are refused.
#ifndef PERFCOUNTERS_TOOLS_VERDICT_NOTES_H_
#define PERFCOUNTERS_TOOLS_VERDICT_NOTES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "drift.h"
#include "env_diff.h"
#include "gbench_json.h"

namespace perfcounters::tools {

// The notes on one comparison of `base` and `next`.
struct VerdictNotes {
  EnvDiff env;
  std::vector<DriftMetric> drift;
  // The new file's requested events (for the decision table).
  std::string events;
  std::string base_source;
  std::string next_source;
};

// The notes on the comparison of `base` and `next`. `comparison`, when
// given, is that comparison: its drift (at level `alpha`) is detected and
// marked (MarkCommonMode).
VerdictNotes CheckVerdict(const BenchmarkFile& base, const BenchmarkFile& next,
                          Comparison* comparison, double alpha);

// Refuses the gates the environment difference can move (less the fields
// in `allowed`, --allow-env-diff) and calls those on a drifting time metric
// unreliable, saying so on stderr ("perfcounters COMMAND: note: ...").
void ApplyToGates(const char* command, const VerdictNotes& notes,
                  const std::vector<std::string>& allowed,
                  std::vector<GateResult>* results);

// Prints once to stderr, as "perfcounters COMMAND: note: ...", which files
// have no fingerprint (runs from before fingerprints: their gates are
// applied as without one); nothing when both have.
void PrintNoFingerprint(const char* command, const VerdictNotes& notes);

// The notes' block for people (table: plain text; markdown), "" when there
// is nothing to say.
std::string NotesText(const VerdictNotes& notes, bool markdown);

// NotesText(notes, false) as an HTML section for `report` ("" when
// empty).
std::string NotesHtml(const VerdictNotes& notes);

// `rendered` (compare's output in `format`) with the notes: the block on
// top for table and markdown; for JSON a "drift" member (where a metric
// drifted) and an "environment" member (where a file has a fingerprint).
std::string WithNotes(const std::string& rendered, Format format,
                      const VerdictNotes& notes);

// WithNotes() of text that comes in pieces (RenderTo()): passes the pieces
// on to `write`, with the notes where WithNotes() puts them (the pieces
// before that point are held back until it comes); Finish() after the last.
class WithNotesWriter {
 public:
  WithNotesWriter(Format format, const VerdictNotes& notes, TextWriter write)
      : format_(format), notes_(notes), write_(std::move(write)) {}
  void operator()(absl::string_view piece);
  void Finish();

 private:
  Format format_;
  const VerdictNotes& notes_;
  TextWriter write_;
  std::string held_;
  bool passed_ = false;
};

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_VERDICT_NOTES_H_
