// compare_json.cc: the JSON output of `perfcounters compare` (see
// compare.h): every sample, median, change, p-value and evidence, the gate
// results with their statuses, input warnings, and the exit code.
#include <cmath>
#include <string>
#include <vector>

#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "compare_output_internal.h"
#include "counting_source.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools::compare_internal {
namespace {

nlohmann::ordered_json SideJson(const SideStats& s) {
  nlohmann::ordered_json j;
  j["present"] = s.present;
  j["counted"] = s.median.has_value();
  j["median"] = s.median ? nlohmann::ordered_json(*s.median) : nullptr;
  j["samples"] = s.samples.ToVector();
  j["not_counted"] = s.not_counted;
  j["from_aggregate"] = s.from_aggregate;
  // Multiplexing: the lowest coverage and fewest intervals (absent: on the
  // PMU the whole time / not few), and whether the median is an estimate.
  if (s.coverage) j["coverage"] = *s.coverage;
  if (s.mux_intervals) j["mux_intervals"] = *s.mux_intervals;
  j["estimated"] = Flagged(s);
  return j;
}

const char* PairingName(Pairing p) {
  switch (p) {
    case Pairing::kBoth:
      return "both";
    case Pairing::kBaseOnly:
      return "base_only";
    case Pairing::kNewOnly:
      return "new_only";
  }
  return "?";
}

const char* EvidenceName(Evidence e) {
  switch (e) {
    case Evidence::kNone:
      return "none";
    case Evidence::kOneSample:
      return "one_sample";
    case Evidence::kExact:
      return "exact";
    case Evidence::kUTest:
      return "u_test";
    case Evidence::kPaired:
      return "paired_sign_test";
  }
  return "?";
}

nlohmann::ordered_json ViolationJson(const GateViolation& v) {
  using json = nlohmann::ordered_json;
  json x = {{"benchmark", v.benchmark},
            {"metric", v.metric},
            {"value", std::isfinite(v.value) ? json(v.value)
                                             : json(FormatChange(v.value))}};
  if (v.evidence != Evidence::kNone) {
    x["evidence"] = EvidenceName(v.evidence);
    x["p_value"] = v.p ? json(*v.p) : json(nullptr);
    if (v.min_p > 0) x["min_possible_p"] = v.min_p;
  }
  x["estimated"] = v.estimated;
  return x;
}

nlohmann::ordered_json BenchmarkJson(const Comparison& c,
                                     const BenchmarkComparison& bc,
                                     const RenderOptions& options) {
  using json = nlohmann::ordered_json;
  json b;
  b["name"] = bc.name;
  b["in"] = PairingName(bc.pairing);
  if (!bc.base_problem.empty()) b["base_problem"] = bc.base_problem;
  if (!bc.next_problem.empty()) b["new_problem"] = bc.next_problem;
  json& metrics = b["metrics"] = json::array();
  for (const MetricComparison& m : bc.metrics) {
    json x;
    x["metric"] = m.metric;
    // Measured, simulated, or a cost model's estimate (counting_source.h).
    x["value_kind"] = ValueKindName(KindOfValue(m.metric, c.simulated));
    x["base"] = SideJson(m.base);
    x["new"] = SideJson(m.next);
    if (m.change_pct && std::isfinite(*m.change_pct)) {
      x["change_pct"] = *m.change_pct;
    } else {
      x["change_pct"] = nullptr;
      if (m.change_pct) x["change"] = FormatChange(m.change_pct);
    }
    x["p_value"] = m.p_value ? json(*m.p_value) : json(nullptr);
    x["p_method"] = m.p_method == PMethod::kExact    ? "exact"
                    : m.p_method == PMethod::kNormal ? "normal"
                                                     : "none";
    x["evidence"] = EvidenceName(m.evidence);
    if (m.paired_low && m.paired_high) {
      x["paired_ratio_interval"] = {*m.paired_low, *m.paired_high};
    }
    x["significant"] = Significant(m, options.alpha);
    metrics.push_back(std::move(x));
  }
  return b;
}

// `j` as indented text (2 spaces a level), every line indented by `indent`
// more. Names and gate texts need not be UTF-8: invalid bytes become U+FFFD
// instead of throwing; control bytes are escaped (\u001b) by the dump.
std::string Dump(const nlohmann::ordered_json& j, size_t indent) {
  std::string text =
      j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  if (indent == 0) return text;
  const std::string pad(indent, ' ');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  out += pad;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;  // strings have their newlines escaped
  }
  return out;
}

}  // namespace

void RenderJson(const Comparison& c, const std::vector<GateResult>& gates,
                const RenderOptions& options, const TextWriter& write) {
  using json = nlohmann::ordered_json;
  json root;
  root["base"] = c.base_source;
  root["new"] = c.next_source;
  root["counting_source"] = c.simulated ? "simulate" : "pmu";
  if (c.simulated) root["source_description"] = c.source_description;
  const int code = ExitCode(gates);
  root["exit_code"] = code;
  root["passed"] = code == 0;
  root["verdict"] = gates.empty() ? "no gates" : VerdictText(gates);
  root["alpha"] = options.alpha;
  root["one_sample_comparisons"] = OneSampleCount(c);
  root["warnings"] = options.warnings;
  json& jg = root["gates"] = json::array();
  for (const GateResult& g : gates) {
    json x;
    x["gate"] = g.gate;
    x["status"] = StatusName(g.status);
    x["passed"] = g.status == GateStatus::kPassed;
    if (!g.message.empty()) x["message"] = g.message;
    x["matched"] = g.matched;
    x["checked"] = g.checked;
    x["one_sample"] = g.one_sample;
    x["estimated"] = g.estimated;
    json& v = x["violations"] = json::array();
    for (const GateViolation& viol : g.violations) {
      v.push_back(ViolationJson(viol));
    }
    json& ns = x["not_significant"] = json::array();
    for (const GateViolation& viol : g.not_significant) {
      ns.push_back(ViolationJson(viol));
    }
    json& ne = x["not_evaluated"] = json::array();
    for (const GateSkip& s : g.not_evaluated) {
      ne.push_back({{"benchmark", s.benchmark}, {"reason", s.reason}});
    }
    jg.push_back(std::move(x));
  }
  json& geo = root["geomean"] = json::array();
  for (const GeomeanSummary& g : c.geomean) {
    geo.push_back(
        {{"metric", g.metric},
         {"value_kind", ValueKindName(KindOfValue(g.metric, c.simulated))},
         {"benchmarks", g.benchmarks},
         {"change_pct", g.change_pct}});
  }
  // The benchmarks are written one at a time after the rest, so that the
  // output's tree never holds more than one benchmark (a whole tree takes
  // many times the text's size).
  if (c.profiles.sides != ProfileSides::kNone) {
    root["profiles"] = ProfileJson(c.profiles);
  }
  root["benchmarks"] = json::array();
  std::string out = Dump(root, 0);
  if (c.benchmarks.empty()) {
    write(out + "\n");
    return;
  }
  // The dump ends with the empty array: `[]` and the closing brace.
  out.resize(out.size() - 4);
  out += "[\n";
  write(out);
  for (size_t i = 0; i < c.benchmarks.size(); ++i) {
    out = i > 0 ? ",\n" : "";
    out += Dump(BenchmarkJson(c, c.benchmarks[i], options), 4);
    write(out);
  }
  write("\n  ]\n}\n");
}

}  // namespace perfcounters::tools::compare_internal
