// paranoid.h: kernel.perf_event_paranoid for tests that run as an
// unprivileged user at a given level: read, write, and ScopedParanoid,
// which sets a level for a scope and restores the previous value; and
// PERFCOUNTERS_REQUIRE_KERNEL_COUNTING, which skips a test that counts
// kernel-mode events (an event without :u) when the kernel refuses that to
// this user (an ordinary user at level 2), and only then.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_PARANOID_H_
#define PERFCOUNTERS_TESTS_SUPPORT_PARANOID_H_

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace perfcounters::testing {

inline constexpr char kParanoid[] = "/proc/sys/kernel/perf_event_paranoid";

inline std::optional<std::string> ReadParanoid() {
  std::ifstream in(kParanoid);
  std::string value;
  if (!(in >> value)) return std::nullopt;
  return value;
}

inline bool WriteParanoid(const std::string& value) {
  std::ofstream out(kParanoid);
  out << value << "\n";
  out.close();
  return out.good() && ReadParanoid() == value;
}

// Sets kernel.perf_event_paranoid for the scope; restores it on exit.
class ScopedParanoid {
 public:
  explicit ScopedParanoid(int level) : saved_(ReadParanoid()) {
    ok_ = saved_.has_value() && WriteParanoid(std::to_string(level));
  }
  ~ScopedParanoid() {
    if (saved_) WriteParanoid(*saved_);
  }
  ScopedParanoid(const ScopedParanoid&) = delete;
  ScopedParanoid& operator=(const ScopedParanoid&) = delete;
  bool ok() const { return ok_; }

 private:
  std::optional<std::string> saved_;
  bool ok_ = false;
};

// Why this process may not count kernel-mode events, or "" when it may.
// Opens page-faults counting user and kernel mode (the attr an event without
// :u gets); only the kernel's privilege refusal gives a reason: EACCES or
// EPERM while kernel.perf_event_paranoid is above 1 (a process without
// CAP_PERFMON/CAP_SYS_ADMIN may then count user space only). Any other
// failure gives "": the test runs and fails on it.
inline std::string WhyKernelCountingIsRefused() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  attr.disabled = 1;
  const long fd =
      syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) {
    close(static_cast<int>(fd));
    return "";
  }
  const int err = errno;
  if (err != EACCES && err != EPERM) return "";
  const std::optional<std::string> level = ReadParanoid();
  if (!level || level->empty() ||
      level->find_first_not_of("-0123456789") != std::string::npos ||
      std::stoi(*level) <= 1) {
    return "";
  }
  return "the kernel refuses kernel-mode counting to this user (" +
         std::string(err == EACCES ? "EACCES" : "EPERM") +
         "): kernel.perf_event_paranoid is " + *level +
         " and the process lacks CAP_PERFMON/CAP_SYS_ADMIN (run as root, "
         "or `sysctl kernel.perf_event_paranoid=1`)";
}

}  // namespace perfcounters::testing

// Skips the test when the kernel refuses kernel-mode counting to this user
// (see WhyKernelCountingIsRefused); as root, or at level <= 1, it runs.
#define PERFCOUNTERS_REQUIRE_KERNEL_COUNTING()                          \
  do {                                                                  \
    const std::string pc_why_ =                                         \
        ::perfcounters::testing::WhyKernelCountingIsRefused();          \
    if (!pc_why_.empty()) {                                             \
      GTEST_SKIP() << "counts kernel-mode events (no :u): " << pc_why_; \
    }                                                                   \
  } while (0)

#endif  // PERFCOUNTERS_TESTS_SUPPORT_PARANOID_H_
