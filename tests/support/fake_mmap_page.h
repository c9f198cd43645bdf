// fake_mmap_page.h: a fake perf_event_mmap_page and fake rdpmc / clock for
// the tests of the user-space read algorithm and of UserReader over such
// pages (user_read_page_test, user_reader_fake_page_test).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_FAKE_MMAP_PAGE_H_
#define PERFCOUNTERS_TESTS_SUPPORT_FAKE_MMAP_PAGE_H_

#include <linux/perf_event.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "perfcounters/internal/user_read_algorithm.h"
#include "perfcounters/user_read.h"

namespace perfcounters::testing {

// A page of a running event on general counter 2 (index 3) that allows
// user-space reads; the clock converts 1 cycle to 1 ns, and time_offset is
// such that a clock reading of kNow extrapolates by 100 ns.
inline constexpr uint64_t kNow = 1'000'100;
inline perf_event_mmap_page RunningPage() {
  perf_event_mmap_page page{};
  page.lock = 4;
  page.index = 3;
  page.offset = 1'000;
  page.time_enabled = 5'000;
  page.time_running = 4'000;
  page.cap_user_rdpmc = 1;
  page.cap_user_time = 1;
  page.pmc_width = 48;
  page.time_mult = 1u << 20;
  page.time_shift = 20;
  page.time_offset = static_cast<uint64_t>(-1'000'000);
  return page;
}

// rdpmc and the clock, recording the counters read.
struct FakeHardware {
  std::function<uint64_t(uint32_t)> counter = [](uint32_t) { return 500; };
  uint64_t now = kNow;
  std::vector<uint32_t> counters_read;
  int clock_reads = 0;

  // The fakes as a UserReader takes them.
  internal::UserReadHardware ForReader() {
    return {[this](uint32_t c) {
              counters_read.push_back(c);
              return counter(c);
            },
            [this] {
              ++clock_reads;
              return now;
            }};
  }
  bool Read(const perf_event_mmap_page& page, UserReading* out) {
    const internal::UserReadHardware fakes = ForReader();
    return internal::ReadMmapPage(&page, fakes.read_counter, fakes.read_time,
                                  out);
  }
};

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_FAKE_MMAP_PAGE_H_
