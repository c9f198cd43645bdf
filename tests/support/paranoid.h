// paranoid.h: kernel.perf_event_paranoid for tests that run as an
// unprivileged user at a given level: read, write, and ScopedParanoid,
// which sets a level for a scope and restores the previous value.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_PARANOID_H_
#define PERFCOUNTERS_TESTS_SUPPORT_PARANOID_H_

#include <fstream>
#include <optional>
#include <string>

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

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_PARANOID_H_
