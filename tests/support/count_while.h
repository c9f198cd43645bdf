// count_while.h: what an event of a test's own counts while a piece of code
// runs, for hardware tests that bound an instruction budget by the code's
// measured size instead of a number fixed for one build type.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_COUNT_WHILE_H_
#define PERFCOUNTERS_TESTS_SUPPORT_COUNT_WHILE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"

// One copy of a function: never inlined, and (GCC) never cloned or
// specialised for a call site, so every call of a helper whose
// instructions a test counts runs the same instructions.
#if defined(__clang__)
#define PC_ONE_COPY __attribute__((noinline))
#else
#define PC_ONE_COPY __attribute__((noipa))
#endif

namespace perfcounters::testing {

// What `outer` (a single event opened disabled, read_format with the times)
// counts while `f()` runs: reset, enable, f(), disable, read(2). The
// enable/disable ioctls' own user-space instructions are included (a few).
// 0, with a test failure, when an ioctl or the read fails.
template <typename F>
uint64_t CountWhile(const Event& outer, F&& f) {
  EXPECT_TRUE(outer.Reset().ok());
  EXPECT_TRUE(outer.Enable().ok());
  f();
  EXPECT_TRUE(outer.Disable().ok());
  absl::StatusOr<Count> c = outer.ReadCount();
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? c->value : 0;
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_COUNT_WHILE_H_
