// ab_output.cc: `perfcounters ab`'s result as a table or as JSON (ab.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "ab.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "input_text.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {
namespace {

// "higher", "lower", "no difference" (the interval contains 1), or why
// there is no interval.
std::string Verdict(const AbMetric& m) {
  const PairedInterval& in = m.interval;
  if (m.base.empty()) return "not counted";
  if (m.no_ratio > 0) return "no ratio: 0 or below on one side";
  if (m.zero_both == m.base.size()) return "0 on both sides: unchanged";
  if (!in.valid) return "too few pairs";
  if (in.low > 0) return "higher";
  if (in.high < 0) return "lower";
  return "no difference";
}

}  // namespace

std::string AbTable(const AbResult& result) {
  std::string out = absl::StrFormat(
      "ab: new/base per benchmark and metric, the median of the paired "
      "ratios with its %.0f %% sign-test interval; %d rounds (ABBA), stop "
      "at an interval of %s narrower than %.2g %%\n",
      result.confidence * 100, result.rounds, result.metric,
      result.precision * 100);
  size_t width = 9;
  for (const AbBenchmark& b : result.benchmarks) {
    width = std::max(width, std::min<size_t>(b.name.size(), 60));
  }
  absl::StrAppend(&out, absl::StrFormat("%-*s  %-16s %6s  %8s  %-19s %s\n",
                                        width, "benchmark", "metric", "pairs",
                                        "new/base", "interval", "verdict"));
  for (const AbBenchmark& b : result.benchmarks) {
    for (const AbMetric& m : b.metrics) {
      const PairedInterval& in = m.interval;
      const std::string ratio =
          in.n ? absl::StrFormat("%.4f", std::exp(in.median)) : "-";
      const std::string interval =
          in.valid ? absl::StrFormat("[%.4f, %.4f]", std::exp(in.low),
                                     std::exp(in.high))
                   : "-";
      absl::StrAppend(
          &out,
          absl::StrFormat("%-*s  %-16s %6d  %8s  %-19s %s\n", width,
                          EscapeControlBytes(ShortForMessage(b.name, 60)),
                          EscapeControlBytes(ShortForMessage(m.metric, 16)),
                          m.base.size(), ratio, interval, Verdict(m)));
    }
  }
  for (const AbBenchmark& b : result.benchmarks) {
    if (b.stopped != "max-rounds") continue;
    bool interval = false;
    for (const AbMetric& m : b.metrics) {
      if (m.metric == result.metric) interval = m.interval.valid;
    }
    absl::StrAppend(
        &out,
        interval
            ? absl::StrFormat("note: %s reached the most rounds (%d) with its "
                              "%s interval wider than %.2g %%\n",
                              EscapeControlBytes(ShortForMessage(b.name, 60)),
                              b.rounds, result.metric, result.precision * 100)
            : absl::StrFormat("note: %s reached the most rounds (%d) without "
                              "a %s interval (too few pairs)\n",
                              EscapeControlBytes(ShortForMessage(b.name, 60)),
                              b.rounds, result.metric));
  }
  return out;
}

std::string AbJson(const AbResult& result) {
  nlohmann::json out = nlohmann::json::object();
  out["rounds"] = result.rounds;
  out["order"] = "ABBA";
  out["confidence"] = result.confidence;
  out["precision"] = result.precision;
  out["stop_metric"] = result.metric;
  out["interval_method"] = "sign test on the paired log-ratios";
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const AbBenchmark& b : result.benchmarks) {
    nlohmann::json jb = nlohmann::json::object();
    jb["name"] = b.name;
    jb["rounds"] = b.rounds;
    jb["stopped"] = b.stopped;
    nlohmann::json metrics = nlohmann::json::array();
    for (const AbMetric& m : b.metrics) {
      const PairedInterval& in = m.interval;
      nlohmann::json jm = nlohmann::json::object();
      jm["metric"] = m.metric;
      jm["pairs"] = m.base.size();
      jm["zero_both"] = m.zero_both;
      jm["no_ratio"] = m.no_ratio;
      jm["base"] = m.base;
      jm["new"] = m.next;
      if (in.n) jm["ratio"] = std::exp(in.median);
      if (in.valid) {
        jm["low"] = std::exp(in.low);
        jm["high"] = std::exp(in.high);
        jm["coverage"] = in.coverage;
      }
      jm["p"] = in.p;
      jm["verdict"] = Verdict(m);
      metrics.push_back(std::move(jm));
    }
    jb["metrics"] = std::move(metrics);
    benchmarks.push_back(std::move(jb));
  }
  out["benchmarks"] = std::move(benchmarks);
  return out.dump(2) + "\n";
}

}  // namespace perfcounters::tools
