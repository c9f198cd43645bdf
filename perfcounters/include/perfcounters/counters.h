// counters.h: count a region of code in a few lines — `Counters`, several
// events in as many groups as the PMU needs, started and stopped around the
// code as often as you like, read back by name.
//
//   auto counters = perfcounters::Counters::Open("cycles,instructions,ipc");
//   if (!counters.ok()) ...;                 // a parse error, with close names
//   counters->Start();
//   Work();
//   counters->Stop();
//   for (const perfcounters::CounterValue& v : counters->Values()) ...
//   counters->Value("instructions")->value;
//
// Open parses the list (perf's grammar, plus derived metric names such as
// `ipc` that bring in their inputs, see metrics.h), plans it into groups the
// PMU can schedule (plan.h: `{}` groups stay together, other events are
// packed per PMU), and opens the groups for the calling thread, counting
// from then on. An event this machine cannot count does not fail Open: it
// is reported as not counted, with the reason, never as 0.
//
// Start() and Stop() snapshot every group — from user space where the
// kernel allows it, else one read(2) per group (user_space()) — and add
// the interval's deltas; they allocate nothing and make no system call
// beyond those reads. Intervals accumulate until Reset(). Values() scales
// each event for multiplexing (value * enabled / running), subtracts the
// measured cost of the Start/Stop bracket itself once per interval
// (calibration), and says how much of the time the event was on the PMU
// (coverage). docs/counters.md explains both read paths and calibration.
//
// Threads: a Counters counts the thread that opened it (not its children,
// not other threads) and must be started, stopped and read on that thread:
// the user-space read path reads the opening thread's counters from the
// CPU it runs on. To count several threads, open one Counters on each and
// add their values. Counters is move-only and not thread-safe.
#ifndef PERFCOUNTERS_COUNTERS_H_
#define PERFCOUNTERS_COUNTERS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "perfcounters/export.h"
#include "perfcounters/grammar.h"
#include "perfcounters/metrics.h"
#include "perfcounters/plan.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

class CounterSet;
namespace internal {
struct CountersAccess;
}  // namespace internal

// How snapshots are read (CountersOptions::read_mode).
enum class ReadMode {
  // User space wherever the kernel offers it, else read(2) (the default).
  kAuto,
  // Always read(2), one per group.
  kSyscall,
  // Reads as kAuto, for a caller that requires user-space reads:
  // Counters::user_space(g) says which groups cannot have them, and the
  // caller decides (a snapshot whose member is multiplexed out still falls
  // back to read(2): correctness first).
  kUser,
};

// "auto", "syscall" or "user".
const char* ReadModeName(ReadMode mode);

// Parses "auto", "syscall" or "user"; the error names the accepted values.
absl::StatusOr<ReadMode> ParseReadMode(std::string_view text);

// What an empty interval (Start() immediately followed by Stop()) counts
// for one event: the bracket's own cost.
struct BracketCost {
  // False when no sample counted (the group never ran during calibration).
  bool valid = false;
  // The smallest raw count of an empty interval: what is subtracted per
  // interval. The minimum, because the bracket's fixed cost is its floor;
  // larger samples had an interrupt, a tick or a page fault inside the
  // bracket, which a measured region experiences (and should report) as
  // any other code would.
  uint64_t floor = 0;
  // The upper quartile minus the smallest sample: the bracket's usual
  // noise (a quantile, so that one preempted sample does not inflate it).
  uint64_t spread = 0;
};

// How Counters reads and corrects its counters.
struct CountersOptions {
  CountersOptions() { parse.default_user_only = true; }
  // The grammar's options. By default plain names count user space only
  // (as Google Benchmark does); `instructions:uk` counts the kernel too.
  ParseOptions parse;
  // Snapshot path: user space where possible (kAuto), or always read(2).
  ReadMode read_mode = ReadMode::kAuto;
  // Measure the Start/Stop bracket's own counts at Open (empty intervals:
  // 33 per group in which the group was on the PMU the whole time, taken
  // across multiplexing rotations when the groups take turns) and
  // subtract them once per interval.
  bool calibrate = true;
};

// Multiplexing rotations a batch of a multiplexed event should span at
// least: below, the scaled value's error is several % (docs/counters.md
// has the measured table) and CounterValue::short_multiplexed() says so.
inline constexpr double kFewMuxIntervals = 25;

// One requested event's result over the intervals since Open or Reset.
struct CounterValue {
  // The event's key: its label as written (`instructions:u`), or
  // `label#N` for the N-th request of the same label.
  std::string label;
  // False when there is no value: the event is unavailable here, its group
  // could not be opened or read, or never ran on the PMU (running == 0).
  // Then `value` is 0 and must not be reported; `not_counted_reason` says
  // why.
  bool counted = false;
  // Scaled for multiplexing, minus the bracket's own count per interval
  // (never below 0).
  double value = 0;
  // running / enabled of the event's group: 1 when it was on the PMU all
  // the time; below 1 when it was multiplexed and `value` is an estimate.
  double coverage = 0;
  // The summed raw delta and the group's summed enabled/running times (ns).
  uint64_t raw = 0;
  uint64_t enabled = 0;
  uint64_t running = 0;
  // The bracket cost subtracted in total (calibration floor x intervals),
  // and the level below which the value is mostly the measurement's own
  // (max(floor, 10 x spread) x intervals); both 0 when not calibrated.
  double subtracted = 0;
  double noise_limit = 0;
  // False when calibration was asked for but could not be measured for
  // this event (its group was never on the PMU for a whole empty interval
  // while calibrating): nothing was subtracted; Counters::Uncalibrated()
  // lists such events. True when calibrated, or calibration is off.
  bool calibrated = true;
  // The batch's enabled time in the kernel's multiplexing intervals
  // (perf_event_mux_interval_ms of the hardware PMU; 4 ms when sysfs does
  // not say): how many rotations the scaling averaged over.
  double mux_intervals = 0;
  std::string not_counted_reason;

  // True when counted but below noise_limit: give the region more work
  // per interval.
  bool below_noise() const { return counted && value < noise_limit; }
  // True when the event was multiplexed (coverage < 1) over fewer than
  // kFewMuxIntervals rotations: its scaled value is a rough estimate (off
  // by several %, see docs/counters.md); give the region a longer batch.
  bool short_multiplexed() const {
    return counted && coverage < 1 && mux_intervals < kFewMuxIntervals;
  }
};

// A derived metric's result (a ratio of the summed, scaled inputs).
struct MetricValue {
  // "ipc", or "ipc:u" for inputs with modifiers.
  std::string name;
  // False when an input was not counted or the denominator is 0.
  bool counted = false;
  double value = 0;
  // The table's entry: formula and unit.
  const Metric* metric = nullptr;
};

// The metrics of `derived` computed from `values` (matched by key); a
// metric whose inputs are missing from `values` is left out.
std::vector<MetricValue> ComputeMetrics(
    const std::vector<DerivedMetric>& derived,
    const std::vector<CounterValue>& values);

class Counters {
 public:
  // Parses, plans and opens `events` (see the file comment). Fails only
  // for a list that does not parse (the error names the bad part and close
  // names) or names a metric group this CPU lacks.
  static absl::StatusOr<Counters> Open(std::string_view events,
                                       const CountersOptions& options = {});
  // Opens a plan made earlier (for a caller that plans once and opens the
  // same plan on each of its threads). options.parse is not used.
  static Counters Open(Plan plan, const CountersOptions& options);

  Counters(Counters&&) noexcept;
  Counters& operator=(Counters&&) noexcept;
  ~Counters();

  // Starts an interval: snapshots every group. Allocates nothing; does
  // nothing when an interval is already open.
  void Start();
  // Ends the interval and adds its deltas. Allocates nothing; does nothing
  // when no interval is open.
  void Stop();
  // Forgets the intervals so far (the groups stay open and calibrated).
  void Reset();

  // Completed intervals since Open or Reset.
  uint64_t intervals() const;

  // Every requested event, in request order (unavailable ones included).
  std::vector<CounterValue> Values() const;
  // The requested event keyed `label`; NotFound, listing the keys, when no
  // event has that key.
  absl::StatusOr<CounterValue> Value(std::string_view label) const;
  // The i-th planned event (group by group, in plan().groups' order); i <
  // plan().event_count(). Allocation apart from the label: none.
  CounterValue PlannedValue(size_t i) const;
  // The derived metrics whose inputs are both planned, in table order.
  std::vector<MetricValue> DerivedMetrics() const;

  // Whether group `g` of plan().groups is read from user space (when its
  // members are on counters); when false, user_space_reason(g) says why
  // (not open, a software event, the kernel's settings, kSyscall).
  bool user_space(size_t g) const;
  const std::string& user_space_reason(size_t g) const;

  // The plan (groups, unavailable events, derived metrics) and the
  // calibration per planned event (empty when off): what is subtracted for
  // each interval after a batch's first one, and for the first one (the
  // same unless SetCalibration() said otherwise).
  const Plan& plan() const { return plan_; }
  const std::vector<BracketCost>& calibration() const { return calibration_; }
  const std::vector<BracketCost>& first_calibration() const {
    return first_calibration_;
  }
  // Keys of the planned events of open groups that calibration could not
  // measure (see CounterValue::calibrated); empty when calibration is off.
  std::vector<std::string> Uncalibrated() const;

  // For callers whose intervals run through their own code (a benchmark
  // loop that starts and stops the counters): measures `bracket`, one empty
  // interval that calls Start() and Stop() once each through that code, as Open
  // measures Start(); Stop() (CounterSet::Calibrate). Then SetCalibration()
  // says what to subtract: `first` for the first interval of a batch (since
  // Open or Reset), `next` for every further one. Both have one entry per
  // planned event.
  std::vector<BracketCost> MeasureBracket(absl::FunctionRef<void()> bracket);
  void SetCalibration(std::vector<BracketCost> first,
                      std::vector<BracketCost> next);

 private:
  friend struct internal::CountersAccess;
  Counters();

  Plan plan_;
  // The groups and their snapshots (internal:
  // perfcounters/internal/counter_set.h). Never null but in a moved-from
  // Counters.
  std::unique_ptr<CounterSet> set_;
  std::vector<BracketCost> calibration_;
  std::vector<BracketCost> first_calibration_;
  // The kernel's multiplexing interval (ns).
  double mux_interval_ns_ = 4e6;
  // Per planned event (flat order): its group.
  std::vector<size_t> group_of_;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_COUNTERS_H_
