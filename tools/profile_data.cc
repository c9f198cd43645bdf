// profile_data.cc: reading "perfcounters_profile" members (see
// profile_data.h).
#include "profile_data.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "oom_safe_map.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

using json = nlohmann::json;

const char* KindName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "a number";
  }
}

// Checks the members of one object, each by its expected kind.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string where,
               std::vector<std::string>* warnings)
      : object_(object), where_(std::move(where)), warnings_(warnings) {}

  absl::Status status() const { return status_; }
  const std::string& where() const { return where_; }

  // Each returns false (and sets status()) on a value of the wrong kind;
  // an absent or null member leaves `out` alone.
  bool String(const char* key, std::string& out, bool required = false) {
    const json* v = Find(key, required);
    if (v == nullptr) return status_.ok();
    if (!v->is_string()) return Wrong(key, *v, "a string");
    out = v->get<std::string>();
    return true;
  }
  bool Bool(const char* key, bool& out) {
    const json* v = Find(key, false);
    if (v == nullptr) return status_.ok();
    if (!v->is_boolean()) return Wrong(key, *v, "true or false");
    out = v->get<bool>();
    return true;
  }
  // A finite number; `whole`: a whole number >= 0 (sample counts, lines);
  // `share`: in 0..1; `positive`: > 0.
  enum class Range { kAny, kWhole, kShare, kPositive };
  bool Number(const char* key, std::optional<double>& out, Range range,
              bool required = false) {
    const json* v = Find(key, required);
    if (v == nullptr) return status_.ok();
    if (!v->is_number()) return Wrong(key, *v, "a number");
    const double d = v->get<double>();
    std::string problem;
    if (!std::isfinite(d)) {
      problem = std::isnan(d) ? "NaN" : "infinite";
    } else if ((range == Range::kWhole && (d < 0 || d != std::floor(d))) ||
               (range == Range::kShare && (d < 0 || d > 1 + 1e-9)) ||
               (range == Range::kPositive && !(d > 0))) {
      problem = absl::StrCat(d);
    }
    if (!problem.empty()) {
      return Fail(absl::StrCat(where_, ".", key, " is ", problem, "; expected ",
                               range == Range::kWhole   ? "a whole number >= 0"
                               : range == Range::kShare ? "a share in 0..1"
                               : range == Range::kPositive
                                   ? "a number above 0"
                                   : "a finite number"));
    }
    out = d;
    return true;
  }
  // An array member (absent: nullptr, no error).
  const json* Array(const char* key) {
    const json* v = Find(key, false);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      Wrong(key, *v, "an array");
      return nullptr;
    }
    return v;
  }
  // Warns about members not in `known`.
  void Unknown(std::initializer_list<const char*> known) {
    for (const auto& item : object_.items()) {
      const std::string& key = item.key();
      if (std::find_if(known.begin(), known.end(), [&](const char* k) {
            return key == k;
          }) == known.end()) {
        warnings_->push_back(absl::StrCat(where_, ".", key,
                                          " is not a member this version "
                                          "knows: not used"));
      }
    }
  }

 private:
  const json* Find(const char* key, bool required) {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) {
      if (required) {
        Fail(absl::StrCat(where_, " has no \"", key, "\""));
      }
      return nullptr;
    }
    return &*it;
  }
  bool Wrong(const char* key, const json& v, const char* expected) {
    return Fail(absl::StrCat(where_, ".", key, " is ", KindName(v),
                             "; expected ", expected));
  }
  bool Fail(const std::string& message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(message);
    return false;
  }

  const json& object_;
  std::string where_;
  std::vector<std::string>* warnings_;
  absl::Status status_;
};

absl::Status ReadFunction(const json& v, const std::string& where,
                          std::vector<std::string>* warnings,
                          ProfileFunction& f) {
  if (!v.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is ", KindName(v), "; expected an object"));
  }
  ObjectReader r(v, where, warnings);
  std::optional<double> samples, line, offset;
  r.String("name", f.name, /*required=*/true) && r.String("module", f.module) &&
      r.String("file", f.file) &&
      r.Number("line", line, ObjectReader::Range::kWhole) &&
      r.Number("samples", samples, ObjectReader::Range::kWhole,
               /*required=*/true) &&
      r.Number("self", f.self, ObjectReader::Range::kShare) &&
      r.Number("inclusive", f.inclusive, ObjectReader::Range::kShare) &&
      r.Bool("inlined", f.inlined);
  RETURN_IF_ERROR(r.status());
  // An offset is a number or a "0x..." string.
  if (auto it = v.find("offset"); it != v.end() && !it->is_null()) {
    if (it->is_string()) {
      f.offset = it->get<std::string>();
    } else if (!r.Number("offset", offset, ObjectReader::Range::kWhole)) {
      return r.status();
    } else {
      f.offset = absl::StrCat("0x", absl::Hex(static_cast<uint64_t>(*offset)));
    }
  }
  if (line) f.line = static_cast<int64_t>(*line);
  f.samples = *samples;
  r.Unknown({"name", "module", "file", "line", "samples", "self", "inclusive",
             "inlined", "offset"});
  return absl::OkStatus();
}

absl::Status ReadStack(const json& v, const std::string& where,
                       std::vector<std::string>* warnings, ProfileStack& s) {
  if (!v.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is ", KindName(v), "; expected an object"));
  }
  ObjectReader r(v, where, warnings);
  std::optional<double> samples;
  r.String("stack", s.stack, /*required=*/true) &&
      r.Number("samples", samples, ObjectReader::Range::kWhole,
               /*required=*/true);
  RETURN_IF_ERROR(r.status());
  if (s.stack.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".stack is empty; expected frames joined by ';'"));
  }
  s.samples = *samples;
  r.Unknown({"stack", "samples"});
  return absl::OkStatus();
}

}  // namespace

std::optional<double> BenchmarkProfile::Share(const ProfileFunction& f) const {
  if (f.self) return *f.self;
  if (samples > 0) return f.samples / samples;
  return std::nullopt;
}

absl::StatusOr<BenchmarkProfile> ReadProfile(
    const json& value, const std::string& where,
    std::vector<std::string>* warnings) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is ", KindName(value),
                     "; expected an object (docs/profiles.md)"));
  }
  BenchmarkProfile p;
  ObjectReader r(value, where, warnings);
  std::optional<double> samples, truncated, functions_truncated, depth;
  std::string source;
  bool sampled = true;
  r.String("event", p.event) && r.String("source", source) &&
      r.Bool("sampled", sampled) &&
      r.Number("excluded", p.excluded, ObjectReader::Range::kWhole) &&
      r.Number("stack_depth", depth, ObjectReader::Range::kPositive) &&
      r.Number("period", p.period, ObjectReader::Range::kPositive) &&
      r.Number("frequency", p.frequency, ObjectReader::Range::kPositive) &&
      r.Number("samples", samples, ObjectReader::Range::kWhole) &&
      r.Number("lost", p.lost, ObjectReader::Range::kWhole) &&
      r.Bool("callchains", p.callchains) &&
      r.Number("callchains_broken", p.callchains_broken,
               ObjectReader::Range::kShare) &&
      r.Number("threads", p.threads, ObjectReader::Range::kWhole) &&
      r.Number("threads_sampled", p.threads_sampled,
               ObjectReader::Range::kWhole) &&
      r.Number("stacks_truncated", truncated, ObjectReader::Range::kWhole) &&
      r.Number("functions_truncated", functions_truncated,
               ObjectReader::Range::kWhole);
  const json* functions = r.Array("functions");
  const json* stacks = r.Array("stacks");
  RETURN_IF_ERROR(r.status());
  r.Unknown({"event", "period", "frequency", "samples", "lost", "callchains",
             "callchains_broken", "functions", "functions_truncated", "stacks",
             "stacks_truncated", "source", "sampled", "excluded", "stack_depth",
             "threads", "threads_sampled"});
  p.simulated = source == "simulated" || !sampled;
  double function_sum = 0, stack_sum = 0;
  if (functions != nullptr) {
    p.functions.resize(functions->size());
    for (size_t j = 0; j < functions->size(); ++j) {
      RETURN_IF_ERROR(ReadFunction((*functions)[j],
                                   absl::StrCat(where, ".functions[", j, "]"),
                                   warnings, p.functions[j]));
      function_sum += p.functions[j].samples;
    }
  }
  if (stacks != nullptr) {
    p.stacks.resize(stacks->size());
    for (size_t j = 0; j < stacks->size(); ++j) {
      RETURN_IF_ERROR(ReadStack((*stacks)[j],
                                absl::StrCat(where, ".stacks[", j, "]"),
                                warnings, p.stacks[j]));
      stack_sum += p.stacks[j].samples;
    }
  }
  p.stacks_truncated = truncated.value_or(0);
  p.samples = samples.value_or(function_sum);
  // Sums above the total would make shares above 100 %: said, and the
  // total taken as the larger sum so that no share exceeds 100 %.
  for (const auto& [sum, what] :
       {std::pair<double, const char*>{function_sum, "functions"},
        {stack_sum, "stacks"}}) {
    if (sum > p.samples) {
      warnings->push_back(absl::StrCat(
          where, ": the ", what, "' samples add up to ", sum,
          ", more than \"samples\" (", p.samples, "); shares are of ", sum));
      p.samples = sum;
    }
  }
  // The listed self samples add up to all samples: every function left
  // out (functions_truncated counts them) had none, so it is 0 %.
  p.complete = function_sum >= p.samples;
  return p;
}

void MergeProfile(BenchmarkProfile& into, const BenchmarkProfile& from) {
  const double total = into.samples + from.samples;
  auto key = [](const ProfileFunction& f) {
    return absl::StrCat(f.name, "\n", f.module, "\n", f.file, "\n",
                        f.line.value_or(-1), "\n", f.offset);
  };
  OomSafeMap<std::string, size_t> index;
  for (size_t i = 0; i < into.functions.size(); ++i) {
    ProfileFunction& f = into.functions[i];
    index[key(f)] = i;
    if (f.inclusive) f.inclusive = *f.inclusive * into.samples;
  }
  for (const ProfileFunction& g : from.functions) {
    auto [it, inserted] = index.try_emplace(key(g), into.functions.size());
    if (inserted) {
      into.functions.push_back(g);
      ProfileFunction& f = into.functions.back();
      f.samples = 0;
      f.inclusive = g.inclusive ? std::optional<double>(0) : std::nullopt;
    }
    ProfileFunction& f = into.functions[it->second];
    f.samples += g.samples;
    if (f.inclusive && g.inclusive) *f.inclusive += *g.inclusive * from.samples;
  }
  for (ProfileFunction& f : into.functions) {
    f.self =
        total > 0 ? std::optional<double>(f.samples / total) : std::nullopt;
    if (f.inclusive && total > 0) *f.inclusive /= total;
  }
  std::stable_sort(into.functions.begin(), into.functions.end(),
                   [](const ProfileFunction& a, const ProfileFunction& b) {
                     return a.samples > b.samples;
                   });
  OomSafeMap<std::string, size_t> stacks;
  for (size_t i = 0; i < into.stacks.size(); ++i) {
    stacks[into.stacks[i].stack] = i;
  }
  for (const ProfileStack& s : from.stacks) {
    auto [it, inserted] = stacks.try_emplace(s.stack, into.stacks.size());
    if (inserted) {
      into.stacks.push_back(s);
    } else {
      into.stacks[it->second].samples += s.samples;
    }
  }
  into.samples = total;
  if (into.lost || from.lost) {
    into.lost = into.lost.value_or(0) + from.lost.value_or(0);
  }
  into.stacks_truncated += from.stacks_truncated;
  into.callchains = into.callchains && from.callchains;
  into.complete = into.complete && from.complete;
}

std::vector<NameShare> SharesByName(const BenchmarkProfile& profile) {
  std::vector<NameShare> out;
  if (!(profile.samples > 0)) return out;
  OomSafeMap<std::string, size_t> index;
  for (const ProfileFunction& f : profile.functions) {
    auto [it, inserted] = index.try_emplace(f.name, out.size());
    if (inserted) out.push_back({f.name, &f, 0, 0, std::nullopt});
    NameShare& s = out[it->second];
    s.samples += f.samples;
    s.share += profile.Share(f).value_or(0);
    if (f.inclusive)
      s.inclusive = std::max(s.inclusive.value_or(0), *f.inclusive);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NameShare& a, const NameShare& b) {
                     if (a.share != b.share) return a.share > b.share;
                     return a.name < b.name;
                   });
  return out;
}

std::optional<double> ShareOf(const std::vector<NameShare>& shares,
                              const BenchmarkProfile& profile,
                              const std::string& name) {
  for (const NameShare& s : shares) {
    if (s.name == name) return s.share;
  }
  if (profile.complete && profile.samples > 0) return 0.0;
  return std::nullopt;
}

std::string FormatSharePct(double pct) {
  return std::fabs(pct) >= 9.95 ? absl::StrFormat("%.0f%%", pct)
                                : absl::StrFormat("%.1f%%", pct);
}

std::string FormatPp(double pp) {
  return std::fabs(pp) >= 9.95 ? absl::StrFormat("%+.0f pp", pp)
                               : absl::StrFormat("%+.1f pp", pp);
}

std::string ShortFunctionName(absl::string_view name) {
  // The parameter list is the last top-level (...) group; templates and
  // "(anonymous namespace)" stay.
  if (name.empty() || name.back() != ')') return std::string(name);
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      if (i == 0) return std::string(name);
      return std::string(name.substr(0, i));
    }
  }
  return std::string(name);
}

void JsonValueBuilder::Value(json v) { Place(std::move(v)); }

void JsonValueBuilder::Open(json v) { stack_.push_back(Place(std::move(v))); }

json* JsonValueBuilder::Place(json v) {
  if (!started_) {
    started_ = true;
    root_ = std::move(v);
    return &root_;
  }
  json& parent = *stack_.back();
  if (parent.is_array()) {
    parent.push_back(std::move(v));
    return &parent.back();
  }
  json& slot = parent[key_];
  slot = std::move(v);
  return &slot;
}

}  // namespace perfcounters::tools
