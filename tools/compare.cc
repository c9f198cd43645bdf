// compare.cc: pairing, statistics and gates of `perfcounters compare`.
#include "compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace perfcounters::tools {
namespace {

constexpr absl::string_view kRealTime = "real_time";
constexpr absl::string_view kCpuTime = "cpu_time";
constexpr absl::string_view kIpc = "IPC";

bool IsTimeMetric(absl::string_view metric) {
  return metric == kRealTime || metric == kCpuTime;
}

// The usable entries of one benchmark in one file.
struct Group {
  absl::string_view name;
  std::vector<const RunEntry*> iterations;
  const RunEntry* median = nullptr;
  const RunEntry* mean = nullptr;
  std::string problem;
};

struct FileIndex {
  std::vector<Group> groups;
  absl::flat_hash_map<absl::string_view, size_t> by_name;
};

std::string ProblemOf(const RunEntry& e) {
  if (e.error_occurred) {
    return e.error_message.empty() ? "error_occurred"
                                   : absl::StrCat("error: ", e.error_message);
  }
  return e.skip_message.empty() ? "skipped"
                                : absl::StrCat("skipped: ", e.skip_message);
}

FileIndex Index(const BenchmarkFile& file, const CompareOptions& options) {
  FileIndex index;
  index.groups.reserve(file.entries.size() / 2 + 1);
  index.by_name.reserve(file.entries.size() / 2 + 1);
  for (const RunEntry& e : file.entries) {
    auto [it, inserted] = index.by_name.try_emplace(e.run_name, 0);
    if (inserted) {
      if (options.filter && !options.filter->Matches(e.run_name)) {
        it->second = static_cast<size_t>(-1);
        continue;
      }
      it->second = index.groups.size();
      index.groups.push_back(Group{e.run_name, {}, nullptr, nullptr, {}});
    }
    if (it->second == static_cast<size_t>(-1)) continue;
    Group& g = index.groups[it->second];
    if (e.error_occurred || e.skipped) {
      if (g.problem.empty()) g.problem = ProblemOf(e);
      continue;
    }
    if (e.run_type == RunType::kIteration) {
      g.iterations.push_back(&e);
    } else if (e.aggregate_name == "median") {
      g.median = &e;
    } else if (e.aggregate_name == "mean") {
      g.mean = &e;
    }
  }
  return index;
}

// Which entries give the samples: repetitions, else the median aggregate,
// else the mean.
std::vector<const RunEntry*> SampleEntries(const Group& g, bool* aggregate) {
  *aggregate = false;
  if (!g.iterations.empty()) return g.iterations;
  *aggregate = true;
  if (g.median != nullptr) return {g.median};
  if (g.mean != nullptr) return {g.mean};
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

void AddSample(SideStats& s, const CounterValue* v) {
  s.present = true;
  if (v->counted) {
    s.samples.push_back(v->value);
  } else {
    ++s.not_counted;
  }
}

// Derives IPC = instructions/cycles per entry for every modifier suffix
// ("instructions:u" pairs with "cycles:u").
void DeriveIpc(const BenchmarkFile& file,
               const std::vector<const RunEntry*>& entries, bool aggregate,
               MetricList& list) {
  for (const auto& [name, stats] : list) {
    if (absl::EqualsIgnoreCase(
            absl::string_view(name).substr(0, std::min<size_t>(name.size(), 3)),
            "ipc") &&
        (name.size() == 3 || name[3] == ':')) {
      return;  // the file already carries IPC
    }
  }
  std::vector<std::pair<std::string, std::string>> pairs;  // instr, cycles
  for (const auto& [name, stats] : list) {
    if (!absl::StartsWith(name, "instructions")) continue;
    const std::string suffix = name.substr(12);
    if (!suffix.empty() && suffix[0] != ':') continue;
    for (const char* cycles : {"cycles", "cpu-cycles"}) {
      const std::string c = absl::StrCat(cycles, suffix);
      for (const auto& [other, unused] : list) {
        if (other == c) pairs.emplace_back(name, c);
      }
    }
  }
  for (const auto& [instr_name, cycles_name] : pairs) {
    SideStats ipc;
    ipc.from_aggregate = aggregate;
    for (const RunEntry* e : entries) {
      const CounterValue* instr = nullptr;
      const CounterValue* cycles = nullptr;
      for (const CounterValue& c : e->counters) {
        const std::string& n = file.counter_names[c.name];
        if (n == instr_name) instr = &c;
        if (n == cycles_name) cycles = &c;
      }
      if (instr == nullptr || cycles == nullptr) continue;
      ipc.present = true;
      if (instr->counted && cycles->counted && cycles->value > 0) {
        ipc.samples.push_back(instr->value / cycles->value);
      } else {
        ++ipc.not_counted;
      }
    }
    const std::string name = absl::StrCat(
        kIpc, instr_name.substr(std::string("instructions").size()));
    Slot(list, name) = std::move(ipc);
  }
}

MetricList SideMetrics(const BenchmarkFile& file, const Group& g) {
  bool aggregate = false;
  const std::vector<const RunEntry*> entries = SampleEntries(g, &aggregate);
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
    for (const CounterValue& c : e->counters) {
      const std::string& name = file.counter_names[c.name];
      // benchmark_ext writes derived IPC as "ipc"; show it as IPC.
      if (absl::StartsWithIgnoreCase(name, "ipc") &&
          (name.size() == 3 || name[3] == ':')) {
        AddSample(Slot(list, absl::StrCat(kIpc, name.substr(3))), &c);
        continue;
      }
      AddSample(Slot(list, name), &c);
    }
  }
  DeriveIpc(file, entries, aggregate, list);
  for (auto& [name, s] : list) {
    s.from_aggregate = aggregate;
    if (!s.samples.empty()) s.median = Median(s.samples);
  }
  // Drop time metrics no entry carried.
  std::erase_if(list, [](const auto& m) { return !m.second.present; });
  return list;
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
  return m;
}

// Exact two-sided p-value of U (no ties): counts of arrangements by U via
// N(i, j, u) = N(i-1, j, u-j) + N(i, j-1, u), using additions only.
double ExactP(size_t m, size_t n, double u_max) {
  if (m > n) std::swap(m, n);
  const size_t max_u = m * n;
  // cur[i] = distribution for i x's and j y's.
  std::vector<std::vector<double>> cur(m + 1, std::vector<double>(max_u + 1));
  for (size_t i = 0; i <= m; ++i) cur[i][0] = 1;  // j = 0: U = 0 only
  for (size_t j = 1; j <= n; ++j) {
    // N(0, j, 0) = 1 already; update i ascending using N(i-1, j, .) (new).
    for (size_t i = 1; i <= m; ++i) {
      std::vector<double>& row = cur[i];             // holds N(i, j-1, .)
      const std::vector<double>& prev = cur[i - 1];  // N(i-1, j, .)
      for (size_t u = max_u + 1; u-- > j;) row[u] += prev[u - j];
    }
  }
  const std::vector<double>& dist = cur[m];
  double total = 0, tail = 0;
  for (size_t u = 0; u <= max_u; ++u) {
    total += dist[u];
    if (static_cast<double>(u) >= u_max - 1e-9) tail += dist[u];
  }
  return std::min(1.0, 2.0 * tail / total);
}

}  // namespace

Better BetterDirection(absl::string_view metric) {
  const std::string m = absl::AsciiStrToLower(metric);
  if (absl::StartsWith(m, "ipc") || absl::StrContains(m, "per_second") ||
      absl::StrContains(m, "hit")) {
    return Better::kHigher;
  }
  for (const char* worse : {"time", "cycles", "instructions", "miss", "fault",
                            "switch", "clock", "migrations", "stall"}) {
    if (absl::StrContains(m, worse)) return Better::kLower;
  }
  return Better::kUnknown;
}

double Median(std::vector<double> values) {
  const size_t n = values.size();
  auto mid = values.begin() + n / 2;
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(values.begin(), mid);
  return lower + (upper - lower) / 2;
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& a,
                               const std::vector<double>& b) {
  const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  std::vector<std::pair<double, bool>> all;  // value, from a
  all.reserve(n);
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0;
  double tie_term = 0;  // sum of t^3 - t over tie groups
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double rank =
        (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second) rank_sum_a += rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }
  MannWhitneyResult r;
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  r.u = rank_sum_a - dn1 * (dn1 + 1) / 2;
  const double u_max = std::max(r.u, dn1 * dn2 - r.u);
  if (tie_term == 0 && std::min(n1, n2) <= 8) {
    r.method = PMethod::kExact;
    r.p = ExactP(n1, n2, u_max);
    return r;
  }
  r.method = PMethod::kNormal;
  const double dn = static_cast<double>(n);
  const double mu = dn1 * dn2 / 2;
  const double var = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) {
    r.p = 1;  // every value tied
    return r;
  }
  const double z = (u_max - mu - 0.5) / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

Comparison Compare(const BenchmarkFile& base, const BenchmarkFile& next,
                   const CompareOptions& options) {
  Comparison out;
  out.base_source = base.source;
  out.next_source = next.source;
  const FileIndex bi = Index(base, options);
  const FileIndex ni = Index(next, options);
  out.benchmarks.reserve(bi.groups.size() + ni.groups.size() / 8);

  auto compare_pair = [&](const Group* bg, const Group* ng) {
    BenchmarkComparison bc;
    bc.name = std::string(bg != nullptr ? bg->name : ng->name);
    bc.pairing = bg == nullptr   ? Pairing::kNewOnly
                 : ng == nullptr ? Pairing::kBaseOnly
                                 : Pairing::kBoth;
    MetricList bm, nm;
    if (bg != nullptr) {
      bm = SideMetrics(base, *bg);
      if (bm.empty() && !bg->problem.empty()) bc.base_problem = bg->problem;
    }
    if (ng != nullptr) {
      nm = SideMetrics(next, *ng);
      if (nm.empty() && !ng->problem.empty()) bc.next_problem = ng->problem;
    }
    std::vector<bool> used(nm.size(), false);
    for (auto& [name, bs] : bm) {
      SideStats ns;
      for (size_t i = 0; i < nm.size(); ++i) {
        if (!used[i] && nm[i].first == name) {
          ns = std::move(nm[i].second);
          used[i] = true;
          break;
        }
      }
      bc.metrics.push_back(CompareMetric(name, std::move(bs), std::move(ns)));
    }
    for (size_t i = 0; i < nm.size(); ++i) {
      if (used[i]) continue;
      bc.metrics.push_back(
          CompareMetric(nm[i].first, SideStats{}, std::move(nm[i].second)));
    }
    out.benchmarks.push_back(std::move(bc));
  };

  for (const Group& bg : bi.groups) {
    auto it = ni.by_name.find(bg.name);
    const Group* ng = it == ni.by_name.end() || it->second == size_t(-1)
                          ? nullptr
                          : &ni.groups[it->second];
    compare_pair(&bg, ng);
  }
  for (const Group& ng : ni.groups) {
    auto it = bi.by_name.find(ng.name);
    if (it == bi.by_name.end()) compare_pair(nullptr, &ng);
  }

  // Geometric means, metrics in order of first appearance.
  std::vector<std::string> order;
  absl::flat_hash_map<std::string, std::pair<double, size_t>> sums;
  for (const BenchmarkComparison& bc : out.benchmarks) {
    if (bc.pairing != Pairing::kBoth) continue;
    for (const MetricComparison& m : bc.metrics) {
      if (!m.base.median || !m.next.median || *m.base.median <= 0 ||
          *m.next.median <= 0) {
        continue;
      }
      auto [it, inserted] = sums.try_emplace(m.metric, 0.0, 0);
      if (inserted) order.push_back(m.metric);
      it->second.first += std::log(*m.next.median / *m.base.median);
      ++it->second.second;
    }
  }
  for (const std::string& metric : order) {
    const auto& [sum, count] = sums[metric];
    out.geomean.push_back(GeomeanSummary{
        metric, count,
        (std::exp(sum / static_cast<double>(count)) - 1.0) * 100.0});
  }
  return out;
}

std::vector<BenchmarkMetrics> Summarize(const BenchmarkFile& file) {
  const FileIndex index = Index(file, {});
  std::vector<BenchmarkMetrics> out;
  out.reserve(index.groups.size());
  for (const Group& g : index.groups) {
    BenchmarkMetrics b;
    b.name = std::string(g.name);
    b.metrics = SideMetrics(file, g);
    if (b.metrics.empty()) b.problem = g.problem;
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<std::string> MetricNames(const Comparison& comparison) {
  std::vector<std::string> names = {std::string(kRealTime),
                                    std::string(kCpuTime), std::string(kIpc)};
  // Owns its keys: views into `names` would dangle when it reallocates.
  absl::flat_hash_map<std::string, bool> seen;
  for (const std::string& n : names) seen[n] = true;
  for (const BenchmarkComparison& bc : comparison.benchmarks) {
    for (const MetricComparison& m : bc.metrics) {
      if (seen.try_emplace(m.metric, true).second) names.push_back(m.metric);
    }
  }
  return names;
}

// ---- Gates.

bool Gate::Violated(double value) const {
  switch (op) {
    case Op::kLess:
      return value < threshold;
    case Op::kLessEqual:
      return value <= threshold;
    case Op::kGreater:
      return value > threshold;
    case Op::kGreaterEqual:
      return value >= threshold;
  }
  return false;
}

namespace {

// The canonical name of a known metric (exact, else case-insensitive when
// unique), or empty.
std::string FindMetric(absl::string_view name,
                       const std::vector<std::string>& known) {
  std::string found;
  int matches = 0;
  for (const std::string& k : known) {
    if (k == name) return k;
    if (absl::EqualsIgnoreCase(k, name)) {
      found = k;
      ++matches;
    }
  }
  return matches == 1 ? found : std::string();
}

constexpr absl::string_view kGateSyntax =
    "gate syntax: [FILTER:]METRIC OP VALUE, OP one of < <= > >=, VALUE a "
    "change in % (IPC<-2%, instructions>+0.5%) or an absolute limit "
    "(IPC<1.2, cpu_time>1.5ms)";

}  // namespace

absl::StatusOr<Gate> ParseGate(absl::string_view text,
                               const std::vector<std::string>& known_metrics) {
  Gate gate;
  gate.text = std::string(text);
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad gate '", text, "': ", why, "; ", kGateSyntax));
  };
  const size_t op_pos = text.find_first_of("<>");
  if (op_pos == absl::string_view::npos) return bad("no comparison < or >");
  absl::string_view left = absl::StripAsciiWhitespace(text.substr(0, op_pos));
  absl::string_view right = text.substr(op_pos + 1);
  const bool less = text[op_pos] == '<';
  bool or_equal = false;
  if (absl::ConsumePrefix(&right, "=")) or_equal = true;
  gate.op = less ? (or_equal ? Gate::Op::kLessEqual : Gate::Op::kLess)
                 : (or_equal ? Gate::Op::kGreaterEqual : Gate::Op::kGreater);
  right = absl::StripAsciiWhitespace(right);
  if (left.empty()) return bad("no metric before the comparison");
  if (right.empty()) return bad("no value after the comparison");

  // METRIC, or FILTER:METRIC (metric names may themselves contain ':').
  std::string metric = FindMetric(left, known_metrics);
  if (metric.empty()) {
    for (size_t p = left.find(':'); p != absl::string_view::npos;
         p = left.find(':', p + 1)) {
      metric = FindMetric(absl::StripAsciiWhitespace(left.substr(p + 1)),
                          known_metrics);
      if (!metric.empty()) {
        gate.filter_text = std::string(left.substr(0, p));
        break;
      }
    }
  }
  if (metric.empty()) {
    absl::string_view name = left;
    if (size_t p = left.rfind(':'); p != absl::string_view::npos &&
                                    FindMetric(left, known_metrics).empty()) {
      name = left.substr(p + 1);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "bad gate '", text, "': unknown metric '", name,
        "'; metrics in these files: ", absl::StrJoin(known_metrics, ", ")));
  }
  gate.metric = metric;
  if (gate.filter_text == "@geomean") {
    gate.geomean = true;
  } else if (!gate.filter_text.empty()) {
    absl::StatusOr<NameFilter> filter = NameFilter::Create(gate.filter_text);
    if (!filter.ok()) {
      return bad(
          absl::StrCat("the benchmark filter ", filter.status().message()));
    }
    gate.filter = *std::move(filter);
  }

  // VALUE: NUMBER% or NUMBER[UNIT].
  absl::string_view number = right;
  absl::string_view unit;
  if (absl::ConsumeSuffix(&number, "%")) {
    gate.relative = true;
  } else {
    size_t end = number.size();
    while (end > 0 &&
           (absl::ascii_isalpha(static_cast<unsigned char>(number[end - 1])) ||
            static_cast<unsigned char>(number[end - 1]) >= 0x80)) {
      --end;
    }
    unit = number.substr(end);
    number = absl::StripAsciiWhitespace(number.substr(0, end));
  }
  absl::string_view digits = number;
  absl::ConsumePrefix(&digits, "+");
  double value = 0;
  if (digits.empty() || !absl::SimpleAtod(digits, &value) ||
      !std::isfinite(value) ||
      absl::StrContains(absl::AsciiStrToLower(digits), "n")) {
    return bad(absl::StrCat("'", right, "' is not a finite number"));
  }
  if (gate.relative) {
    gate.threshold = value;
  } else if (gate.geomean) {
    return bad("@geomean gates compare changes; write the value in %");
  } else if (IsTimeMetric(metric)) {
    const std::string u = unit == "\xC2\xB5s" ? "us" : std::string(unit);
    const std::optional<double> scale = NanosecondsPer(u);
    if (!scale) {
      return bad(absl::StrCat(
          metric, " needs a unit: ns, us, ms or s (e.g. ", metric, ">1.5ms)",
          unit.empty() ? "" : absl::StrCat(", not '", unit, "'")));
    }
    gate.threshold = value * *scale;
  } else {
    if (!unit.empty()) {
      return bad(absl::StrCat("unit '", unit, "' given for ", metric,
                              ", which has none (units are for real_time "
                              "and cpu_time)"));
    }
    gate.threshold = value;
  }
  return gate;
}

std::vector<GateResult> EvaluateGates(const Comparison& comparison,
                                      const std::vector<Gate>& gates) {
  std::vector<GateResult> results;
  for (const Gate& gate : gates) {
    GateResult r;
    r.gate = gate.text;
    if (gate.geomean) {
      bool found = false;
      for (const GeomeanSummary& g : comparison.geomean) {
        if (g.metric != gate.metric) continue;
        found = true;
        ++r.checked;
        if (gate.Violated(g.change_pct)) {
          r.violations.push_back({"@geomean", g.metric, g.change_pct});
        }
      }
      if (!found) {
        r.not_evaluated.push_back(
            {"@geomean", absl::StrCat("no benchmark has ", gate.metric,
                                      " counted on both sides")});
      }
      results.push_back(std::move(r));
      continue;
    }
    for (const BenchmarkComparison& bc : comparison.benchmarks) {
      if (gate.filter && !gate.filter->Matches(bc.name)) continue;
      if (bc.pairing == Pairing::kBaseOnly && gate.relative) {
        r.not_evaluated.push_back({bc.name, "only in the base file"});
        continue;
      }
      if (bc.pairing == Pairing::kNewOnly && gate.relative) {
        r.not_evaluated.push_back({bc.name, "only in the new file"});
        continue;
      }
      if (bc.pairing == Pairing::kBaseOnly) {
        r.not_evaluated.push_back({bc.name, "not in the new file"});
        continue;
      }
      const MetricComparison* m = nullptr;
      for (const MetricComparison& x : bc.metrics) {
        if (x.metric == gate.metric) m = &x;
      }
      auto side_reason = [&](const SideStats& s, const char* side,
                             const std::string& problem) {
        if (!problem.empty()) return absl::StrCat(side, ": ", problem);
        return absl::StrCat(gate.metric,
                            s.present ? " not counted in " : " absent from ",
                            side);
      };
      if (m == nullptr) {
        r.not_evaluated.push_back(
            {bc.name,
             !bc.next_problem.empty()
                 ? absl::StrCat("new: ", bc.next_problem)
                 : absl::StrCat(gate.metric, " absent from both files")});
        continue;
      }
      if (!m->next.median) {
        r.not_evaluated.push_back(
            {bc.name, side_reason(m->next, "new", bc.next_problem)});
        continue;
      }
      if (gate.relative && !m->base.median) {
        r.not_evaluated.push_back(
            {bc.name, side_reason(m->base, "base", bc.base_problem)});
        continue;
      }
      const double value = gate.relative ? *m->change_pct : *m->next.median;
      ++r.checked;
      if (gate.Violated(value)) {
        r.violations.push_back({bc.name, gate.metric, value});
      }
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace perfcounters::tools
