// The library example from README.md (examples/CMakeLists.txt checks that
// the two stay identical, and runs it).
#include <cstdio>
#include <string>
#include <vector>

#include "perfcounters/perfcounters.h"

int main() {
  // Events in perf's grammar, plain names user space only; `ipc` and the
  // other derived metrics bring in their inputs.
  auto counters = perfcounters::Counters::Open("task-clock,page-faults");
  if (!counters.ok()) {  // a name that does not parse, with close names
    std::fprintf(stderr, "%s\n", counters.status().ToString().c_str());
    return 1;
  }

  counters->Start();  // as often as you like: the intervals add up
  std::vector<char> memory(1 << 24, 1);  // 16 MiB of fresh pages
  counters->Stop();

  // Scaled for multiplexing, the Start/Stop cost subtracted; an event this
  // machine cannot count is "not counted", with the reason, never 0.
  for (const perfcounters::CounterValue& c : counters->Values()) {
    if (c.counted) {
      std::printf("%-12s %14.0f  (on the PMU %.0f%% of the time)\n",
                  c.label.c_str(), c.value, 100 * c.coverage);
    } else {
      std::printf("%-12s <not counted: %s>\n", c.label.c_str(),
                  c.not_counted_reason.c_str());
    }
  }
  for (const perfcounters::MetricValue& m : counters->DerivedMetrics()) {
    std::printf("%-12s %14.3f  %s\n", m.name.c_str(), m.value,
                std::string(m.metric->unit).c_str());
  }
  return 0;
}
