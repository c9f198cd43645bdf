// multiplexing.h: the event lists of the multiplexing tests (twelve copies
// of one count on a six-counter PMU), shared by
// counters_test and benchmark_ext_accuracy_test.
//
// In the emulated arm64 machine every event below counts the same loop
// exactly (the plain names count user space only, so `instructions` =
// `instructions:u`; at icount shift 0 cycles = instructions), on a
// six-counter PMU: two packed groups of six, or twelve one-event groups,
// either way multiplexed.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_MULTIPLEXING_H_
#define PERFCOUNTERS_TESTS_SUPPORT_MULTIPLEXING_H_

#include <cstdlib>
#include <string>

namespace perfcounters::testing {

inline constexpr char kTwelvePacked[] =
    "instructions,cycles,r08,r11,instructions:u,cycles:u,r08:u,r11:u,"
    "instructions,cycles,r08,r11";
inline constexpr char kTwelveAlone[] =
    "{instructions},{cycles},{r08},{r11},{instructions:u},{cycles:u},"
    "{r08:u},{r11:u},{instructions},{cycles},{r08},{r11}";

// Whether the emulated machine runs at icount shift 0 (cycles count
// exactly as instructions).
inline bool IcountShiftIsZero() {
  const char* shift = std::getenv("PERFCOUNTERS_ICOUNT_SHIFT");
  return shift != nullptr && std::string(shift) == "0";
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_MULTIPLEXING_H_
