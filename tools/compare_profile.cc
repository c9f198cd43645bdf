// compare_profile.cc: profiles in `perfcounters compare` (see
// compare_profile.h).
#include "compare_profile.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "oom_safe_map.h"
#include "profile_data.h"

namespace perfcounters::tools {
namespace {

// The share of all samples `profile`'s list holds, 0..1 (1 when complete).
double ListedShare(const BenchmarkProfile& profile,
                   const std::vector<NameShare>& shares) {
  if (profile.complete) return 1;
  double listed = 0;
  for (const NameShare& s : shares) listed += s.share;
  return std::clamp(listed, 0.0, 1.0);
}

// The largest change a function may be: |change_pp|, else the far end of
// its range (0 where neither is known).
double Rank(const FunctionShareChange& f) {
  if (f.change_pp) return std::fabs(*f.change_pp);
  if (f.change_min_pp && f.change_max_pp) {
    return std::max(std::fabs(*f.change_min_pp), std::fabs(*f.change_max_pp));
  }
  return 0;
}

bool Ranked(const FunctionShareChange& f) {
  return f.change_pp.has_value() || f.change_min_pp.has_value();
}

BenchmarkProfileChange Pair(const std::string& name,
                            const BenchmarkProfile& base,
                            const BenchmarkProfile& next) {
  BenchmarkProfileChange c;
  c.benchmark = name;
  c.base_samples = base.samples;
  c.next_samples = next.samples;
  c.base_event = base.event;
  c.next_event = next.event;
  c.simulated = base.simulated && next.simulated;
  const std::vector<NameShare> bs = SharesByName(base);
  const std::vector<NameShare> ns = SharesByName(next);
  const double base_listed = ListedShare(base, bs);
  const double next_listed = ListedShare(next, ns);
  c.base_listed_pct = base_listed * 100;
  c.next_listed_pct = next_listed * 100;
  OomSafeSet<std::string> seen;
  auto add = [&](const std::string& fn) {
    if (!seen.insert(fn).second) return;
    FunctionShareChange f;
    f.name = fn;
    const std::optional<double> b = ShareOf(bs, base, fn);
    const std::optional<double> n = ShareOf(ns, next, fn);
    if (b) f.base_pct = *b * 100;
    if (n) f.next_pct = *n * 100;
    if (b && n) {
      f.change_pp = (*n - *b) * 100;
      // Simulated shares are exact counts: no sampling noise.
      f.noise_pp = c.simulated ? 0.0
                               : std::sqrt(*b * (1 - *b) / base.samples +
                                           *n * (1 - *n) / next.samples) *
                                     100;
    } else if (n && base.samples > 0) {
      // Not in base's incomplete list: its base share is 0 .. the unlisted.
      f.change_min_pp = (*n - (1 - base_listed)) * 100;
      f.change_max_pp = *n * 100;
    } else if (b && next.samples > 0) {
      f.change_min_pp = -*b * 100;
      f.change_max_pp = ((1 - next_listed) - *b) * 100;
    }
    c.functions.push_back(std::move(f));
  };
  for (const NameShare& f : bs) add(f.name);
  for (const NameShare& f : ns) add(f.name);
  std::stable_sort(
      c.functions.begin(), c.functions.end(),
      [](const FunctionShareChange& a, const FunctionShareChange& b) {
        if (Ranked(a) != Ranked(b)) return Ranked(a);
        return Rank(a) > Rank(b);
      });
  return c;
}

double LargestChange(const BenchmarkProfileChange& b) {
  return b.functions.empty() ? 0 : Rank(b.functions[0]);
}

// Benchmarks by their largest change (the most telling first).
std::vector<const BenchmarkProfileChange*> ByChange(
    const ProfileComparison& p) {
  std::vector<const BenchmarkProfileChange*> out;
  for (const BenchmarkProfileChange& b : p.benchmarks) out.push_back(&b);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return LargestChange(*a) > LargestChange(*b);
  });
  return out;
}

// The changes of one benchmark on one line, `code` wrapping names. Changes
// that would read +0.0 pp are not changes: an unchanged profile says so.
std::string ChangesLine(const BenchmarkProfileChange& b, bool markdown) {
  std::vector<std::string> parts;
  bool compared = false;
  for (const FunctionShareChange& f : b.functions) {
    if (parts.size() == kProfileChangesShown || !Ranked(f)) break;
    compared = true;
    if (Rank(f) < kProfileChangeShownPp) break;
    FunctionShareChange shown = f;
    shown.name = ShortFunctionName(f.name);
    if (markdown) {
      shown.name =
          absl::StrCat("`",
                       absl::StrReplaceAll(EscapeControlBytes(shown.name),
                                           {{"`", "'"}, {"|", "\\|"}}),
                       "`");
    } else {
      shown.name = EscapeControlBytes(shown.name);
    }
    parts.push_back(FormatShareChange(shown));
  }
  if (parts.empty() && compared) {
    return absl::StrFormat("no function's share changed by %.2g pp or more",
                           kProfileChangeShownPp);
  }
  if (parts.empty()) return "no function listed on both sides";
  return absl::StrJoin(parts, " · ");
}

// A note for the benchmarks whose `side` list is incomplete: their n/a.
void IncompleteListNote(const ProfileComparison& p, bool base,
                        std::vector<std::string>& notes) {
  const BenchmarkProfileChange* first = nullptr;
  size_t count = 0;
  for (const BenchmarkProfileChange& b : p.benchmarks) {
    if ((base ? b.base_listed_pct : b.next_listed_pct) >= 100) continue;
    if (first == nullptr) first = &b;
    ++count;
  }
  if (first == nullptr) return;
  const double listed = base ? first->base_listed_pct : first->next_listed_pct;
  notes.push_back(absl::StrCat(
      base ? "base" : "new", "'s function list is incomplete for ", count,
      " benchmark(s), e.g. ", EscapeControlBytes(first->benchmark), " lists ",
      FormatSharePct(listed),
      " of its samples: a function it does not list is n/a there, at most "
      "the ",
      FormatSharePct(100 - listed), " left out, so its change is a range"));
}

// Notes: profiles on one side only, benchmarks profiled on one side,
// incomplete function lists.
std::vector<std::string> Notes(const ProfileComparison& p) {
  std::vector<std::string> notes;
  IncompleteListNote(p, true, notes);
  IncompleteListNote(p, false, notes);
  if (p.sides == ProfileSides::kBaseOnly || p.sides == ProfileSides::kNewOnly) {
    const bool base = p.sides == ProfileSides::kBaseOnly;
    notes.push_back(absl::StrCat(
        "only ", base ? "base" : "new", " (",
        EscapeControlBytes(base ? p.base_source : p.next_source),
        ") carries profiles (perfcounters_profile): run the ",
        base ? "new" : "base",
        " benchmarks with --perf_profile too to compare where the time went"));
  }
  if (!p.mixed.empty()) {
    notes.push_back(absl::StrCat(
        p.mixed.size(),
        " benchmark(s) have a simulated profile (callgrind's counts) on one "
        "side and a sampled one on the other: not compared, e.g. ",
        EscapeControlBytes(p.mixed.front())));
  }
  for (const auto& [list, side] :
       {std::pair{&p.only_base, "base"}, std::pair{&p.only_next, "new"}}) {
    if (list->empty()) continue;
    notes.push_back(absl::StrCat(list->size(), " benchmark(s) profiled in ",
                                 side, " only, e.g. ",
                                 EscapeControlBytes(list->front())));
  }
  return notes;
}

}  // namespace

ProfileComparison CompareProfiles(const BenchmarkFile& base,
                                  const BenchmarkFile& next,
                                  const std::optional<NameFilter>& filter) {
  ProfileComparison out;
  out.base_source = base.source;
  out.next_source = next.source;
  std::vector<NamedProfile> bp = Profiles(base), np = Profiles(next);
  auto keep = [&](std::vector<NamedProfile>& v) {
    std::erase_if(v, [&](const NamedProfile& p) {
      return filter && !filter->Matches(p.benchmark);
    });
  };
  keep(bp);
  keep(np);
  out.sides = !bp.empty() && !np.empty() ? ProfileSides::kBoth
              : !bp.empty()              ? ProfileSides::kBaseOnly
              : !np.empty()              ? ProfileSides::kNewOnly
                                         : ProfileSides::kNone;
  if (out.sides != ProfileSides::kBoth) return out;
  OomSafeMap<std::string, const BenchmarkProfile*> next_by_name;
  for (const NamedProfile& p : np) next_by_name[p.benchmark] = &p.profile;
  OomSafeSet<std::string> in_base;
  for (const NamedProfile& p : bp) {
    in_base.insert(p.benchmark);
    auto it = next_by_name.find(p.benchmark);
    if (it == next_by_name.end()) {
      out.only_base.push_back(p.benchmark);
      continue;
    }
    if (p.profile.simulated != it->second->simulated) {
      out.mixed.push_back(p.benchmark);
      continue;
    }
    out.benchmarks.push_back(Pair(p.benchmark, p.profile, *it->second));
  }
  for (const NamedProfile& p : np) {
    if (!in_base.contains(p.benchmark)) out.only_next.push_back(p.benchmark);
  }
  return out;
}

std::string FormatShareChange(const FunctionShareChange& f) {
  auto side = [](const std::optional<double>& v) {
    return v ? FormatSharePct(*v) : std::string("n/a");
  };
  std::string change;
  if (f.change_pp) {
    change = absl::StrCat(" (", FormatPp(*f.change_pp), ")");
  } else if (f.change_min_pp && f.change_max_pp) {
    change =
        absl::StrCat(" (", absl::StripSuffix(FormatPp(*f.change_min_pp), " pp"),
                     " to ", FormatPp(*f.change_max_pp), ")");
  }
  return absl::StrCat(f.name, " ", side(f.base_pct), " → ", side(f.next_pct),
                      change);
}

std::string ProfileTableText(const ProfileComparison& p) {
  if (p.sides == ProfileSides::kNone) return "";
  std::string out;
  if (!p.benchmarks.empty()) {
    absl::StrAppend(&out, "\nProfiles: self share of samples, base → new, the ",
                    kProfileChangesShown,
                    " largest changes per benchmark (percentage points):\n");
    size_t width = 0;
    for (const BenchmarkProfileChange& b : p.benchmarks) {
      width = std::max(width, EscapeControlBytes(b.benchmark).size());
    }
    for (const BenchmarkProfileChange* b : ByChange(p)) {
      const std::string name = EscapeControlBytes(b->benchmark);
      absl::StrAppendFormat(
          &out, "  %s%s  %s  (%.17g → %.17g %s)\n", name,
          std::string(width - name.size(), ' '), ChangesLine(*b, false),
          b->base_samples, b->next_samples,
          b->simulated ? absl::StrCat(b->base_event, " [simulated]")
                       : std::string("samples"));
    }
  }
  for (const std::string& n : Notes(p)) {
    absl::StrAppend(&out, "\nNote: profiles: ", n, ".\n");
  }
  return out;
}

std::string ProfileMarkdown(const ProfileComparison& p, size_t max_chars) {
  if (p.sides == ProfileSides::kNone) return "";
  std::string notes;
  for (const std::string& n : Notes(p)) {
    absl::StrAppend(&notes, "> **Note:** profiles: ",
                    absl::StrReplaceAll(n, {{"|", "\\|"}}), ".\n");
  }
  if (p.benchmarks.empty()) return notes + "\n";
  std::string out = absl::StrCat(
      "### Where the time went (profiles)\n\nSelf share of samples, base → "
      "new, the ",
      kProfileChangesShown,
      " largest changes per benchmark in percentage points (pp).\n\n"
      "| Benchmark | Samples | Largest share changes |\n|---|---:|---|\n");
  const std::vector<const BenchmarkProfileChange*> order = ByChange(p);
  constexpr size_t kTail = 160;  // the "left out" line
  size_t i = 0;
  for (; i < order.size(); ++i) {
    const BenchmarkProfileChange& b = *order[i];
    const std::string row =
        absl::StrFormat("| `%s` | %.17g → %.17g | %s |\n",
                        absl::StrReplaceAll(EscapeControlBytes(b.benchmark),
                                            {{"`", "'"}, {"|", "\\|"}}),
                        b.base_samples, b.next_samples, ChangesLine(b, true));
    if (out.size() + row.size() + notes.size() + kTail > max_chars) break;
    out += row;
  }
  out += "\n";
  if (i < order.size()) {
    absl::StrAppend(&out, "(", order.size() - i, " of ", order.size(),
                    " profiled benchmarks left out to stay within the "
                    "comment's size; `--format json` has every function)\n\n");
  }
  if (out.size() + notes.size() > max_chars) return "";
  return out + notes;
}

nlohmann::ordered_json ProfileJson(const ProfileComparison& p) {
  using json = nlohmann::ordered_json;
  if (p.sides == ProfileSides::kNone) return nullptr;
  json j;
  j["base"] =
      p.sides == ProfileSides::kBoth || p.sides == ProfileSides::kBaseOnly;
  j["new"] =
      p.sides == ProfileSides::kBoth || p.sides == ProfileSides::kNewOnly;
  j["notes"] = Notes(p);
  j["only_base"] = p.only_base;
  j["only_new"] = p.only_next;
  json& benchmarks = j["benchmarks"] = json::array();
  auto opt = [](const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
  };
  for (const BenchmarkProfileChange& b : p.benchmarks) {
    json x;
    x["name"] = b.benchmark;
    x["base_samples"] = b.base_samples;
    x["new_samples"] = b.next_samples;
    x["base_event"] = b.base_event;
    x["new_event"] = b.next_event;
    x["value_kind"] = b.simulated ? "simulated" : "sampled";
    x["base_listed_pct"] = b.base_listed_pct;
    x["new_listed_pct"] = b.next_listed_pct;
    json& fns = x["functions"] = json::array();
    for (const FunctionShareChange& f : b.functions) {
      fns.push_back({{"name", f.name},
                     {"base_pct", opt(f.base_pct)},
                     {"new_pct", opt(f.next_pct)},
                     {"change_pp", opt(f.change_pp)},
                     {"change_min_pp", opt(f.change_min_pp)},
                     {"change_max_pp", opt(f.change_max_pp)},
                     {"noise_pp", opt(f.noise_pp)}});
    }
    benchmarks.push_back(std::move(x));
  }
  return j;
}

}  // namespace perfcounters::tools
