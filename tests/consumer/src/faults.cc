// faults.cc: see faults.h.
#include "faults.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "perfcounters/perfcounters.h"

double PageFaultsOfTouching(int pages) {
  perfcounters::ParseOptions options;
  options.default_user_only = true;
  auto groups = perfcounters::ParseEventList("page-faults", options);
  if (!groups.ok()) {
    std::fprintf(stderr, "%s\n", groups.status().ToString().c_str());
    return -1;
  }
  auto group = perfcounters::Group::Open(groups->front());
  if (!group.ok()) {
    std::fprintf(stderr, "%s\n", group.status().ToString().c_str());
    return -1;
  }
  // Twice: the first call also faults in this code's own pages; the second
  // takes exactly one fault per touched page.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = static_cast<size_t>(pages) * page;
  absl::StatusOr<perfcounters::GroupReading> reading;
  for (int round = 0; round < 2; ++round) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    madvise(p, bytes, MADV_NOHUGEPAGE);  // one fault per 4 KiB page
    reading = group->CountCall([&] {
      for (size_t i = 0; i < bytes; i += page) {
        static_cast<volatile char*>(p)[i] = 1;
      }
    });
    munmap(p, bytes);
    if (!reading.ok()) {
      std::fprintf(stderr, "%s\n", reading.status().ToString().c_str());
      return -1;
    }
  }
  std::vector<perfcounters::ScaledCount> counts = perfcounters::Scale(*reading);
  if (counts.empty() || !counts[0].counted()) return -1;
  return counts[0].value();
}
