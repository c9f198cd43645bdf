// compare.cc: pairing and gates of `perfcounters compare` (its tests and
// medians: statistics.cc).
#include "compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "counting_source.h"
#include "oom_safe_map.h"
#include "paired_stats.h"
#include "perfcounters/counters.h"
#include "perfcounters/metrics.h"
#include "perfcounters/plan.h"

namespace perfcounters::tools {
namespace {

constexpr absl::string_view kRealTime = "real_time";
constexpr absl::string_view kCpuTime = "cpu_time";

// One benchmark (run_name) of one file: its entries are
// FileIndex::order[begin, end), in file order. (Small: a file of many
// 1-repetition benchmarks has one per entry.)
struct Group {
  absl::string_view name;
  uint32_t begin = 0;
  uint32_t end = 0;
};

// The benchmarks of one file, in 4 bytes per entry and 28 per benchmark
// (no map node, no list per benchmark: a comparison of many small
// benchmarks holds two of these beside the files).
struct FileIndex {
  const BenchmarkFile* file = nullptr;
  // Indexes of the entries (all but complexity rows), by run_name, then in
  // file order.
  std::vector<uint32_t> order;
  // The benchmarks that pass the filter, by name.
  std::vector<Group> groups;
  // Indexes into `groups` in order of first appearance in the file.
  std::vector<uint32_t> file_order;
  // run_names of complexity rows (BigO, RMS), in file order.
  std::vector<absl::string_view> complexity;

  const RunEntry& Entry(uint32_t i) const { return file->entries[order[i]]; }
  // The group named `name`, or null.
  const Group* Find(absl::string_view name) const {
    auto it = std::lower_bound(
        groups.begin(), groups.end(), name,
        [](const Group& g, absl::string_view n) { return g.name < n; });
    return it != groups.end() && it->name == name ? &*it : nullptr;
  }
};

std::string ProblemOf(const RunEntry& e) {
  if (e.error_occurred) {
    return e.error_message().empty()
               ? "error_occurred"
               : absl::StrCat("error: ", e.error_message());
  }
  return e.skip_message().empty() ? "skipped"
                                  : absl::StrCat("skipped: ", e.skip_message());
}

// Why `g` has no usable data: its first errored or skipped entry's
// message; "" when none.
std::string ProblemOf(const FileIndex& index, const Group& g) {
  for (uint32_t i = g.begin; i < g.end; ++i) {
    const RunEntry& e = index.Entry(i);
    if (e.error_occurred || e.skipped) return ProblemOf(e);
  }
  return "";
}

FileIndex Index(const BenchmarkFile& file, const CompareOptions& options) {
  FileIndex index;
  index.file = &file;
  index.order.reserve(file.entries.size());
  for (size_t i = 0; i < file.entries.size(); ++i) {
    const RunEntry& e = file.entries[i];
    if (e.run_type != RunType::kIteration &&
        (e.aggregate_name() == "BigO" || e.aggregate_name() == "RMS")) {
      // gbench's complexity fit of a family: a coefficient, not a run.
      if ((!options.filter || options.filter->Matches(e.run_name)) &&
          std::find(index.complexity.begin(), index.complexity.end(),
                    e.run_name) == index.complexity.end()) {
        index.complexity.push_back(e.run_name);
      }
      continue;
    }
    index.order.push_back(static_cast<uint32_t>(i));
  }
  // By name, then file order: a benchmark's entries are one range.
  std::sort(index.order.begin(), index.order.end(),
            [&file](uint32_t a, uint32_t b) {
              const int c =
                  file.entries[a].run_name.compare(file.entries[b].run_name);
              return c != 0 ? c < 0 : a < b;
            });
  for (uint32_t i = 0; i < index.order.size();) {
    const absl::string_view name = index.Entry(i).run_name;
    uint32_t end = i + 1;
    while (end < index.order.size() && index.Entry(end).run_name == name) {
      ++end;
    }
    if (!options.filter || options.filter->Matches(name)) {
      index.groups.push_back(Group{name, i, end});
    }
    i = end;
  }
  index.file_order.resize(index.groups.size());
  for (uint32_t g = 0; g < index.groups.size(); ++g) index.file_order[g] = g;
  std::sort(index.file_order.begin(), index.file_order.end(),
            [&index](uint32_t a, uint32_t b) {
              return index.order[index.groups[a].begin] <
                     index.order[index.groups[b].begin];
            });
  return index;
}

// Which entries give the samples: repetitions, else the median aggregate,
// else the mean (the last of each, as the file has them), never an
// errored or skipped one.
std::vector<const RunEntry*> SampleEntries(const FileIndex& index,
                                           const Group& g, bool* aggregate) {
  std::vector<const RunEntry*> iterations;
  const RunEntry* median = nullptr;
  const RunEntry* mean = nullptr;
  for (uint32_t i = g.begin; i < g.end; ++i) {
    const RunEntry& e = index.Entry(i);
    if (e.error_occurred || e.skipped) continue;
    if (e.run_type == RunType::kIteration) {
      iterations.push_back(&e);
    } else if (e.aggregate_name() == "median") {
      median = &e;
    } else if (e.aggregate_name() == "mean") {
      mean = &e;
    }
  }
  *aggregate = false;
  if (!iterations.empty()) return iterations;
  *aggregate = true;
  if (median != nullptr) return {median};
  if (mean != nullptr) return {mean};
  *aggregate = false;
  return {};
}

using MetricList = std::vector<std::pair<std::string, SideStats>>;

SideStats& Slot(MetricList& list, absl::string_view name) {
  for (auto& [n, s] : list) {
    if (n == name) return s;
  }
  list.emplace_back(std::string(name), SideStats{});
  return list.back().second;
}

// The value `list` (RunEntry::coverages or mux_intervals) has for counter
// `name`; empty when none (full coverage, not multiplexed over few).
std::optional<double> SideValueOf(
    const std::vector<std::pair<uint32_t, double>>& list, uint32_t name) {
  for (const auto& [n, v] : list) {
    if (n == name) return v;
  }
  return std::nullopt;
}

// Keeps the lowest coverage and fewest intervals of counter `name` in `e`.
void AddMultiplexing(SideStats& s, const RunEntry& e, uint32_t name) {
  s.coverage = LowerCoverage(s.coverage, SideValueOf(e.coverages(), name));
  s.mux_intervals =
      LowerCoverage(s.mux_intervals, SideValueOf(e.mux_intervals(), name));
}

void AddSample(SideStats& s, const EntryCounter* v, const RunEntry& e) {
  s.present = true;
  if (v->counted) {
    s.samples.push_back(v->value);
    AddMultiplexing(s, e, v->name);
  } else {
    ++s.not_counted;
  }
}

// A value of `label` in `e`, or null.
const EntryCounter* FindCounter(const BenchmarkFile& file, const RunEntry& e,
                                absl::string_view label) {
  for (const EntryCounter& c : e.counters) {
    if (file.counter_names[c.name] == label) return &c;
  }
  return nullptr;
}

// Adds the table's metrics (metrics.h) whose inputs are counters of `list`
// with the same modifiers, unless the file carries the metric itself:
// computed per entry (ComputeMetrics, the library's), present where both
// inputs are present, counted where both are counted and the denominator
// is positive.
void AddDerivedMetrics(const BenchmarkFile& file,
                       const std::vector<const RunEntry*>& entries,
                       bool aggregate, MetricList& list) {
  std::vector<std::string> labels;
  labels.reserve(list.size());
  for (const auto& [name, stats] : list) labels.push_back(name);
  for (const DerivedMetric& d : MatchMetrics(labels)) {
    const std::string name =
        CompareMetricName(*d.metric, SplitLabel(d.name).modifiers);
    if (std::find(labels.begin(), labels.end(), name) != labels.end()) {
      continue;  // the file carries it
    }
    SideStats derived;
    derived.from_aggregate = aggregate;
    for (const RunEntry* e : entries) {
      const EntryCounter* num = FindCounter(file, *e, d.numerator);
      const EntryCounter* den = FindCounter(file, *e, d.denominator);
      if (num == nullptr || den == nullptr) continue;
      derived.present = true;
      std::vector<perfcounters::CounterValue> inputs(2);
      inputs[0].label = d.numerator;
      inputs[0].counted = num->counted;
      inputs[0].value = num->value;
      inputs[1].label = d.denominator;
      inputs[1].counted = den->counted;
      inputs[1].value = den->value;
      const std::vector<MetricValue> v = ComputeMetrics({d}, inputs);
      if (!v.empty() && v.front().counted) {
        derived.samples.push_back(v.front().value);
        AddMultiplexing(derived, *e, num->name);
        AddMultiplexing(derived, *e, den->name);
      } else {
        ++derived.not_counted;
      }
    }
    Slot(list, name) = std::move(derived);
  }
}

MetricList SideMetrics(const FileIndex& index, const Group& g) {
  const BenchmarkFile& file = *index.file;
  bool aggregate = false;
  const std::vector<const RunEntry*> entries =
      SampleEntries(index, g, &aggregate);
  MetricList list;
  list.reserve(8);
  SideStats& real = Slot(list, kRealTime);
  SideStats& cpu = Slot(list, kCpuTime);
  // real/cpu references stay valid until the next emplace.
  for (const RunEntry* e : entries) {
    if (e->real_time_ns) {
      real.present = true;
      real.samples.push_back(*e->real_time_ns);
    }
    if (e->cpu_time_ns) {
      cpu.present = true;
      cpu.samples.push_back(*e->cpu_time_ns);
    }
  }
  for (const RunEntry* e : entries) {
    for (const EntryCounter& c : e->counters) {
      const std::string& name = file.counter_names[c.name];
      // A metric of the table the file carries (benchmark_ext writes "ipc",
      // "cpi:u", ...): under compare's name for it (IPC).
      if (const TableMetric t = FindTableMetric(name); t.metric != nullptr) {
        SideStats& s = Slot(list, CompareMetricName(*t.metric, t.modifiers));
        AddSample(s, &c, *e);
        // An estimate when its inputs were multiplexed (benchmark_ext
        // derives it from their scaled sums).
        for (std::string_view input :
             {t.metric->numerator, t.metric->denominator}) {
          const std::string label =
              std::string(input) +
              (t.modifiers.empty() ? "" : ":" + t.modifiers);
          const EntryCounter* in = FindCounter(file, *e, label);
          if (c.counted && in != nullptr) AddMultiplexing(s, *e, in->name);
        }
        continue;
      }
      AddSample(Slot(list, name), &c, *e);
    }
  }
  AddDerivedMetrics(file, entries, aggregate, list);
  for (auto& [name, s] : list) {
    s.from_aggregate = aggregate;
    if (!s.samples.empty()) s.median = Median(s.samples);
  }
  // Drop time metrics no entry carried.
  std::erase_if(list, [](const auto& m) { return !m.second.present; });
  return list;
}

// Whether a side's repetitions agree within kExactSpread.
bool IsExact(const SideStats& s) {
  if (s.samples.size() < 2 || !s.median) return false;
  const auto [lo, hi] = std::minmax_element(s.samples.begin(), s.samples.end());
  if (*hi == *lo) return true;
  return *s.median != 0 && (*hi - *lo) / std::fabs(*s.median) <= kExactSpread;
}

MetricComparison CompareMetric(std::string name, SideStats base,
                               SideStats next) {
  MetricComparison m;
  m.metric = std::move(name);
  m.base = std::move(base);
  m.next = std::move(next);
  if (m.base.median && m.next.median) {
    const double b = *m.base.median;
    const double n = *m.next.median;
    if (b != 0) {
      m.change_pct = (n - b) / std::fabs(b) * 100.0;
    } else if (n == 0) {
      m.change_pct = 0.0;
    } else {
      m.change_pct = n > 0 ? std::numeric_limits<double>::infinity()
                           : -std::numeric_limits<double>::infinity();
    }
  }
  if (m.base.samples.size() >= 2 && m.next.samples.size() >= 2) {
    const MannWhitneyResult r = MannWhitneyU(m.base.samples, m.next.samples);
    m.p_value = r.p;
    m.p_method = r.method;
  }
  if (!m.change_pct) {
    m.evidence = Evidence::kNone;
  } else if (m.base.samples.size() < 2 || m.next.samples.size() < 2) {
    m.evidence = Evidence::kOneSample;
  } else if (IsExact(m.base) && IsExact(m.next)) {
    m.evidence = Evidence::kExact;
  } else {
    m.evidence = Evidence::kUTest;
  }
  return m;
}

// The context value `key` of `file`, or "".
std::string AbContextValue(const BenchmarkFile& file, absl::string_view key) {
  for (const auto& [k, v] : file.context) {
    if (k == key) return v;
  }
  return "";
}

// Whether `base` and `next` are the two sides of one `perfcounters ab`
// run (ab.h): their rows are paired by round.
bool AbPaired(const BenchmarkFile& base, const BenchmarkFile& next) {
  const std::string id = AbContextValue(base, "perfcounters.ab.id");
  return !id.empty() && id == AbContextValue(next, "perfcounters.ab.id") &&
         AbContextValue(base, "perfcounters.ab.side") == "base" &&
         AbContextValue(next, "perfcounters.ab.side") == "new";
}

// ab's rounds: when every round of `m` was counted on both sides (ab
// writes each benchmark's rounds in the same order on both), the change
// and its evidence come from the paired ratios.
void ComparePaired(MetricComparison& m) {
  if (m.base.from_aggregate || m.next.from_aggregate ||
      m.base.not_counted != 0 || m.next.not_counted != 0) {
    return;
  }
  const std::vector<double> logs = LogRatios(m.base.samples, m.next.samples);
  if (logs.empty()) return;
  const PairedInterval in = SignTestInterval(logs, 0.95);
  m.change_pct = (std::exp(in.median) - 1) * 100;
  m.p_value = in.p;
  m.p_method = PMethod::kExact;
  m.evidence = Evidence::kPaired;
  if (in.valid) {
    m.paired_low = std::exp(in.low);
    m.paired_high = std::exp(in.high);
  }
}

}  // namespace

std::vector<GeomeanSummary> Geomeans(
    const std::vector<BenchmarkComparison>& benchmarks) {
  // Metrics in order of first appearance.
  std::vector<std::string> order;
  OomSafeMap<std::string, std::pair<double, size_t>> sums;
  for (const BenchmarkComparison& bc : benchmarks) {
    if (bc.pairing != Pairing::kBoth) continue;
    for (const MetricComparison& m : bc.metrics) {
      double log_ratio = 0;
      if (m.evidence == Evidence::kPaired && m.change_pct &&
          std::isfinite(*m.change_pct) && *m.change_pct > -100) {
        // ab's rounds: the row's paired change (the median of the
        // rounds' ratios), not the ratio of the unpaired medians, which
        // the drift between rounds moves.
        log_ratio = std::log1p(*m.change_pct / 100);
      } else if (m.evidence != Evidence::kPaired && m.base.median &&
                 m.next.median && *m.base.median > 0 && *m.next.median > 0) {
        log_ratio = std::log(*m.next.median / *m.base.median);
      } else {
        continue;
      }
      auto [it, inserted] = sums.try_emplace(m.metric, 0.0, 0);
      if (inserted) order.push_back(m.metric);
      it->second.first += log_ratio;
      ++it->second.second;
    }
  }
  std::vector<GeomeanSummary> out;
  for (const std::string& metric : order) {
    const auto& [sum, count] = sums[metric];
    out.push_back(GeomeanSummary{
        metric, count,
        (std::exp(sum / static_cast<double>(count)) - 1.0) * 100.0});
  }
  return out;
}

Comparison Compare(const BenchmarkFile& base, const BenchmarkFile& next,
                   const CompareOptions& options) {
  Comparison out;
  out.base_source = base.source;
  out.next_source = next.source;
  out.simulated = CountingSource(next) == "simulate";
  if (out.simulated) out.source_description = SourceDescription(next);
  out.base_unavailable = UnavailableOf(base);
  out.next_unavailable = UnavailableOf(next);
  const bool paired = AbPaired(base, next);
  const FileIndex bi = Index(base, options);
  const FileIndex ni = Index(next, options);
  out.benchmarks.reserve(bi.groups.size() + ni.groups.size() / 8);
  out.profiles = CompareProfiles(base, next, options.filter);

  auto compare_pair = [&](const Group* bg, const Group* ng) {
    BenchmarkComparison bc;
    bc.name = std::string(bg != nullptr ? bg->name : ng->name);
    bc.pairing = bg == nullptr   ? Pairing::kNewOnly
                 : ng == nullptr ? Pairing::kBaseOnly
                                 : Pairing::kBoth;
    MetricList bm, nm;
    if (bg != nullptr) {
      bm = SideMetrics(bi, *bg);
      if (bm.empty()) bc.base_problem = ProblemOf(bi, *bg);
    }
    if (ng != nullptr) {
      nm = SideMetrics(ni, *ng);
      if (nm.empty()) bc.next_problem = ProblemOf(ni, *ng);
    }
    // Base's metrics, each with its match in next (or none), then next's
    // other metrics; the list is sized exactly (a benchmark's metrics
    // are a large part of the comparison's memory).
    std::vector<size_t> match(bm.size(), nm.size());
    std::vector<bool> used(nm.size(), false);
    size_t count = bm.size() + nm.size();
    for (size_t b = 0; b < bm.size(); ++b) {
      for (size_t i = 0; i < nm.size(); ++i) {
        if (!used[i] && nm[i].first == bm[b].first) {
          match[b] = i;
          used[i] = true;
          --count;
          break;
        }
      }
    }
    bc.metrics.reserve(count);
    for (size_t b = 0; b < bm.size(); ++b) {
      SideStats ns;
      if (match[b] < nm.size()) ns = std::move(nm[match[b]].second);
      bc.metrics.push_back(CompareMetric(
          std::move(bm[b].first), std::move(bm[b].second), std::move(ns)));
      MetricComparison& m = bc.metrics.back();
      // A simulated exact count needs no repetitions: its one run is it.
      if (out.simulated && m.evidence == Evidence::kOneSample &&
          ExactSimulatedCount(m.metric)) {
        m.evidence = Evidence::kExact;
      }
      if (paired) ComparePaired(m);
    }
    for (size_t i = 0; i < nm.size(); ++i) {
      if (used[i]) continue;
      bc.metrics.push_back(
          CompareMetric(nm[i].first, SideStats{}, std::move(nm[i].second)));
    }
    out.benchmarks.push_back(std::move(bc));
  };

  for (uint32_t b : bi.file_order) {
    const Group& bg = bi.groups[b];
    compare_pair(&bg, ni.Find(bg.name));
  }
  for (uint32_t n : ni.file_order) {
    const Group& ng = ni.groups[n];
    if (bi.Find(ng.name) == nullptr) compare_pair(nullptr, &ng);
  }

  for (const FileIndex* index : {&bi, &ni}) {
    for (absl::string_view name : index->complexity) {
      if (std::find(out.complexity.begin(), out.complexity.end(), name) ==
          out.complexity.end()) {
        out.complexity.emplace_back(name);
      }
    }
  }
  out.geomean = Geomeans(out.benchmarks);
  return out;
}

std::vector<BenchmarkMetrics> Summarize(const BenchmarkFile& file) {
  const FileIndex index = Index(file, {});
  std::vector<BenchmarkMetrics> out;
  out.reserve(index.groups.size());
  for (uint32_t i : index.file_order) {
    const Group& g = index.groups[i];
    BenchmarkMetrics b;
    b.name = std::string(g.name);
    b.metrics = SideMetrics(index, g);
    if (b.metrics.empty()) b.problem = ProblemOf(index, g);
    out.push_back(std::move(b));
  }
  return out;
}

bool Significant(const MetricComparison& m, double alpha) {
  switch (m.evidence) {
    case Evidence::kNone:
      return false;
    case Evidence::kOneSample:
      return true;
    case Evidence::kExact: {
      const auto [blo, bhi] =
          std::minmax_element(m.base.samples.begin(), m.base.samples.end());
      const auto [nlo, nhi] =
          std::minmax_element(m.next.samples.begin(), m.next.samples.end());
      return *nlo > *bhi || *nhi < *blo;
    }
    case Evidence::kUTest:
    case Evidence::kPaired:
      return m.p_value && *m.p_value < alpha;
  }
  return false;
}

std::vector<std::string> MeasuredMetrics(const Comparison& comparison) {
  std::vector<std::string> names;
  OomSafeMap<std::string, bool> seen;
  for (const BenchmarkComparison& bc : comparison.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      if (m.base.median && m.next.median &&
          seen.try_emplace(m.metric, true).second) {
        names.push_back(m.metric);
      }
    }
  }
  return names;
}

std::vector<std::string> MetricNames(const Comparison& comparison) {
  std::vector<std::string> names = {std::string(kRealTime),
                                    std::string(kCpuTime)};
  // Owns its keys: views into `names` would dangle when it reallocates.
  OomSafeMap<std::string, bool> seen;
  for (const std::string& n : names) seen[n] = true;
  for (const BenchmarkComparison& bc : comparison.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      if (seen.try_emplace(m.metric, true).second) names.push_back(m.metric);
    }
  }
  return names;
}

}  // namespace perfcounters::tools
