// profile.h: where a region of code spends its time, as sampled by the
// kernel.
//
// `Profiler` samples the calling thread on one event written in our grammar
// (grammar.h: cycles, instructions, cpu-clock, task-clock, vendor names,
// with :u/:k/:p modifiers; a name without u/k/h samples user space only)
// every `period` events or at `frequency` samples per second. Sampling runs
// only between Start() and Stop() (the event's enable/disable ioctls), which
// may be called any number of times. A reader thread drains the ring
// (ring_buffer.h) while sampling runs, so no sample is lost at the default
// rate; whatever the kernel still drops is counted in Profile::lost, never
// hidden.
//
// `Profile` is the result: sample counts by instruction address and, with
// call chains (PERF_SAMPLE_CALLCHAIN, user-space frames walked through
// frame pointers), by stack. Profiles of several threads merge into one.
// Addresses are turned into functions, files and lines by symbols.h.
#ifndef PERFCOUNTERS_PROFILE_H_
#define PERFCOUNTERS_PROFILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// What to sample and how often.
struct ProfileOptions {
  // The event, in our grammar (ParseEvent with user space as the default).
  std::string event = "cpu-clock";
  // Sample every `period` events (ns for cpu-clock/task-clock), or
  // `frequency` times per second (the kernel adapts the period). At most one
  // of them; neither: kDefaultClockPeriodNs for the clock events, else
  // kDefaultFrequencyHz.
  std::optional<uint64_t> period;
  std::optional<uint64_t> frequency;
  // Record user-space call chains (frame pointers) with each sample.
  bool callchain = false;
  // Data pages of the ring (a power of two); 0 picks one that holds at
  // least 50 ms of samples at the default rate.
  size_t ring_pages = 0;
};

// 4 kHz, as `perf record` samples by default.
inline constexpr uint64_t kDefaultClockPeriodNs = 250000;
inline constexpr uint64_t kDefaultFrequencyHz = 4000;
// Periods above this are refused as a mistake (it would take hours of
// cycles to see one sample).
inline constexpr uint64_t kMaxPeriod = uint64_t{1} << 40;

// The samples of one or more threads.
struct Profile {
  // The event's label as parsed ("cpu-clock", "cycles:u", ...).
  std::string event;
  // The one of the two that was used.
  std::optional<uint64_t> period;
  std::optional<uint64_t> frequency;
  bool callchains = false;
  // Samples read, and samples the kernel reported as dropped (ring full or
  // PMU-side losses).
  uint64_t samples = 0;
  uint64_t lost = 0;
  // Sample count by the sampled instruction address (the leaf).
  absl::flat_hash_map<uint64_t, uint64_t> by_address;
  // With callchains: sample count by stack, leaf first, as the kernel walks
  // it (the first address is the sampled one, the rest return addresses).
  absl::flat_hash_map<std::vector<uint64_t>, uint64_t> stacks;

  // Adds `other`'s samples. InvalidArgument when the two were taken with a
  // different event, rate or call-chain setting (their shares would not
  // mean the same).
  absl::Status Merge(const Profile& other);
};

// A sampler for the calling thread. Movable, not copyable; one thread
// calls Start/Stop/Take (the one that opened it).
class Profiler {
 public:
  // Parses and checks `options` and opens the (disabled) sampling event and
  // its ring. InvalidArgument for an unknown event (with close names), a
  // zero or absurd period or frequency, or both given; the open's or the
  // mapping's refusal says why (perf_event_paranoid, CAP_PERFMON,
  // perf_event_mlock_kb / RLIMIT_MEMLOCK) and what to change.
  static absl::StatusOr<Profiler> Open(const ProfileOptions& options);

  Profiler();
  Profiler(Profiler&&) noexcept;
  Profiler& operator=(Profiler&&) noexcept;
  ~Profiler();

  // Starts sampling (PERF_EVENT_IOC_ENABLE). Starting a started profiler is
  // FailedPrecondition.
  absl::Status Start();
  // Stops sampling (PERF_EVENT_IOC_DISABLE) and reads every sample written
  // so far into the profile. Stopping a stopped profiler does nothing.
  absl::Status Stop();
  bool running() const;

  // The samples so far (stops first if running), and starts a new, empty
  // profile. An error when the ring held a record that did not decode.
  absl::StatusOr<Profile> Take();

  // The event's label and the sampling rate in use.
  const std::string& label() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Parses `text` as a sampling rate flag's value: a positive integer no
// larger than kMaxPeriod. `what` names it in errors ("period", "frequency").
absl::StatusOr<uint64_t> ParseSampleRate(std::string_view text,
                                         std::string_view what);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_PROFILE_H_
