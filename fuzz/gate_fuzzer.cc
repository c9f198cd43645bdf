// gate_fuzzer.cc: libFuzzer target for the `perfcounters compare` gate parser
// (tools/compare.h, ParseGate). Arbitrary text is parsed as a gate against
// the metrics of a fixed comparison of two small gbench files; a gate that
// parses is evaluated on that comparison and rendered.
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
  if (size > 256) return 0;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<perfcounters::tools::Gate> gate =
      perfcounters::tools::ParseGate(text, *metrics);
  if (!gate.ok()) {
    if (gate.status().message().empty()) std::abort();
    return 0;
  }
  const std::vector<perfcounters::tools::GateResult> results =
      perfcounters::tools::EvaluateGates(*comparison, {*gate});
  if (results.size() != 1) std::abort();
  (void)perfcounters::tools::Render(*comparison, results,
                                    perfcounters::tools::Format::kJson, false);
  return 0;
}
