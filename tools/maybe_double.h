// maybe_double.h: MaybeDouble, an optional double in 8 bytes for the
// comparison's per-metric values (compare.h: medians, changes, p-values,
// coverages). A comparison of many small benchmarks holds several per
// metric per side, and std::optional<double> takes 16 bytes.
#ifndef PERFCOUNTERS_TOOLS_MAYBE_DOUBLE_H_
#define PERFCOUNTERS_TOOLS_MAYBE_DOUBLE_H_

#include <limits>
#include <optional>
#include <utility>

namespace perfcounters::tools {

// A double or nothing, used as std::optional<double> is (has_value, bool,
// *, value_or, = std::nullopt, conversions both ways). A NaN marks
// "nothing", so a NaN is never a value: its holders' values are never NaN
// (they are computed from finite samples), and one assigned becomes
// nothing rather than a wrong number.
class MaybeDouble {
 public:
  constexpr MaybeDouble() = default;
  constexpr MaybeDouble(std::nullopt_t) {}    // NOLINT: as std::optional
  constexpr MaybeDouble(double v) : v_(v) {}  // NOLINT: as std::optional
  constexpr MaybeDouble(const std::optional<double>& o)  // NOLINT
      : v_(o ? *o : kNothing) {}

  constexpr MaybeDouble& operator=(std::nullopt_t) {
    v_ = kNothing;
    return *this;
  }
  constexpr bool has_value() const { return v_ == v_; }  // not NaN
  constexpr explicit operator bool() const { return has_value(); }
  // Like std::optional's: meaningless without a value.
  constexpr const double& operator*() const { return v_; }
  constexpr double value_or(double other) const {
    return has_value() ? v_ : other;
  }
  constexpr void reset() { v_ = kNothing; }
  operator std::optional<double>() const {  // NOLINT: as std::optional
    return has_value() ? std::optional<double>(v_) : std::nullopt;
  }

  friend constexpr bool operator==(const MaybeDouble& a, const MaybeDouble& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || a.v_ == b.v_);
  }

 private:
  static constexpr double kNothing = std::numeric_limits<double>::quiet_NaN();
  double v_ = kNothing;
};

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_MAYBE_DOUBLE_H_
