// report_profile.cc: the profile section of `perfcounters report` (see
// report_profile.h).
#include "report_profile.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "oom_safe_map.h"
#include "report_html.h"

namespace perfcounters::tools {
namespace {

using report_internal::Esc;
using report_internal::kPalette;

constexpr const char kProfileCss[] = R"(
section.profile { margin: 18px 0 28px; }
section.profile h3 { font-size: 15px; margin: 14px 0 4px;
  font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
svg.flamegraph { display: block; background: #f8f8f4; border: 1px solid #d0d7de;
  margin: 4px 0 10px; }
svg.flamegraph text { font: 12px ui-monospace, "DejaVu Sans Mono", monospace;
  fill: #000; pointer-events: none; }
svg.flamegraph g.frame:hover rect { stroke: #1f2328; stroke-width: 1; }
table.functions td, table.functions th { padding: 2px 8px; text-align: right;
  border-bottom: 1px solid #eef0f2; font-variant-numeric: tabular-nums; }
table.functions th { border-bottom: 2px solid #d0d7de; }
table.functions td.fn, table.functions th.fn, table.functions td.where {
  text-align: left; font-family: ui-monospace, monospace; font-size: 13px;
  overflow-wrap: anywhere; max-width: 520px; }
table.functions td.where { color: #59636e; font-size: 12px; max-width: 320px; }
)";

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "bench · src/p.cc:42" (what is known of where a function is).
std::string Where(const ProfileFunction& f) {
  std::string where = Basename(f.module);
  if (!f.file.empty()) {
    absl::StrAppend(&where, where.empty() ? "" : " · ", f.file,
                    f.line ? absl::StrCat(":", *f.line) : "");
  } else if (!f.offset.empty()) {
    absl::StrAppend(&where, "+", f.offset);
  }
  if (f.inlined) absl::StrAppend(&where, " (inlined)");
  return where;
}

std::string Percent(double share) {
  return absl::StrFormat("%.1f%%", share * 100);
}

// "cpu-clock, period 100000: 1234 samples, 0 lost, call chains".
std::string Caption(const BenchmarkProfile& p) {
  std::string text = p.event.empty() ? "event not written" : p.event;
  if (p.period) absl::StrAppendFormat(&text, ", period %.17g", *p.period);
  if (p.frequency) absl::StrAppendFormat(&text, ", %.17g Hz", *p.frequency);
  if (p.simulated) {
    // Counted by the simulator: every event of the timed region.
    absl::StrAppendFormat(&text,
                          " [simulated]: %.17g counted (callgrind, every "
                          "event, not sampled)",
                          p.samples);
  } else {
    absl::StrAppendFormat(&text, ": %.17g samples", p.samples);
  }
  if (p.lost) absl::StrAppendFormat(&text, ", %.17g lost", *p.lost);
  if (p.callchains_broken) {
    absl::StrAppendFormat(
        &text,
        ", call chains broken (%.0f%% of the samples have no caller a symbol "
        "covers: code built without frame pointers; rebuild it with "
        "-fno-omit-frame-pointer): the stacks below are what was walked",
        *p.callchains_broken * 100);
  } else {
    absl::StrAppend(&text, p.callchains ? ", call chains"
                                        : ", no call chains (one frame a "
                                          "stack: self samples)");
  }
  if (p.threads_sampled && p.threads && *p.threads_sampled < *p.threads) {
    absl::StrAppendFormat(&text,
                          "; %s on %.17g of its %.17g threads: the "
                          "other threads are not in it",
                          p.simulated ? "counted" : "sampled",
                          *p.threads_sampled, *p.threads);
  }
  if (p.stacks_truncated > 0) {
    double in_stacks = 0;
    for (const ProfileStack& s : p.stacks) in_stacks += s.samples;
    absl::StrAppendFormat(&text,
                          "; %.17g distinct stacks (%.17g samples) left out by "
                          "the writer: the gap at the top of \"all\"",
                          p.stacks_truncated, p.samples - in_stacks);
  }
  return text;
}

struct RunProfile {
  const BenchmarkProfile* profile = nullptr;
  std::vector<NameShare> shares;
};

// The functions table's head: a column per run (self · inclusive with
// call chains), then with `change` one per later run against the first.
std::string FunctionsTableHead(size_t runs,
                               const std::vector<std::string>& labels,
                               bool inclusive, bool change) {
  std::string t =
      "<table class=\"functions\"><thead><tr><th class=\"fn\">Function "
      "(self share)</th><th class=\"fn\">Where</th>";
  for (size_t r = 0; r < runs; ++r) {
    absl::StrAppend(&t, "<th><span class=\"swatch\" style=\"background:",
                    kPalette[r % 8], "\"></span>", Esc(labels[r]),
                    inclusive ? "<br><span class=\"spread\">self · "
                                "inclusive</span>"
                              : "",
                    "</th>");
  }
  for (size_t r = 1; change && r < runs; ++r) {
    absl::StrAppend(&t, "<th>Δ ", Esc(labels[r]), "<br>vs ", Esc(labels[0]),
                    "</th>");
  }
  t += "</tr></thead><tbody>\n";
  return t;
}

// The cell of function `name` in run `r`: its self share `s`, with its
// samples, and its inclusive share when the run has one.
void AppendFunctionShareCell(std::string& t, const RunProfile& r,
                             const std::string& name, double s) {
  double samples = 0;
  std::optional<double> incl;
  for (const NameShare& f : r.shares) {
    if (f.name == name) {
      samples = f.samples;
      incl = f.inclusive;
    }
  }
  absl::StrAppendFormat(
      &t, "<td data-share=\"%.6f\" title=\"%.17g samples\">%s%s</td>", s,
      samples, Percent(s),
      incl
          ? absl::StrCat("<span class=\"spread\">· ", Percent(*incl), "</span>")
          : "");
}

// The top functions of one benchmark across runs.
std::string FunctionsTable(const std::vector<RunProfile>& runs,
                           const std::vector<std::string>& labels, size_t top) {
  // Rows: the union of each run's top functions.
  std::vector<std::string> names;
  OomSafeSet<std::string> taken;
  OomSafeMap<std::string, const ProfileFunction*> entry;
  bool inclusive = false;
  size_t listed = 0;
  for (const RunProfile& r : runs) {
    if (r.profile == nullptr) continue;
    inclusive = inclusive || r.profile->callchains;
    for (size_t i = 0; i < r.shares.size(); ++i) {
      entry.try_emplace(r.shares[i].name, r.shares[i].entry);
      if (i < top && taken.insert(r.shares[i].name).second) {
        names.push_back(r.shares[i].name);
      }
    }
    listed = std::max(listed, r.shares.size());
  }
  const RunProfile& first = runs.front();
  const RunProfile& last = runs.back();
  const bool change = runs.size() > 1 && first.profile != nullptr;
  auto share = [](const RunProfile& r, const std::string& name) {
    return r.profile == nullptr ? std::nullopt
                                : ShareOf(r.shares, *r.profile, name);
  };
  auto delta = [&](const RunProfile& r,
                   const std::string& name) -> std::optional<double> {
    const auto a = share(first, name), b = share(r, name);
    if (!a || !b) return std::nullopt;
    return (*b - *a) * 100;
  };
  // With a change: largest change of the last run first; else by share.
  std::stable_sort(
      names.begin(), names.end(), [&](const auto& a, const auto& b) {
        if (change && last.profile != nullptr) {
          const auto da = delta(last, a), db = delta(last, b);
          if (da.has_value() != db.has_value()) return da.has_value();
          if (da && std::fabs(*da) != std::fabs(*db)) {
            return std::fabs(*da) > std::fabs(*db);
          }
        }
        const RunProfile& ref = last.profile != nullptr ? last : first;
        return share(ref, a).value_or(-1) > share(ref, b).value_or(-1);
      });
  std::string t = FunctionsTableHead(runs.size(), labels, inclusive, change);
  for (const std::string& name : names) {
    absl::StrAppend(&t, "<tr class=\"function\" data-function=\"", Esc(name),
                    "\"><td class=\"fn\" title=\"", Esc(name), "\">",
                    Esc(ShortFunctionName(name)), "</td><td class=\"where\">",
                    Esc(Where(*entry[name])), "</td>");
    for (const RunProfile& r : runs) {
      const std::optional<double> s = share(r, name);
      if (r.profile == nullptr || !s) {
        absl::StrAppend(&t, "<td class=\"na\">",
                        r.profile == nullptr ? "no profile" : "not listed",
                        "</td>");
        continue;
      }
      AppendFunctionShareCell(t, r, name, *s);
    }
    for (size_t r = 1; change && r < runs.size(); ++r) {
      const std::optional<double> d = delta(runs[r], name);
      absl::StrAppend(
          &t, d ? absl::StrFormat("<td data-change-pp=\"%.4f\">%s</td>", *d,
                                  FormatPp(*d))
                : std::string("<td class=\"na\">n/a</td>"));
    }
    t += "</tr>\n";
  }
  t += "</tbody></table>\n";
  if (listed > names.size()) {
    absl::StrAppend(&t, "<p class=\"note\">", listed - names.size(),
                    " more functions with smaller shares are in the JSON "
                    "files (the table has each run's top ",
                    top, ").</p>\n");
  }
  return t;
}

}  // namespace

std::string ReportProfileSection(const std::vector<BenchmarkFile>& runs,
                                 const std::vector<std::string>& labels,
                                 size_t top) {
  std::vector<std::vector<NamedProfile>> profiles;
  std::vector<std::string> benchmarks;
  OomSafeMap<std::string, size_t> bench_index;
  // per benchmark, per run: the profile
  std::vector<std::vector<const BenchmarkProfile*>> table;
  for (const BenchmarkFile& f : runs) profiles.push_back(Profiles(f));
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const NamedProfile& p : profiles[r]) {
      auto [it, inserted] =
          bench_index.try_emplace(p.benchmark, benchmarks.size());
      if (inserted) {
        benchmarks.push_back(p.benchmark);
        table.emplace_back(runs.size(), nullptr);
      }
      table[it->second][r] = &p.profile;
    }
  }
  if (benchmarks.empty()) return "";
  std::string html = absl::StrCat(
      "<style>", kProfileCss,
      "</style>\n<section id=\"profiles\" class=\"profiles\"><h2>Profiles "
      "<span class=\"unit\">(where the time went: samples of each "
      "benchmark's timed region)</span></h2>\n<p class=\"note\">",
      benchmarks.size(),
      " profiled benchmarks. Flame graphs: each box is a function in a call "
      "stack, its callers below it; its width is its share of all samples; "
      "hover for the name, samples and share. Shares in the tables are self "
      "shares (samples whose innermost frame is the function)",
      runs.size() > 1
          ? "; Δ is the change of the share in percentage points (pp) against "
            "the first run"
          : "",
      ".</p>\n");
  for (size_t b = 0; b < benchmarks.size(); ++b) {
    absl::StrAppend(&html, "<section class=\"profile\" data-benchmark=\"",
                    Esc(benchmarks[b]), "\"><h3>", Esc(benchmarks[b]),
                    "</h3>\n");
    std::vector<RunProfile> per_run(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) {
      const BenchmarkProfile* p = table[b][r];
      absl::StrAppend(&html, "<p class=\"note\" data-run=\"", Esc(labels[r]),
                      "\"><span class=\"swatch\" style=\"background:",
                      kPalette[r % 8], "\"></span>", Esc(labels[r]), ": ");
      if (p == nullptr) {
        html += "no profile of this benchmark in this run.</p>\n";
        continue;
      }
      per_run[r] = {p, SharesByName(*p)};
      absl::StrAppend(&html, Esc(Caption(*p)), "</p>\n");
      if (p->samples > 0) {
        html += FlameGraphSvg(*p, benchmarks[b], labels[r]);
        html += "\n";
      }
    }
    html += FunctionsTable(per_run, labels, top);
    html += "</section>\n";
  }
  html += "</section>\n";
  return html;
}

}  // namespace perfcounters::tools
