// counts.cc: snapshot deltas and the one multiplexing-scaling function.
#include "perfcounters/counts.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters {
namespace {

using uint128 = unsigned __int128;

// Number of significant bits of x (0 for 0).
int BitWidth(uint128 x) {
  int width = 0;
  while (x != 0) {
    x >>= 1;
    ++width;
  }
  return width;
}

// numerator / denominator rounded once, to the nearest double (ties to
// even). The quotient is brought into [2^54, 2^55) by shifting the numerator
// left, so the integer quotient carries two bits below the 53-bit mantissa;
// a non-zero remainder is folded into the lowest bit as a sticky bit, which
// makes the single integer-to-double conversion round exactly like the real
// quotient would. denominator is at most 2^64 - 1, so no shift overflows.
double DivideToDouble(uint128 numerator, uint64_t denominator) {
  if (numerator == 0) return 0.0;
  constexpr int kTargetBits = 55;  // quotient in [2^54, 2^55)
  int shift = kTargetBits - 1 + BitWidth(denominator) - BitWidth(numerator);
  if (shift < 0) shift = 0;
  numerator <<= shift;
  uint128 quotient = numerator / denominator;
  uint128 remainder = numerator % denominator;
  // The estimate above can fall one bit short.
  if (BitWidth(quotient) < kTargetBits) {
    numerator <<= 1;
    ++shift;
    quotient = numerator / denominator;
    remainder = numerator % denominator;
  }
  if (remainder != 0) quotient |= 1;
  return std::ldexp(static_cast<double>(quotient), -shift);
}

absl::Status CheckForward(absl::string_view what, uint64_t before,
                          uint64_t after, absl::string_view hint) {
  if (after < before) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " went backwards between the snapshots (before ",
                     before, ", after ", after, "): ", hint));
  }
  return absl::OkStatus();
}

constexpr absl::string_view kTimeHint =
    "the two readings are not from the same event, or were passed in the "
    "wrong order (Delta(before, after))";
constexpr absl::string_view kValueHint =
    "was the counter reset between the snapshots, or were they passed in the "
    "wrong order (Delta(before, after))?";

}  // namespace

ScaledCount ScaledCount::NotCounted(uint64_t enabled) {
  return ScaledCount(0, enabled, 0);
}

ScaledCount::ScaledCount(uint64_t raw, uint64_t enabled, uint64_t running)
    : raw_(raw), enabled_(enabled), running_(running) {}

double ScaledCount::value() const {
  if (running_ == 0) return std::numeric_limits<double>::quiet_NaN();
  // The event ran at least as long as it was enabled: full coverage.
  if (running_ >= enabled_) return DivideToDouble(raw_, 1);
  return DivideToDouble(static_cast<uint128>(raw_) * enabled_, running_);
}

double ScaledCount::coverage() const {
  if (enabled_ == 0 || running_ == 0) return 0.0;
  if (running_ >= enabled_) return 1.0;
  return DivideToDouble(running_, enabled_);
}

ScaledCount Scale(uint64_t raw, uint64_t enabled, uint64_t running) {
  if (running == 0) return ScaledCount::NotCounted(enabled);
  return ScaledCount(raw, enabled, running);
}

ScaledCount Scale(const Count& delta) {
  return Scale(delta.value, delta.enabled, delta.running);
}

absl::StatusOr<Count> Delta(const Count& before, const Count& after) {
  if (before.label != after.label) {
    return absl::InvalidArgumentError(
        absl::StrCat("the two readings are of different events: label \"",
                     before.label, "\" before, \"", after.label,
                     "\" after; pass two readings of one "
                     "event"));
  }
  if (before.id != after.id) {
    return absl::InvalidArgumentError(
        absl::StrCat("the two readings of \"", after.label,
                     "\" are of different events: "
                     "id ",
                     before.id, " before, ", after.id,
                     " after; pass two readings of one event"));
  }
  RETURN_IF_ERROR(
      CheckForward(absl::StrCat("time_enabled of \"", after.label, "\""),
                   before.enabled, after.enabled, kTimeHint));
  RETURN_IF_ERROR(
      CheckForward(absl::StrCat("time_running of \"", after.label, "\""),
                   before.running, after.running, kTimeHint));
  RETURN_IF_ERROR(
      CheckForward(absl::StrCat("the value of \"", after.label, "\""),
                   before.value, after.value, kValueHint));
  Count delta;
  delta.value = after.value - before.value;
  delta.enabled = after.enabled - before.enabled;
  delta.running = after.running - before.running;
  delta.id = after.id;
  delta.label = after.label;
  return delta;
}

absl::StatusOr<GroupReading> Delta(const GroupReading& before,
                                   const GroupReading& after) {
  if (before.values.size() != after.values.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the two group readings have different member counts (",
                     before.values.size(), " before, ", after.values.size(),
                     " after); pass two readings of one group"));
  }
  for (size_t i = 0; i < before.values.size(); ++i) {
    const GroupValue& b = before.values[i];
    const GroupValue& a = after.values[i];
    if (b.id != a.id || b.label != a.label) {
      return absl::InvalidArgumentError(
          absl::StrCat("group member ", i, " differs between the readings (id ",
                       b.id, " \"", b.label, "\" before, id ", a.id, " \"",
                       a.label, "\" after); pass two readings of one group"));
    }
  }
  RETURN_IF_ERROR(CheckForward("the group's time_enabled", before.enabled,
                               after.enabled, kTimeHint));
  RETURN_IF_ERROR(CheckForward("the group's time_running", before.running,
                               after.running, kTimeHint));
  GroupReading delta;
  delta.enabled = after.enabled - before.enabled;
  delta.running = after.running - before.running;
  delta.values.reserve(after.values.size());
  for (size_t i = 0; i < after.values.size(); ++i) {
    const GroupValue& b = before.values[i];
    const GroupValue& a = after.values[i];
    RETURN_IF_ERROR(CheckForward(
        absl::StrCat("the value of group member ", i, " \"", a.label, "\""),
        b.value, a.value, kValueHint));
    delta.values.push_back(GroupValue{a.value - b.value, a.id, a.label});
  }
  return delta;
}

std::vector<ScaledCount> Scale(const GroupReading& delta) {
  std::vector<ScaledCount> scaled;
  scaled.reserve(delta.values.size());
  for (const GroupValue& member : delta.values) {
    scaled.push_back(Scale(member.value, delta.enabled, delta.running));
  }
  return scaled;
}

}  // namespace perfcounters
