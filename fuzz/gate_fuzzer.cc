// gate_fuzzer.cc: libFuzzer target for the `perfcounters compare` gate parser
// (tools/compare.h, ParseGate). Arbitrary text is parsed as a gate against
// the metrics of a fixed comparison of two small gbench files; a gate that
// parses is evaluated on that comparison (the first input byte picks alpha,
// --fail-on-missing, --allow-unchecked-gates and the output options) and
// rendered. Invariant: the exit code agrees with what the gate found.
//
// Gates are command-line arguments, so inputs are capped at 256 bytes. The
// FILTER part is an RE2 expression (tools/name_filter.h), matched in linear
// time: any input must finish at once (std::regex once timed out here).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "gbench_json.h"

namespace {

using perfcounters::tools::Comparison;

constexpr absl::string_view kBase = R"({"context": {},
  "benchmarks": [
    {"name": "BM_a/1", "run_name": "BM_a/1", "run_type": "iteration",
     "repetition_index": 0, "iterations": 10, "real_time": 10,
     "cpu_time": 9, "time_unit": "ns", "cycles:u": 100, "instructions": 200},
    {"name": "BM_a/1", "run_name": "BM_a/1", "run_type": "iteration",
     "repetition_index": 1, "iterations": 10, "real_time": 11,
     "cpu_time": 10, "time_unit": "ns", "cycles:u": 110, "instructions": 200},
    {"name": "BM_b", "run_name": "BM_b", "run_type": "iteration",
     "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "ms",
     "cache-misses": NaN}
  ]})";
constexpr absl::string_view kNext = R"({"context": {},
  "benchmarks": [
    {"name": "BM_a/1", "run_name": "BM_a/1", "run_type": "iteration",
     "repetition_index": 0, "iterations": 10, "real_time": 12,
     "cpu_time": 11, "time_unit": "ns", "cycles:u": 130, "instructions": 200},
    {"name": "BM_a/1", "run_name": "BM_a/1", "run_type": "iteration",
     "repetition_index": 1, "iterations": 10, "real_time": 13,
     "cpu_time": 12, "time_unit": "ns", "cycles:u": 120, "instructions": 201},
    {"name": "BM_b", "run_name": "BM_b", "run_type": "iteration",
     "iterations": 1, "real_time": 0, "cpu_time": 2, "time_unit": "us",
     "cache-misses": 5}
  ]})";

const Comparison* comparison = nullptr;
const std::vector<std::string>* metrics = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto base = perfcounters::tools::ParseBenchmarkJson(kBase, "base.json");
  auto next = perfcounters::tools::ParseBenchmarkJson(kNext, "next.json");
  if (!base.ok() || !next.ok()) std::abort();
  comparison = new Comparison(perfcounters::tools::Compare(*base, *next));
  metrics = new std::vector<std::string>(
      perfcounters::tools::MetricNames(*comparison));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256 || size == 0) return 0;
  // The first byte picks the options; the rest is the gate.
  const uint8_t flags = data[0];
  const absl::string_view text(reinterpret_cast<const char*>(data) + 1,
                               size - 1);
  absl::StatusOr<perfcounters::tools::Gate> gate =
      perfcounters::tools::ParseGate(text, *metrics);
  if (!gate.ok()) {
    if (gate.status().message().empty()) std::abort();
    return 0;
  }
  perfcounters::tools::GateOptions options;
  options.alpha = (flags & 1) ? 0.5 : 0.05;
  options.fail_on_missing = (flags & 2) != 0;
  options.allow_unchecked = (flags & 4) != 0;
  const std::vector<perfcounters::tools::GateResult> results =
      perfcounters::tools::EvaluateGates(*comparison, {*gate}, options);
  if (results.size() != 1) std::abort();
  // One verdict: the status agrees with what was found.
  const perfcounters::tools::GateResult& r = results[0];
  const int code = perfcounters::tools::ExitCode(results);
  if (r.matched == 0 && code != 2) std::abort();
  if (!r.violations.empty() && code == 0) std::abort();
  // A gate that checked nothing is an error (2), never a pass; with
  // --fail-on-missing, one that left benchmarks unevaluated failed (1).
  const bool missing_fails =
      options.fail_on_missing && !r.not_evaluated.empty();
  if (r.checked == 0 && !options.allow_unchecked &&
      code != (missing_fails ? 1 : 2)) {
    std::abort();
  }
  perfcounters::tools::RenderOptions render;
  render.format = static_cast<perfcounters::tools::Format>((flags >> 3) % 3);
  render.only_changed = (flags & 0x20) != 0;
  render.max_rows = (flags & 0x40) ? 1 : 0;
  render.max_chars = (flags & 0x80) ? 600 : render.max_chars;
  const std::string out =
      perfcounters::tools::Render(*comparison, results, render);
  if (out.empty()) std::abort();
  return 0;
}
