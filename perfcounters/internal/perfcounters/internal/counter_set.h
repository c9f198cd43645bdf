// counter_set.h: the counter groups behind perfcounters::Counters (and so
// behind benchmark_ext's Measure) — how one thread's groups are opened,
// snapshotted at the boundaries of a counting interval (from user space
// when the kernel allows it, else with one read(2) per group), accumulated
// over intervals, and calibrated.
//
// Counters (counters.h) owns one CounterSet and adds planning, scaling,
// calibration subtraction and results by label. CounterSet is internal
// (not installed): the project's own code — benchmark_ext, the overhead
// benchmark and the tests — reaches a Counters' set through
// internal::CounterSetOf() to look at its paths and snapshot counts.
//
// Snapshots. A group's snapshot is taken on one path only: from user space
// (one seqlock-protected read of every member's perf_event_mmap_page plus
// rdpmc / mrs, the group's enabled/running from the leader's page) when
// every member is on a hardware counter now, else one read(2) of the group
// leader (PERF_FORMAT_GROUP) into a preallocated buffer. Both paths return
// the same quantities — the kernel's count (offset + counter) and its
// enabled/running times at the moment of the read — so the start and the
// end of an interval may come from different paths and their difference is
// still the interval's count. What is never done is mixing paths inside one
// snapshot: a member that is not on a counter (index 0: multiplexed out,
// or a software event) sends the whole snapshot to read(2).
//
// Multiplexing. With two or more groups read from user space, while one of
// them has a member off its counter (the kernel is rotating the groups),
// Start() and Stop() read every group with read(2). A group's own count
// includes the other groups' snapshots taken inside its interval, and the
// user-space and read(2) paths cost different numbers of instructions; with one
// path for all, that cost no longer depends on which groups happen to be on the
// PMU, so the calibrated bracket fits every interval.
#ifndef PERFCOUNTERS_INTERNAL_COUNTER_SET_H_
#define PERFCOUNTERS_INTERNAL_COUNTER_SET_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/counters.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"
#include "perfcounters/group.h"
#include "perfcounters/user_read.h"

struct perf_event_mmap_page;

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

class CounterSet;
namespace internal {
// Maps a member for user-space reads: a test's fake pages.
using MapMember = absl::FunctionRef<absl::StatusOr<UserReader>(const Event&)>;
// Opens a CounterSet whose groups are read through fake pages, for tests.
class CounterSetTestPeer {
 public:
  static CounterSet OpenOnFakePages(
      const std::vector<std::vector<EventSpec>>& groups, const MapMember& map);
};
}  // namespace internal

// One thread's counter groups, opened for the calling thread and counting
// from open. Move-only.
class CounterSet {
 public:
  // Opens `groups` (each a list of events, leader first) for the calling
  // thread. Never fails as a whole: a group that cannot be opened is
  // absent and group_status() says why. With a mode other than kSyscall,
  // hardware events are opened with user-space access requested
  // (RequestUserAccess, 32-bit counters so that a group needs no more
  // counters than planned) and every member's page is mapped.
  static CounterSet Open(const std::vector<std::vector<EventSpec>>& groups,
                         ReadMode mode);

  CounterSet() = default;
  CounterSet(CounterSet&&) noexcept = default;
  CounterSet& operator=(CounterSet&&) noexcept = default;

  size_t group_count() const { return groups_.size(); }
  // Events over all groups, group by group.
  size_t event_count() const { return raw_.size(); }
  // Index of group `g`'s first event in the flat event order.
  size_t first_event(size_t g) const { return slots_[g].first; }
  // OK, or why group `g` could not be opened on this thread.
  const absl::Status& group_status(size_t g) const { return status_[g]; }
  // Whether group `g` is read from user space (when its members are on
  // counters); when false, user_space_reason() says why.
  bool user_space(size_t g) const { return slots_[g].readers != nullptr; }
  const std::string& user_space_reason(size_t g) const { return why_[g]; }
  // Empty, or why group `g`, which could be read from user space, is read
  // with read(2): when a group is opened for user-space reads, one
  // user-space snapshot, one read(2) snapshot and another user-space one
  // are compared (each member's read(2) count between its two user-space
  // ones, the times within 1 us); where they disagree (a kernel or CPU
  // whose page does not describe its counters), the group is read with
  // read(2), this says what was seen (user_space_reason() too), and the
  // first such group of the process is warned about on stderr.
  const std::string& user_space_disagreement(size_t g) const {
    return disagreement_[g];
  }

  // Snapshots every group: the start of a counting interval. Allocates
  // nothing. Does nothing when an interval is already open.
  void Start();
  // Snapshots every group and adds the interval's deltas to the batch.
  // Allocates nothing. Does nothing when no interval is open.
  void Stop();
  // Clears the batch (deltas, failures, interval and path counts).
  void ResetBatch();

  // The batch so far. failed(g): a read of group g failed or went
  // backwards (its events are not counted in this batch).
  bool failed(size_t g) const { return slots_[g].failed; }
  // Summed raw delta of event `i`; summed enabled/running of group `g`.
  uint64_t raw(size_t i) const { return raw_[i]; }
  uint64_t enabled(size_t g) const { return slots_[g].enabled; }
  uint64_t running(size_t g) const { return slots_[g].running; }
  // Completed intervals (Start+Stop pairs) in the batch.
  uint64_t intervals() const { return intervals_; }
  // Group snapshots taken in the batch from user space / with read(2).
  // The short way (see Start()) counts nothing of its own, to keep its
  // snapshots to the page reads: they are the calls that took a snapshot
  // (two per interval, one for an interval still open) less those that
  // took the general way.
  uint64_t user_snapshots() const {
    return user_snapshots_ + 2 * intervals_ + (counting_ ? 1 : 0) -
           general_calls_;
  }
  uint64_t syscall_snapshots() const { return syscall_snapshots_; }

  // Measures the bracket per event: empty intervals (Start() immediately
  // followed by Stop()) until every open group has `samples` of them in
  // which it was on the PMU the whole time (running == enabled > 0).
  // Samples in which a group was multiplexed out are left out, so while
  // groups take turns on the PMU the sampling goes on — across the
  // kernel's multiplexing rotations — until each group has had its turn,
  // for at most `max_cpu_seconds` of this thread's CPU time. An event
  // whose group still has no such sample (or whose reads failed) gets
  // `valid` = false. Clears the batch for each sample and gives the batch
  // so far back afterwards (a caller may calibrate between two intervals
  // of a batch, while no interval is open).
  std::vector<BracketCost> Calibrate(int samples,
                                     double max_cpu_seconds = 0.25);
  // The same with the caller's own bracket: `bracket` runs one empty
  // interval (it calls Start() and Stop() once each, through whatever
  // code the caller's real intervals go through, so that the calibration
  // counts exactly that code).
  std::vector<BracketCost> Calibrate(int samples, double max_cpu_seconds,
                                     absl::FunctionRef<void()> bracket);

 private:
  // What Start()/Stop() touch for one group, in one place.
  struct Slot {
    // The leader's fd; -1 when the group is not open.
    int fd = -1;
    // Members, and the size of a read(2) record in bytes.
    uint32_t n = 0;
    uint32_t bytes = 0;
    // Index of the first member in raw_.
    size_t first = 0;
    // Snapshot buffers (in buffers_), in read(2)'s PERF_FORMAT_GROUP|ID|
    // TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING layout
    //   { nr, time_enabled, time_running, { value, id } x nr }
    // whichever path filled them; and the members' ids.
    uint64_t* start = nullptr;
    uint64_t* end = nullptr;
    const uint64_t* ids = nullptr;
    // One reader per member when read from user space, else null; and
    // their pages (in pages_) when they are the hardware's, not fakes.
    const UserReader* readers = nullptr;
    const perf_event_mmap_page* const* pages = nullptr;
    // The members' sums in raw_.
    uint64_t* raw = nullptr;
    bool failed = false;
    bool start_user = false;
    uint64_t enabled = 0;
    uint64_t running = 0;
  };

  bool UserSnapshot(const Slot& s, uint64_t* buf);
  bool SyscallSnapshot(const Slot& s, uint64_t* buf);
  void AddUserInterval(Slot& s);
  void AddInterval(Slot& s, bool user);
  bool UserSpaceNow() const;
  bool ShortWay(const Slot* s) const;
  bool ShortSnapshot(const Slot& s, uint64_t* buf);
  [[gnu::noinline]] void StartGroups();
  bool StartFromUserSpace();
  [[gnu::noinline]] void StopGroups();
  void CheckUserSpace(size_t g);
  friend class internal::CounterSetTestPeer;
  static CounterSet Open(const std::vector<std::vector<EventSpec>>& groups,
                         ReadMode mode, const internal::MapMember* fake);
  // Whether every member of every group read from user space is on a
  // counter now (see "Multiplexing" above).
  bool AllOnCounters() const;

  // Groups, their open status, and why not user space; the readers own
  // the mapped pages. Slot pointers point into these vectors' heap buffers
  // (Group keeps its events in a vector too), which moving a CounterSet
  // does not move.
  std::vector<std::optional<Group>> groups_;
  std::vector<absl::Status> status_;
  std::vector<std::string> why_;
  std::vector<std::string> disagreement_;
  std::vector<std::vector<UserReader>> readers_;
  std::vector<const perf_event_mmap_page*> pages_;
  // The thread that mapped the pages (its thread pointer) and the
  // process's fork generation then.
  const void* owner_ = nullptr;
  uint64_t fork_generation_ = 0;
  std::vector<uint64_t> buffers_;
  std::vector<Slot> slots_;
  std::vector<uint64_t> raw_;
  // Groups read from user space (see "Multiplexing" above).
  size_t user_groups_ = 0;
  // The only group, when it is read from user space on the hardware (null
  // in a moved-from set).
  struct OnlySlot {
    Slot* slot = nullptr;
    OnlySlot() = default;
    OnlySlot(OnlySlot&& o) noexcept : slot(o.slot) { o.slot = nullptr; }
    OnlySlot& operator=(OnlySlot&& o) noexcept {
      slot = o.slot;
      if (this != &o) o.slot = nullptr;
      return *this;
    }
  };
  OnlySlot only_;
  // The opening thread's key (ThreadKey()) when only_ is set: the short
  // way is taken on that thread, in this process, only.
  uint64_t thread_key_ = 0;
  uint64_t intervals_ = 0;
  uint64_t user_snapshots_ = 0;
  uint64_t syscall_snapshots_ = 0;
  // Start()/Stop() calls in the batch that took the general way
  // (StartGroups/StopGroups), plus one for an interval that was open when
  // the batch was reset (its start belongs to the batch before).
  uint64_t general_calls_ = 0;
  bool counting_ = false;
};

namespace internal {

// The only way to a Counters' CounterSet (Counters befriends it).
struct CountersAccess {
  static const CounterSet& Set(const Counters& c) { return *c.set_; }
};

// The CounterSet behind `counters`: which path each group is read on, the
// snapshot counts of the batch.
inline const CounterSet& CounterSetOf(const Counters& counters) {
  return CountersAccess::Set(counters);
}

}  // namespace internal

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_COUNTER_SET_H_
