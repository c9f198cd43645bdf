// stat_output.cc: writes a StatResult (stat.h) as perf 6.1 writes its
// counts: the table, the -x CSV lines, the -j JSON lines, and our --json
// object. Units, value formats and derived metrics follow perf's
// stat-display.c and stat-shadow.c: time events in msec, duration_time in
// ns, "CPUs utilized" for task-clock, "GHz" for cycles, every other event
// per second of task-clock, and the core library's table of derived metrics
// (metrics.h: IPC as "insn per cycle", miss rates as "% of all branches",
// ...) on the numerator's line, the table's others (cpi, topdown) on
// perf's extra metric lines.
#include <linux/perf_event.h>

#include <cmath>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "perfcounters/counters.h"
#include "perfcounters/metrics.h"
#include "perfcounters/plan.h"
#include "stat.h"

namespace perfcounters::tools {
namespace {

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Relative standard error of the mean in %, perf's "( +- x% )" and the
// CSV variance field.
double SpreadPct(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return m == 0 ? 0 : sd / std::sqrt(static_cast<double>(v.size())) / m * 100;
}

// perf's "  ( +-  x.xx% )" after a value of several runs; nothing for one
// run or no spread at all, as perf.
void AppendNoise(std::string& out, const StatResult& r, double pct) {
  if (r.runs_done > 1 && pct != 0) {
    absl::StrAppendFormat(&out, "  ( +-%6.2f%% )", pct);
  }
}

bool IsSoftware(const StatSeries& s, uint64_t config) {
  return !s.duration_time && s.spec.attr.type == PERF_TYPE_SOFTWARE &&
         s.spec.attr.config == config;
}

bool IsClock(const StatSeries& s) {
  return IsSoftware(s, PERF_COUNT_SW_TASK_CLOCK) ||
         IsSoftware(s, PERF_COUNT_SW_CPU_CLOCK);
}

bool IsHardware(const StatSeries& s, uint64_t config) {
  return s.spec.attr.type == PERF_TYPE_HARDWARE &&
         (s.spec.attr.config & 0xffffffff) == config;
}

// How a series' values are shown: multiplied by `factor`, in `unit`.
struct Display {
  double factor = 1;
  std::string unit;
  bool fractional = false;  // "%.2f" (perf: a non-integer scale) or "%.0f"
};

Display DisplayOf(const StatSeries& s) {
  Display d;
  if (IsClock(s)) {
    d.factor = 1e-6;
    d.unit = "msec";
  } else if (s.duration_time) {
    d.unit = "ns";
  } else if (s.estimate) {
    d.unit = "estimate";
  } else {
    d.unit = s.spec.unit;
  }
  const double scale = s.spec.scale * d.factor;
  d.fractional = s.fractional || std::floor(scale) != scale;
  return d;
}

std::string Value(const StatSeries& s) {
  const Display d = DisplayOf(s);
  const double v = Mean(s.values) * d.factor;
  return d.fractional ? absl::StrFormat("%.2f", v) : absl::StrFormat("%.0f", v);
}

// A metric as stat shows it: perf's number and unit.
struct Shown {
  bool present = false;
  double value = 0;
  int decimals = 3;
  std::string unit;
  bool percent = false;    // shown as "x%" in the table
  bool text_only = false;  // no number: `unit` is the whole comment
};

// A metric of the table (metrics.h) whose inputs are both series of the
// result, computed from their means by the library (ComputeMetrics).
struct Derived {
  DerivedMetric inputs;
  MetricValue value;
};

// Every metric of the table whose inputs stat counted (MatchMetrics over
// the series' labels), in table order; `value.counted` is false where an
// input was not counted or the denominator is 0.
std::vector<Derived> DerivedOf(const StatResult& r) {
  std::vector<std::string> labels;
  std::vector<perfcounters::CounterValue> values;
  for (const StatSeries& s : r.series) {
    labels.push_back(s.spec.label);
    perfcounters::CounterValue& v = values.emplace_back();
    v.label = s.spec.label;
    v.counted = s.unsupported.empty() && !s.values.empty();
    v.value = v.counted ? Mean(s.values) : 0;
  }
  std::vector<Derived> out;
  for (DerivedMetric& d : MatchMetrics(labels)) {
    std::vector<MetricValue> v = ComputeMetrics({d}, values);
    if (v.empty()) continue;
    out.push_back({std::move(d), std::move(v.front())});
  }
  return out;
}

// How a table metric is shown: with perf's comment ("insn per cycle",
// "12.34% of all branches") where perf stat has one, else under its name
// ("0.812 cpi").
Shown ShownOf(const Derived& d) {
  const Metric& m = *d.inputs.metric;
  if (m.perf_stat.empty()) {
    return Shown{true, d.value.value, 3, d.value.name, false};
  }
  // perf's stat-shadow.c: "%8.3f %%" for cache misses, else 2 decimals.
  const int decimals = m.name == "cache-miss-rate" ? 3 : 2;
  return Shown{true, d.value.value * (m.percent ? 100 : 1), decimals,
               std::string(m.perf_stat), m.percent};
}

const StatSeries* FindCounted(const StatResult& r,
                              bool (*match)(const StatSeries&)) {
  for (const StatSeries& s : r.series) {
    if (!s.values.empty() && match(s)) return &s;
  }
  return nullptr;
}

// The metrics of `s`'s line: the first (perf's comment column) and the
// table's other metrics with `s` as numerator (perf's extra metric lines).
struct SeriesMetrics {
  Shown first;
  std::vector<Shown> more;
};

SeriesMetrics MetricsOf(const StatSeries& s, const StatResult& r,
                        const std::vector<Derived>& derived) {
  SeriesMetrics out;
  if (s.values.empty()) return out;
  if (s.estimate) {
    out.first = Shown{true, 0, 0, "a cost model, not measured"};
    out.first.text_only = true;
    return out;
  }
  const double mean = Mean(s.values);
  // The table's metrics of this line; the first with perf's comment is
  // the line's own.
  for (const Derived& d : derived) {
    if (d.inputs.numerator != s.spec.label || !d.value.counted) continue;
    Shown shown = ShownOf(d);
    if (!out.first.present && !d.inputs.metric->perf_stat.empty()) {
      out.first = std::move(shown);
    } else {
      out.more.push_back(std::move(shown));
    }
  }
  if (out.first.present) return out;
  const double wall_ns = Mean(r.seconds) * 1e9;
  const StatSeries* clock = FindCounted(r, IsClock);
  const double nsecs = clock != nullptr ? Mean(clock->values) : 0;
  if (IsClock(s)) {
    if (wall_ns > 0)
      out.first = Shown{true, mean / wall_ns, 3, "CPUs utilized"};
  } else if (IsHardware(s, PERF_COUNT_HW_CPU_CYCLES) && nsecs > 0) {
    out.first = Shown{true, mean / nsecs, 3, "GHz"};
  } else if (nsecs > 0) {
    // perf: any other event, per second of task-clock, with K/M/G.
    double rate = 1e9 * mean / nsecs;
    std::string unit = "/sec";
    for (const auto& [limit, prefix] :
         {std::pair{1e9, "G"}, std::pair{1e6, "M"}, std::pair{1e3, "K"}}) {
      if (rate > limit) {
        rate /= limit;
        unit = absl::StrCat(prefix, "/sec");
        break;
      }
    }
    out.first = Shown{true, rate, 3, unit};
  }
  return out;
}

std::string MetricNumber(const Shown& m) {
  return absl::StrFormat("%.*f", m.decimals, m.value);
}

// The table's comment column: "#  1.23 insn per cycle", "#  4.56% of all
// branches".
std::string Comment(const Shown& m) {
  if (m.text_only) return absl::StrCat("#  ", m.unit);
  return absl::StrCat("#  ", MetricNumber(m), m.percent ? "% " : " ", m.unit);
}

// Why `s` (never counted) was not counted, when it is known: a `{}` group
// whose events were all opened but never ran could not be scheduled.
std::string NotCountedWhy(const StatSeries& s, const StatResult& r) {
  if (s.group < 0) return "";
  int size = 0;
  for (const StatSeries& o : r.series) {
    if (o.group != s.group) continue;
    if (!o.unsupported.empty() || !o.values.empty()) return "";
    ++size;
  }
  return absl::StrCat("group of ", size,
                      " never scheduled: more events than the PMU has "
                      "counters for them?");
}

double RunningPct(const StatSeries& s) {
  if (!s.unsupported.empty()) return 100;  // perf: enabled == running == 0
  return s.values.empty() ? 0 : Mean(s.coverages) * 100;
}

std::string StatusValue(const StatSeries& s) {
  return !s.unsupported.empty() ? "<not supported>"
         : s.values.empty()     ? "<not counted>"
                                : Value(s);
}

}  // namespace

std::string FormatStatCsv(const StatResult& r, const std::string& x) {
  std::string out;
  const std::vector<Derived> derived = DerivedOf(r);
  for (const StatSeries& s : r.series) {
    const SeriesMetrics metrics = MetricsOf(s, r, derived);
    const Shown& m = metrics.first;
    const bool shown = m.present && !m.text_only;
    // perf writes the unit for <not counted>/<not supported> lines too.
    absl::StrAppend(&out, StatusValue(s), x, DisplayOf(s).unit, x,
                    s.spec.label);
    if (r.runs_done > 1) {
      absl::StrAppendFormat(&out, "%s%.2f%%", x, SpreadPct(s.values));
    }
    absl::StrAppendFormat(&out, "%s%.0f%s%.2f%s%s%s%s\n", x,
                          s.values.empty() ? 0.0 : Mean(s.running_ns), x,
                          RunningPct(s), x, shown ? MetricNumber(m) : "", x,
                          shown ? m.unit : "");
    // perf's extra metric line: three empty fields, value, unit.
    for (const Shown& more : metrics.more) {
      absl::StrAppend(&out, x, x, x, MetricNumber(more), x, more.unit, "\n");
    }
  }
  return out;
}

std::string FormatStatJsonLines(const StatResult& r) {
  std::string out;
  const std::vector<Derived> derived = DerivedOf(r);
  for (const StatSeries& s : r.series) {
    const SeriesMetrics metrics = MetricsOf(s, r, derived);
    const Shown& m = metrics.first;
    std::string value =
        s.values.empty()
            ? StatusValue(s)
            : absl::StrFormat("%f", Mean(s.values) * DisplayOf(s).factor);
    absl::StrAppend(&out, "{\"counter-value\" : ", nlohmann::json(value).dump(),
                    ", \"unit\" : ", nlohmann::json(DisplayOf(s).unit).dump(),
                    ", \"event\" : ", nlohmann::json(s.spec.label).dump());
    if (r.runs_done > 1) {
      absl::StrAppendFormat(&out, ", \"variance\" : %.2f", SpreadPct(s.values));
    }
    absl::StrAppendFormat(
        &out, ", \"event-runtime\" : %.0f, \"pcnt-running\" : %.2f",
        s.values.empty() ? 0.0 : Mean(s.running_ns), RunningPct(s));
    if (m.present && !m.text_only) {
      absl::StrAppendFormat(
          &out, ", \"metric-value\" : %f, \"metric-unit\" : ", m.value);
      absl::StrAppend(&out, nlohmann::json(m.unit).dump());
    }
    out += "}\n";
    // perf's extra metric line: an object with the metric only.
    for (const Shown& more : metrics.more) {
      absl::StrAppendFormat(
          &out, "{\"metric-value\" : %f, \"metric-unit\" : ", more.value);
      absl::StrAppend(&out, nlohmann::json(more.unit).dump(), "}\n");
    }
  }
  return out;
}

std::string FormatStatJson(const StatResult& r) {
  nlohmann::ordered_json j;
  j["command"] = r.command;
  j["runs"] = r.runs_done;
  if (r.runs_done != r.runs_asked) j["runs_asked"] = r.runs_asked;
  if (r.interrupted_by != 0) {
    j["interrupted_by"] = strsignal(r.interrupted_by);
  }
  if (r.term_signal != 0) {
    j["term_signal"] = r.term_signal;
    j["term_signal_name"] = strsignal(r.term_signal);
  }
  j["exit_code"] = r.ExitCode();
  if (!r.source.empty()) j["source"] = r.source;
  j["seconds_elapsed"] = Mean(r.seconds);
  j["seconds_elapsed_spread_pct"] = SpreadPct(r.seconds);
  nlohmann::ordered_json& ev = j["events"] = nlohmann::ordered_json::array();
  const std::vector<Derived> derived = DerivedOf(r);
  for (const StatSeries& s : r.series) {
    nlohmann::ordered_json e;
    e["event"] = s.spec.label;
    if (s.estimate) e["estimate"] = true;
    if (s.group >= 0) e["group"] = s.group;
    if (s.user_only_fallback) e["user_only_fallback"] = true;
    if (!s.unsupported.empty()) {
      e["status"] = "not supported";
      e["reason"] = s.unsupported;
    } else if (s.values.empty()) {
      e["status"] = "not counted";
      if (const std::string why = NotCountedWhy(s, r); !why.empty()) {
        e["reason"] = why;
      }
    } else {
      const Display d = DisplayOf(s);
      e["status"] = "counted";
      e["value"] = Mean(s.values) * d.factor;
      if (!d.unit.empty()) e["unit"] = d.unit;
      e["spread_pct"] = SpreadPct(s.values);
      e["running_pct"] = RunningPct(s);
      e["running_ns"] = Mean(s.running_ns);
      if (const Shown m = MetricsOf(s, r, derived).first;
          m.present && !m.text_only) {
        e["metric_value"] = m.value;
        e["metric_unit"] = m.unit;
      }
    }
    if (s.not_counted > 0 && !s.values.empty()) {
      e["runs_not_counted"] = s.not_counted;
    }
    ev.push_back(std::move(e));
  }
  // The table's metrics whose inputs were both counted, as ratios.
  nlohmann::ordered_json& metrics = j["metrics"] =
      nlohmann::ordered_json::array();
  for (const Derived& d : derived) {
    nlohmann::ordered_json m;
    m["metric"] = d.value.name;
    m["formula"] =
        absl::StrCat(d.inputs.numerator, " / ", d.inputs.denominator);
    m["unit"] = std::string(d.inputs.metric->unit);
    if (d.value.counted) {
      m["status"] = "counted";
      m["value"] = d.value.value;
    } else {
      m["status"] = "not counted";
      m["reason"] = "an input was not counted or the denominator is 0";
    }
    metrics.push_back(std::move(m));
  }
  return j.dump(2) + "\n";
}

std::string FormatStatTable(const StatResult& r) {
  std::string out = absl::StrCat(
      "\n Performance counter stats for '", absl::StrJoin(r.command, " "), "'",
      r.runs_done > 1 ? absl::StrCat(" (", r.runs_done, " runs)") : "",
      ":\n\n");
  if (!r.source.empty()) {
    absl::StrAppend(&out, "  counted by the simulator, not the PMU (", r.source,
                    "); estimates are marked\n\n");
  }
  const std::vector<Derived> derived = DerivedOf(r);
  for (const StatSeries& s : r.series) {
    if (!s.unsupported.empty()) {
      absl::StrAppendFormat(&out, "%20s      %-24s  (%s)\n", "<not supported>",
                            s.spec.label, s.unsupported);
      continue;
    }
    if (s.values.empty()) {
      const std::string why = NotCountedWhy(s, r);
      absl::StrAppendFormat(&out, "%20s      %-24s%s\n", "<not counted>",
                            s.spec.label, why.empty() ? "" : "  (" + why + ")");
      continue;
    }
    const Display d = DisplayOf(s);
    std::string value = Value(s);
    if (!d.unit.empty()) absl::StrAppend(&value, " ", d.unit);
    const SeriesMetrics metrics = MetricsOf(s, r, derived);
    const Shown& m = metrics.first;
    std::string metric;
    if (m.present) metric = Comment(m);
    absl::StrAppendFormat(&out, "%20s      %-24s %-28s", value, s.spec.label,
                          metric);
    AppendNoise(out, r, SpreadPct(s.values));
    const double running = RunningPct(s);
    if (running < 99.995) absl::StrAppendFormat(&out, "  (%.2f%%)", running);
    if (s.not_counted > 0) {
      absl::StrAppend(&out, "  (not counted in ", s.not_counted, " of ",
                      r.runs_done, " runs)");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    // perf's extra metric lines, in the comment column.
    for (const Shown& more : metrics.more) {
      absl::StrAppendFormat(&out, "%51s%s\n", "", Comment(more));
    }
  }
  // perf's footer: with one run the elapsed, user and system time; with
  // more the elapsed mean and its standard error.
  const double elapsed = Mean(r.seconds);
  // Under the simulator the times are valgrind's, never the command's own.
  const char* under = r.source.empty() ? "" : " under valgrind";
  if (r.runs_done > 1) {
    const double pct = SpreadPct(r.seconds);
    absl::StrAppendFormat(&out, "\n %18.9f +- %.9f seconds time elapsed%s",
                          elapsed, elapsed * pct / 100, under);
    AppendNoise(out, r, pct);
    absl::StrAppend(&out, "\n\n");
  } else {
    absl::StrAppendFormat(&out,
                          "\n %18.9f seconds time elapsed%s\n\n %18.9f "
                          "seconds user%s\n %18.9f seconds sys%s\n\n",
                          elapsed, under, r.user_seconds, under, r.sys_seconds,
                          under);
  }
  if (r.term_signal != 0) {
    absl::StrAppend(&out, " Command terminated by signal ", r.term_signal, " (",
                    strsignal(r.term_signal), ")\n\n");
  } else if (r.exit_status != 0) {
    absl::StrAppend(&out, " Command exited with status ", r.exit_status,
                    "\n\n");
  }
  return out;
}

std::string StatNotes(const StatResult& r) {
  std::string out;
  std::vector<std::string> fell_back;
  for (const StatSeries& s : r.series) {
    if (s.user_only_fallback) fell_back.push_back(s.spec.label);
  }
  if (!fell_back.empty()) {
    absl::StrAppend(
        &out,
        "perfcounters stat: kernel.perf_event_paranoid=", r.fallback_paranoid,
        " and no CAP_PERFMON: counting user space only (as perf stat does) "
        "for ",
        absl::StrJoin(fell_back, ", "),
        "; to count the kernel too, run `sysctl kernel.perf_event_paranoid=1` "
        "or grant CAP_PERFMON\n");
  }
  if (r.interrupted_by != 0) {
    absl::StrAppend(
        &out, "perfcounters stat: interrupted by ", strsignal(r.interrupted_by),
        " (signal ", r.interrupted_by, ") in run ", r.runs_done, " of ",
        r.runs_asked, ": the counts cover ", r.runs_done,
        r.runs_done == 1 ? " run" : " runs", ", the last one cut short\n");
  }
  return out;
}

}  // namespace perfcounters::tools
