// sanitizers.h: what the tests need to know about the sanitizer they are
// built with (scripts/ci-hardening builds the suite with ASan+UBSan and with
// TSan; scripts/test builds it plain).
//
// Both sanitizers map their shadow memory lazily, so a test that touches
// fresh pages also takes page faults on shadow pages (TSan: about 4 more per
// page touched; ASan: about 1 per 8 pages), and TSan's runtime forks helper
// processes of its own. So:
//   - tests whose subject is an exact page-fault count, or the page-fault
//     samples of the pages they touch, or the exact fork/exit records of a
//     child, or how the measured code's cost compares with the measurement's
//     own, start with PERFCOUNTERS_SKIP_UNDER_SANITIZER(reason); the plain
//     suite (scripts/test, natively and in the arm64 machine) runs them;
//   - tests that use "touch N fresh pages" only as a known workload (the
//     benchmark_ext end-to-end tests) check the count with
//     EXPECT_TOUCHED_PAGE_FAULTS: exact (within the tolerance) in a plain
//     build, bounded by the shadow's extra faults under a sanitizer.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_SANITIZERS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_SANITIZERS_H_

#include "gtest/gtest.h"

// GCC defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang 14 (the
// fuzzing and ASan+UBSan tree) only answers __has_feature.
#if defined(__SANITIZE_THREAD__)
#define PERFCOUNTERS_TESTS_TSAN 1
#elif defined(__SANITIZE_ADDRESS__)
#define PERFCOUNTERS_TESTS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERFCOUNTERS_TESTS_TSAN 1
#elif __has_feature(address_sanitizer)
#define PERFCOUNTERS_TESTS_ASAN 1
#endif
#endif

namespace perfcounters::testing {

#if defined(PERFCOUNTERS_TESTS_TSAN)
// The sanitizer this binary is built with, for skip messages.
inline constexpr const char* kSanitizer = "ThreadSanitizer";
// Most page faults one touched page can cost, shadow pages included
// (measured: 5.005 per page under GCC 12's TSan).
inline constexpr double kMaxFaultsPerTouchedPage = 6.0;
#elif defined(PERFCOUNTERS_TESTS_ASAN)
inline constexpr const char* kSanitizer = "AddressSanitizer";
// Measured: about 1.125 per page over many pages with GCC's (one shadow
// page covers 8 pages); 9 to 12 for 4 fresh pages with clang 14's, whose
// allocator poisons and unpoisons fresh shadow around each allocation.
inline constexpr double kMaxFaultsPerTouchedPage = 3.5;
#else
inline constexpr const char* kSanitizer = nullptr;
inline constexpr double kMaxFaultsPerTouchedPage = 1.0;
#endif

// The reasons the suite skips for.
inline constexpr const char* kShadowFaults =
    "its shadow memory adds page faults of its own";
inline constexpr const char* kHelperProcesses =
    "its runtime forks helper processes (extra fork/exit records)";
inline constexpr const char* kShadowReservation =
    "its shadow memory reserves terabytes of address space, so an "
    "address-space limit (ulimit -v) stops the program before it starts";
inline constexpr const char* kNoValgrind =
    "Valgrind cannot run a sanitizer-instrumented program (the sanitizer's "
    "runtime and shadow memory conflict with Valgrind's own)";
inline constexpr const char* kSlowerCode =
    "instrumented code is several times slower, and this test is about how "
    "the measured code's cost compares with the measurement's own";

// The predicate-formatter of EXPECT_TOUCHED_PAGE_FAULTS.
inline ::testing::AssertionResult TouchedPageFaults(const char* faults_text,
                                                    const char* pages_text,
                                                    const char* tolerance_text,
                                                    double faults, double pages,
                                                    double tolerance) {
  const double low = pages - tolerance;
  const double high = pages * kMaxFaultsPerTouchedPage + tolerance;
  if (faults >= low && faults <= high) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << faults_text << " is " << faults << ", expected the page faults of "
          << pages_text << " = " << pages << " touched pages ";
  if (kSanitizer == nullptr) {
    failure << "within " << tolerance_text << " = " << tolerance;
  } else {
    failure << "plus at most " << kMaxFaultsPerTouchedPage - 1
            << " shadow-page faults each under " << kSanitizer << ": [" << low
            << ", " << high << "]";
  }
  return failure;
}

}  // namespace perfcounters::testing

// Skips the test in a sanitizer build, saying why: `reason` says what the
// sanitizer changes that the test is about.
#define PERFCOUNTERS_SKIP_UNDER_SANITIZER(reason)                          \
  do {                                                                     \
    if (::perfcounters::testing::kSanitizer != nullptr) {                  \
      GTEST_SKIP() << "built with " << ::perfcounters::testing::kSanitizer \
                   << ": " << (reason)                                     \
                   << "; the plain suite (scripts/test) runs this test";   \
    }                                                                      \
  } while (0)

// Expects `faults` to be what touching `pages` fresh pages costs: within
// `tolerance` of `pages` in a plain build; under a sanitizer at least that
// and at most kMaxFaultsPerTouchedPage times it (the shadow faults too).
// Takes a streamed message like EXPECT_NEAR.
#define EXPECT_TOUCHED_PAGE_FAULTS(faults, pages, tolerance)              \
  EXPECT_PRED_FORMAT3(::perfcounters::testing::TouchedPageFaults, faults, \
                      pages, tolerance)

#endif  // PERFCOUNTERS_TESTS_SUPPORT_SANITIZERS_H_
