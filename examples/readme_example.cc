// The library example from README.md (tests/CMakeLists.txt checks that the
// two stay identical, and runs it).
#include <cstdio>
#include <vector>

#include "perfcounters/perfcounters.h"

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  return 1;
}

int main() {
  // Parse events in perf's grammar; plain names count user space only.
  perfcounters::ParseOptions options;
  options.default_user_only = true;
  auto groups =
      perfcounters::ParseEventList("{task-clock,page-faults}", options);
  if (!groups.ok()) return Fail(groups.status());

  auto group = perfcounters::Group::Open(groups->front());
  if (!group.ok()) return Fail(group.status());  // explains why, e.g. no PMU

  // Reset, enable, run, disable, and read the whole group in one read(2).
  auto reading = group->Measure([] { std::vector<char> mem(1 << 24, 1); });
  if (!reading.ok()) return Fail(reading.status());

  // Scale for multiplexing; an event that never ran is "not counted", not 0.
  std::vector<perfcounters::ScaledCount> counts = perfcounters::Scale(*reading);
  for (size_t i = 0; i < counts.size(); ++i) {
    const char* label = reading->values[i].label.c_str();
    if (counts[i].counted()) {
      std::printf("%-12s %14.0f  (on the PMU %.0f%% of the time)\n", label,
                  counts[i].value(), 100 * counts[i].coverage());
    } else {
      std::printf("%-12s %14s\n", label, "<not counted>");
    }
  }
  return 0;
}
