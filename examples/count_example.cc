// count_example.cc: the core library in a few lines. Counts task-clock,
// page-faults, cycles and instructions around a loop that touches memory,
// and says clearly which counters this machine cannot provide, and why.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "perfcounters/capabilities.h"
#include "perfcounters/counts.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"

namespace {

// 64 MiB of fresh memory written once: page faults and work to count.
uint64_t Work() {
  std::vector<uint64_t> v(8u << 20);
  uint64_t sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = i * 2654435761u;
    sum += v[i] >> 7;
  }
  return sum;
}

}  // namespace

int main() {
  perfcounters::ParseOptions options;
  options.default_user_only = true;  // count user space, as benchmarks do
  const perfcounters::Capabilities caps = perfcounters::ProbeCapabilities();

  std::vector<perfcounters::Group> groups;
  for (const char* name :
       {"task-clock", "page-faults", "cycles", "instructions"}) {
    absl::StatusOr<perfcounters::EventSpec> spec =
        perfcounters::ParseEvent(name, options);
    if (!spec.ok()) {
      std::fprintf(stderr, "%s: %s\n", name,
                   std::string(spec.status().message()).c_str());
      return 1;
    }
    absl::StatusOr<perfcounters::Group> group =
        perfcounters::Group::Open({*spec});
    if (!group.ok()) {
      std::printf("%-14s not available: %s\n", name,
                  std::string(group.status().message()).c_str());
      continue;
    }
    groups.push_back(*std::move(group));
  }
  if (!caps.has_hardware_pmu()) {
    std::printf(
        "(this machine exposes no hardware PMU, so cycles and "
        "instructions cannot be counted here)\n");
  }

  for (const perfcounters::Group& g : groups) {
    if (absl::Status s = g.Enable(); !s.ok()) {
      std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  const uint64_t result = Work();
  for (const perfcounters::Group& g : groups) (void)g.Disable();

  std::printf("work result %llu\n", static_cast<unsigned long long>(result));
  for (const perfcounters::Group& g : groups) {
    absl::StatusOr<perfcounters::GroupReading> r = g.Read();
    if (!r.ok()) {
      std::printf("read failed: %s\n",
                  std::string(r.status().message()).c_str());
      continue;
    }
    const std::vector<perfcounters::ScaledCount> scaled =
        perfcounters::Scale(*r);
    for (size_t i = 0; i < scaled.size(); ++i) {
      const std::string& label = g.events()[i].label();
      if (!scaled[i].counted()) {
        std::printf("%-14s not counted (it never ran on the PMU)\n",
                    label.c_str());
      } else {
        std::printf("%-14s %16.0f%s\n", label.c_str(), scaled[i].value(),
                    scaled[i].multiplexed() ? " (scaled, multiplexed)" : "");
      }
    }
  }
  return 0;
}
