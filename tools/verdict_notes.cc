// verdict_notes.cc: the environment diff above compare's and report's
// verdicts, and the gates it refuses.
#include "verdict_notes.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "report_html.h"

namespace perfcounters::tools {
namespace {

// `j` dumped with 2-space indentation, its lines after the first indented
// by 2 more (a member of the top-level object).
std::string Indented(const nlohmann::ordered_json& j) {
  const std::string text =
      j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

}  // namespace

VerdictNotes CheckVerdict(const BenchmarkFile& base, const BenchmarkFile& next,
                          Comparison* comparison, double alpha) {
  VerdictNotes notes;
  if (comparison != nullptr) {
    notes.drift = DetectDrift(*comparison, alpha, SameBinaryOf(base, next));
    MarkCommonMode(notes.drift, comparison);
  }
  notes.env = DiffEnvironments(base, next);
  notes.events = EventsOf(next);
  notes.base_source = base.source;
  notes.next_source = next.source;
  return notes;
}

void ApplyToGates(const char* command, const VerdictNotes& notes,
                  const std::vector<std::string>& allowed,
                  std::vector<GateResult>* results) {
  RefuseGates(notes.env, notes.events, allowed, results);
  for (const std::string& note : NoteDriftOnGates(notes.drift, results)) {
    std::fprintf(stderr, "perfcounters %s: note: %s\n", command, note.c_str());
  }
}

void PrintNoFingerprint(const char* command, const VerdictNotes& notes) {
  std::vector<std::string> without;
  if (!notes.env.base_has) without.push_back(notes.base_source);
  if (!notes.env.next_has && notes.next_source != notes.base_source) {
    without.push_back(notes.next_source);
  }
  if (without.empty()) return;
  std::fprintf(stderr,
               "perfcounters %s: note: no environment fingerprint in %s (a "
               "run from before perfcounters recorded one): what differs "
               "between the runs' machines cannot be told; gates apply as "
               "usual\n",
               command,
               ShortForMessage(absl::StrJoin(without, " and "), 300).c_str());
}

std::string NotesText(const VerdictNotes& notes, bool markdown) {
  return absl::StrCat(DriftText(notes.drift, markdown),
                      EnvDiffText(notes.env, markdown));
}

std::string NotesHtml(const VerdictNotes& notes) {
  const std::string text = NotesText(notes, false);
  if (text.empty()) return "";
  // Line by line: Esc() would write the newlines as "\n".
  const std::string escaped =
      absl::StrJoin(absl::StrSplit(text, '\n'), "\n",
                    [](std::string* out, absl::string_view line) {
                      out->append(report_internal::Esc(line));
                    });
  return absl::StrCat("<section class=\"notes\" id=\"verdict-notes\"><pre>",
                      escaped, "</pre></section>\n");
}

std::string WithNotes(const std::string& rendered, Format format,
                      const VerdictNotes& notes) {
  if (format != Format::kJson) {
    const std::string text = NotesText(notes, format == Format::kMarkdown);
    if (text.empty()) return rendered;
    if (format == Format::kMarkdown) {
      // After the heading line ("## perfcounters compare\n\n").
      const size_t at = rendered.find("\n\n");
      if (at != std::string::npos) {
        return absl::StrCat(rendered.substr(0, at + 2), text,
                            rendered.substr(at + 2));
      }
    }
    return absl::StrCat(text, rendered);
  }
  // The member goes first, as text: the output may be large.
  if (rendered.rfind("{\n", 0) != 0) return rendered;
  std::string members;
  if (!notes.drift.empty()) {
    members =
        absl::StrCat("  \"drift\": ", Indented(DriftJson(notes.drift)), ",\n");
  }
  if (notes.env.base_has || notes.env.next_has) {
    absl::StrAppend(&members,
                    "  \"environment\": ", Indented(EnvDiffJson(notes.env)),
                    ",\n");
  }
  return absl::StrCat("{\n", members, rendered.substr(2));
}

void WithNotesWriter::operator()(absl::string_view piece) {
  if (passed_) {
    write_(piece);
    return;
  }
  held_.append(piece.data(), piece.size());
  // Whether the held text decides where the notes go: on top (table),
  // after "{\n" (JSON), after the first blank line (markdown).
  const bool decided =
      format_ == Format::kTable ||
      (format_ == Format::kJson && held_.size() >= 2) ||
      (format_ == Format::kMarkdown && held_.find("\n\n") != std::string::npos);
  if (decided) Finish();
}

void WithNotesWriter::Finish() {
  if (passed_) return;
  passed_ = true;
  write_(WithNotes(held_, format_, notes_));
  held_ = std::string();
}

}  // namespace perfcounters::tools
