// profile_format.cc: the hot: line, the JSON member, folded-file names and
// ProfileReporter (profile_format.h).
#include "profile_format.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "simulate_profile.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += "\"";
  return out;
}

double Share(uint64_t n, uint64_t total) {
  return total == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(total);
}

}  // namespace

std::string ShortName(const std::string& name) {
  // Cut the parameter list: the first '(' outside <> (operator() aside).
  int depth = 0;
  size_t end = name.size();
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (c == '(' && depth == 0 && i > 0) {
      end = i;
      break;
    }
  }
  std::string base = name.substr(0, end);
  // Keep the last component outside <>.
  depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < base.size(); ++i) {
    const char c = base[i];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (c == ':' && base[i + 1] == ':' && depth == 0) start = i + 2;
  }
  base = base.substr(start);
  return base.empty() ? name : base;
}

std::string ConsoleFunctionName(const std::string& name) {
  constexpr size_t kLongArguments = 20;
  std::string out;
  int depth = 0;
  size_t open = 0;  // where the outermost '<' is in `out`
  for (const char c : ShortName(name)) {
    if (c == '<' && depth++ == 0) open = out.size();
    out += c;
    if (c == '>' && depth > 0 && --depth == 0 &&
        out.size() - open - 2 > kLongArguments) {
      out.resize(open);
      out += "<\xE2\x80\xA6>";
    }
  }
  if (depth != 0) out = ShortName(name);  // an operator<, not a template
  if (out.size() > kConsoleNameMax) {
    size_t cut = kConsoleNameMax - 3;  // and the 3 bytes of "…"
    // Not inside a UTF-8 sequence (the "…" of a shortened list).
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) {
      --cut;
    }
    out.resize(cut);
    out += "\xE2\x80\xA6";
  }
  return out;
}

namespace {

// The console's name; code no symbol covers as "[unknown] module+0xOFFSET"
// (the module's file name), so that two such entries can be told apart.
std::string ConsoleName(const FunctionShare& f) {
  if (f.name != kUnknownFunction || f.module.empty()) {
    return ConsoleFunctionName(f.name);
  }
  const std::string file = f.module.substr(f.module.rfind('/') + 1);
  if (!f.offset.has_value()) return absl::StrCat(f.name, " ", file);
  return absl::StrCat(f.name, " ", file, "+0x", absl::Hex(*f.offset));
}

}  // namespace

std::string HotLine(const ProfileSummary& s, int top) {
  std::string out = "hot:";
  if (s.samples == 0) return absl::StrCat(out, " no samples");
  int n = 0;
  for (const FunctionShare& f : s.functions) {
    // Shares that would read 0% are left out.
    if (n == top || Share(f.self, s.samples) < 0.005) break;
    absl::StrAppend(
        &out, n == 0 ? " " : " \xC2\xB7 ", ConsoleName(f), " ",
        absl::StrFormat("%.0f%%", 100.0 * Share(f.self, s.samples)));
    ++n;
  }
  if (s.lost > 0) absl::StrAppend(&out, " (", s.lost, " samples lost)");
  return out;
}

std::string ProfileJson(const ProfileSummary& s) {
  std::string out = absl::StrCat("{\"event\": ", JsonString(s.event));
  if (s.period) absl::StrAppend(&out, ", \"period\": ", *s.period);
  if (s.frequency) absl::StrAppend(&out, ", \"frequency\": ", *s.frequency);
  absl::StrAppend(&out, ", \"samples\": ", s.samples, ", \"lost\": ", s.lost,
                  ", \"callchains\": ", s.callchains ? "true" : "false");
  if (!s.callchains && s.callchains_broken > 0) {
    absl::StrAppend(
        &out, ", \"callchains_broken\": ",
        absl::StrFormat("%.6g", Share(s.callchains_broken, s.samples)));
  }
  absl::StrAppend(&out, ", \"functions\": [");
  for (size_t i = 0; i < s.functions.size() && i < kJsonFunctions; ++i) {
    const FunctionShare& f = s.functions[i];
    absl::StrAppend(&out, i == 0 ? "" : ", ",
                    "{\"name\": ", JsonString(f.name));
    // No module for an address in no mapping.
    if (!f.module.empty()) {
      absl::StrAppend(&out, ", \"module\": ", JsonString(f.module));
    }
    if (!f.file.empty()) {
      absl::StrAppend(&out, ", \"file\": ", JsonString(f.file));
      if (f.line > 0) absl::StrAppend(&out, ", \"line\": ", f.line);
    }
    if (f.offset) absl::StrAppend(&out, ", \"offset\": ", *f.offset);
    absl::StrAppend(&out, ", \"samples\": ", f.self, ", \"self\": ",
                    absl::StrFormat("%.6g", Share(f.self, s.samples)));
    if (s.callchains) {
      absl::StrAppend(&out, ", \"inclusive\": ",
                      absl::StrFormat("%.6g", Share(f.inclusive, s.samples)));
    }
    absl::StrAppend(&out, ", \"inlined\": ", f.inlined ? "true" : "false", "}");
  }
  absl::StrAppend(&out, "], \"functions_truncated\": ",
                  s.functions.size() > kJsonFunctions
                      ? s.functions.size() - kJsonFunctions
                      : 0,
                  ", \"stacks\": [");
  for (size_t i = 0; i < s.stacks.size() && i < kJsonStacks; ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ",
                    "{\"stack\": ", JsonString(s.stacks[i].stack),
                    ", \"samples\": ", s.stacks[i].samples, "}");
  }
  absl::StrAppend(
      &out, "], \"stacks_truncated\": ",
      s.stacks.size() > kJsonStacks ? s.stacks.size() - kJsonStacks : 0, "}");
  return out;
}

namespace {

// ", \"threads\": 2, \"threads_sampled\": 1" where fewer threads were
// sampled than the benchmark runs, else empty.
std::string SampledThreadsJson(const ShownProfile& p) {
  if (p.threads_sampled == 0) return "";
  return absl::StrCat(", \"threads\": ", p.threads,
                      ", \"threads_sampled\": ", p.threads_sampled);
}

}  // namespace

std::string HotLine(const ShownProfile& p, int top) {
  if (p.threads_sampled > 0 && !p.simulated) {
    return absl::StrCat(HotLine(p.summary, top), " (", p.threads_sampled,
                        " of ", p.threads, " threads sampled)");
  }
  if (!p.simulated) return HotLine(p.summary, top);
  // The event and the source, as compare and report tag simulated values;
  // and, as above, the threads a plain loop was counted on.
  std::string tag = absl::StrCat("(", p.summary.event, " [simulated])");
  if (p.threads_sampled > 0) {
    absl::StrAppend(&tag, " (", p.threads_sampled, " of ", p.threads,
                    " threads counted)");
  }
  if (p.summary.samples == 0) {
    return absl::StrCat("hot: none counted ", tag);
  }
  return absl::StrCat(HotLine(p.summary, top), " ", tag);
}

std::string ProfileJson(const ShownProfile& p) {
  std::string out = ProfileJson(p.summary);
  // {"event": ..., then the threads sampled and the source (the counts are
  // callgrind's, not samples).
  const size_t after_event = out.find(", \"samples\"");
  if (!p.simulated) {
    out.insert(after_event, SampledThreadsJson(p));
    return out;
  }
  out.insert(
      after_event,
      absl::StrCat(SampledThreadsJson(p),
                   ", \"source\": \"simulated\", \"sampled\": false, "
                   "\"excluded\": ",
                   p.excluded, ", \"stack_depth\": ", kSimProfileCallers + 1));
  return out;
}

std::string FoldedFileName(const std::string& benchmark) {
  std::string out;
  uint32_t hash = 2166136261u;  // FNV-1a
  for (unsigned char c : benchmark) {
    hash = (hash ^ c) * 16777619u;
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                      c == '_';
    if (out.size() < 120) out += keep ? static_cast<char>(c) : '_';
  }
  if (!out.empty() && out.front() == '.') out.front() = '_';
  return absl::StrCat(out, ".", absl::Hex(hash, absl::kZeroPad8), ".folded");
}

namespace {

// The JSON string token at text[begin] ('"'), unescaped as gbench escapes
// (\" \\ \b \f \n \r \t); nullopt when it is not a whole token.
std::optional<std::string> ReadJsonString(const std::string& text,
                                          size_t begin) {
  if (begin >= text.size() || text[begin] != '"') return std::nullopt;
  std::string out;
  for (size_t i = begin + 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == text.size()) break;
    switch (text[i]) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      default:
        out += text[i];
    }
  }
  return std::nullopt;
}

// The row object text[begin..close] with `members`' member for its name
// inserted when it is an iteration row.
std::string WithMember(const std::string& text, size_t begin, size_t close,
                       const std::map<std::string, std::string>& members) {
  std::string row = text.substr(begin, close + 1 - begin);
  static constexpr char kName[] = "\"name\": ";
  const size_t key = row.find(kName);
  if (key == std::string::npos ||
      row.find("\"run_type\": \"iteration\"") == std::string::npos) {
    return row;
  }
  const std::optional<std::string> name =
      ReadJsonString(row, key + sizeof(kName) - 1);
  if (!name.has_value()) return row;
  auto it = members.find(*name);
  if (it == members.end() || row.size() < 2) return row;
  // After the last member's value, before the line break and indent that
  // precede the closing brace.
  const size_t at = row.find_last_not_of(" \n", row.size() - 2) + 1;
  row.insert(at,
             absl::StrCat(",\n      \"perfcounters_profile\": ", it->second));
  return row;
}

}  // namespace

std::string InsertProfileMembers(
    const std::string& text,
    const std::map<std::string, std::string>& members) {
  if (members.empty()) return text;
  std::string out;
  int depth = 0;
  bool in_string = false;
  size_t copied = 0;  // text[0..copied) is in out
  size_t begin = 0;   // the '{' of the row at depth 1
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' && depth++ == 0) {
      begin = i;
    } else if (c == '}' && depth > 0 && --depth == 0) {
      out.append(text, copied, begin - copied);
      out += WithMember(text, begin, i, members);
      copied = i + 1;
    }
  }
  out.append(text, copied, std::string::npos);
  return out;
}

ProfileReporter::ProfileReporter(benchmark::BenchmarkReporter* inner,
                                 const Summaries* s, bool console, bool json,
                                 int top)
    : inner_(inner), summaries_(s), console_(console), json_(json), top_(top) {}

bool ProfileReporter::ReportContext(const Context& context) {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  return inner_->ReportContext(context);
}

void ProfileReporter::ReportRuns(const std::vector<Run>& runs) {
  if (!json_) {
    inner_->ReportRuns(runs);
    if (!console_) return;
    std::string done;
    for (const Run& run : runs) {
      const std::string name = run.benchmark_name();
      auto it = summaries_->find(name);
      if (run.run_type != Run::RT_Iteration || it == summaries_->end() ||
          name == done) {
        continue;
      }
      GetOutputStream() << "  " << HotLine(it->second, top_) << "\n";
      done = name;
    }
    GetOutputStream().flush();
    return;
  }
  // The benchmark's rows at once (the inner reporter, perfcounters'
  // DisplayReporter, fills and warns per benchmark) into a buffer, then the
  // member into each iteration row that has a profile.
  std::map<std::string, std::string> members;
  for (const Run& run : runs) {
    auto it = summaries_->find(run.benchmark_name());
    if (run.run_type == Run::RT_Iteration && it != summaries_->end()) {
      members.try_emplace(run.benchmark_name(), ProfileJson(it->second));
    }
  }
  std::ostringstream buffer;
  inner_->SetOutputStream(&buffer);
  inner_->ReportRuns(runs);
  inner_->SetOutputStream(&GetOutputStream());
  GetOutputStream() << InsertProfileMembers(buffer.str(), members);
}

void ProfileReporter::Finalize() {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->Finalize();
}

}  // namespace perfcounters::benchmark_ext_internal
