// grammar_bench.cc: how fast the event grammar (grammar.h) parses one event,
// with fresh reads of sysfs and tracefs on every call (the default) and
// through an EventCatalog (event_catalog.h) made once, against the fake tree
// of the tests (tests/support/fake_sysfs.h) under /dev/shm, which costs
// about what the real sysfs does.
//
//   grammar_bench                      every spec, fresh and catalog
//   grammar_bench --benchmark_filter=catalog
//
// The specs: a generic event with a modifier, a raw event, a sysfs PMU with
// format terms, a sysfs alias with .scale/.unit, a tracepoint, and a
// misspelt name (the error path, with its "did you mean" suggestions).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/grammar.h"
#include "support/fake_sysfs.h"

namespace {

using perfcounters::EventCatalog;
using perfcounters::EventSpec;
using perfcounters::ParseOptions;

struct Spec {
  const char* name;  // in the benchmark's name
  const char* text;
  bool parses;
};

constexpr Spec kSpecs[] = {
    {"generic", "cycles:u", true},
    {"raw", "r01c2", true},
    {"pmu_terms", "cpu/event=0x3c,umask=0/", true},
    {"alias_scale", "power/energy-pkg/", true},
    {"tracepoint", "sched:sched_switch", true},
    {"misspelt", "cyclse:u", false},
};

}  // namespace

int main(int argc, char** argv) {
  if (access("/dev/shm", W_OK) == 0) setenv("TMPDIR", "/dev/shm", 1);
  perfcounters::testing::FakeTree tree;
  tree.AddX86Cpu();
  tree.AddSplitRangePmu();
  tree.AddArmPmu();
  tree.AddUncorePmus();
  tree.AddTracefs();
  ParseOptions fresh;
  fresh.paths = tree.Paths();
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(fresh.paths);

  for (const Spec& spec : kSpecs) {
    for (const ParseOptions* options : {&fresh, &cached}) {
      // Each spec parses (or fails) as intended, or the numbers mean nothing.
      const absl::StatusOr<EventSpec> once = ParseEvent(spec.text, *options);
      if (once.ok() != spec.parses) {
        std::fprintf(stderr, "grammar_bench: '%s' %s: %s\n", spec.text,
                     spec.parses ? "does not parse" : "parses",
                     once.status().ToString().c_str());
        return 1;
      }
      const std::string name = std::string("BM_ParseEvent/") + spec.name +
                               (options == &fresh ? "/fresh" : "/catalog");
      benchmark::RegisterBenchmark(
          name.c_str(), [text = spec.text, options](benchmark::State& state) {
            for (auto _ : state) {
              absl::StatusOr<EventSpec> parsed = ParseEvent(text, *options);
              benchmark::DoNotOptimize(parsed);
            }
          });
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
