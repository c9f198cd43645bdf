// gbench_json_fuzzer.cc: libFuzzer target for the Google Benchmark JSON loader
// (tools/gbench_json.h). Arbitrary bytes are parsed; a file that loads is
// then summarized and compared with itself (tools/compare.h), which walks
// every entry, counter and statistic the loader produced.
//
// Invariants: every error says what is wrong; warnings are capped; every
// counter index points
// into counter_names; a file compared with itself changes by 0% wherever a
// change is computed.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "compare.h"
#include "gbench_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<perfcounters::tools::BenchmarkFile> file =
      perfcounters::tools::ParseBenchmarkJson(text, "fuzz.json");
  if (!file.ok()) {
    if (file.status().message().empty()) std::abort();
    return 0;
  }
  if (file->warnings.size() > perfcounters::tools::kMaxWarnings ||
      file->warnings.size() > file->warning_count) {
    std::abort();
  }
  for (const perfcounters::tools::RunEntry& entry : file->entries) {
    for (const perfcounters::tools::EntryCounter& c : entry.counters) {
      if (c.name >= file->counter_names.size()) std::abort();
      if (c.counted && !std::isfinite(c.value)) std::abort();
    }
  }
  (void)perfcounters::tools::Summarize(*file);
  const perfcounters::tools::Comparison comparison =
      perfcounters::tools::Compare(*file, *file);
  for (const perfcounters::tools::BenchmarkComparison& b :
       comparison.benchmarks) {
    for (const perfcounters::tools::MetricComparison& m : b.metrics) {
      if (m.change_pct.has_value() && *m.change_pct != 0) std::abort();
    }
  }
  (void)perfcounters::tools::MetricNames(comparison);
  return 0;
}
