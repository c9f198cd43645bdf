// user_read.h: `UserReader`, reading an event's count from user space.
//
// When the kernel allows it, a counter can be read without a system call:
// the event's first mmap'd page (`perf_event_mmap_page`) says which hardware
// counter holds the event (`index`) and what to add to it (`offset`), under
// a seqlock (`lock`). The counter itself is read with `rdpmc` on x86-64 or
// `mrs pmevcntr<n>_el0` / `pmccntr_el0` on arm64, sign-extended from
// `pmc_width` bits. time_enabled/time_running are extrapolated to now with
// the page's time_mult/time_shift/time_offset (128-bit arithmetic).
//
// Only for self-monitoring: rdpmc/mrs read the counters of the CPU the
// calling thread runs on, so a user-space read is right only for an event
// that counts the calling thread on any CPU (Target::CallingThread(), or
// Target::Thread(own tid)), read by that thread. Map() refuses other events
// (another thread, every thread of a CPU, a cgroup, one CPU only) with
// FailedPrecondition: read those with read(2) (Event::ReadCount). A reader
// used from another thread, or in a child after fork() (the kernel does not
// copy the page into the child), reads with read(2).
//
// Requirements: x86-64 needs /sys/bus/event_source/devices/cpu/rdpmc >= 1
// (hybrid CPUs: cpu_core/rdpmc and cpu_atom/rdpmc; the default, 1, allows it
// for mmap'd events); arm64 needs `kernel.perf_user_access=1` and the event
// opened with config1 bit 1 (see RequestUserAccess). A read needs both
// `cap_user_rdpmc` and `cap_user_time` on the page (no cap_user_time: a KVM
// guest with kvm-clock, an unstable TSC) and a non-zero `index` (0: not on a
// counter now -- a software event, a disabled or multiplexed-out event);
// otherwise Read() falls back to read(2) on the fd and says so in
// `last_path()`. Intel's topdown events (slots, topdown-*) are always read
// with read(2): their metrics are not counts, and read(2) of slots resets
// the counters behind the page's back (see MustUseReadSyscall).
//
// Hazard: if root writes 0 to <pmu>/rdpmc while a reader's event is open,
// the kernel turns rdpmc off (CR4.PCE) but the event's page keeps offering
// it, and the next user-space read dies of SIGSEGV. Do not change rdpmc
// while counting. Processes created without fork()'s atfork handlers (a raw
// clone/vfork) must not use a parent's readers.
#ifndef PERFCOUNTERS_USER_READ_H_
#define PERFCOUNTERS_USER_READ_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "perfcounters/attr.h"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

class CounterSet;
namespace internal {
struct UserReadHardware;
class UserReaderTestPeer;
}  // namespace internal

// Which path produced a reading.
enum class ReadPath {
  // rdpmc / mrs under the mmap page's seqlock.
  kUserSpace,
  // read(2) on the event's fd.
  kSyscall,
};

// "user-space" or "syscall".
const char* ReadPathName(ReadPath path);

// Why an event with `attr` is always read with read(2), never from user
// space, or nullptr when a user-space read may be tried: software,
// tracepoint and breakpoint events are never on a hardware counter; on
// x86-64, Intel's topdown events (slots = raw 0x0400, the metrics topdown-*
// = raw 0x8000..0x8700, of the core PMU) are not plain counters, and perf
// documents that rdpmc must not be mixed with read(2) for them.
const char* ReadSyscallOnlyReason(const Attr& attr);
// ReadSyscallOnlyReason(attr) != nullptr.
bool MustUseReadSyscall(const Attr& attr);

// Sets what `attr` needs so that its counter may be read from user space:
// on arm64 config1 bit 1 (and bit 0, a 64-bit counter, when `wide` is true)
// for hardware events; nothing on x86-64.
void RequestUserAccess(Attr& attr, bool wide = true);

// One user-space reading: the count and the event's times, extrapolated to
// the moment of the read. What read(2) would have returned at that moment.
struct UserReading {
  uint64_t value = 0;
  uint64_t enabled = 0;
  uint64_t running = 0;
};

// Reads one event from user space when possible, else with read(2).
// Move-only; unmaps its page on destruction. The Event must outlive it.
class UserReader {
 public:
  // Maps the event's first page read-only. The event must have been opened
  // with read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING (for the
  // fallback) and without PERF_FORMAT_GROUP, and must count the calling
  // thread on any CPU (FailedPrecondition otherwise; see the top of this
  // file). The calling thread is the reader's: only its reads may use
  // user space.
  static absl::StatusOr<UserReader> Map(const Event& event);
  // Maps the first page of an event of a group (opened with
  // PERF_FORMAT_GROUP), for TryReadUserSpace() only: Read() on such a
  // reader fails where it would need read(2) (read the group instead).
  static absl::StatusOr<UserReader> MapGroupMember(const Event& event);

  UserReader(UserReader&& other) noexcept;
  UserReader& operator=(UserReader&& other) noexcept;
  UserReader(const UserReader&) = delete;
  UserReader& operator=(const UserReader&) = delete;
  ~UserReader();

  // True when reads by the calling thread can use user space at all: the
  // page offers rdpmc and user time (cap_user_rdpmc and cap_user_time),
  // the event is not a topdown event, and this is the reader's thread in
  // the process that mapped it. Even then a Read() falls back while the
  // event is not on a counter (index 0).
  bool user_space_capable() const;
  // The counter width the page reports (0 when not capable).
  uint16_t pmc_width() const;
  // Whether the page says the event is on a hardware counter now (index
  // not 0). A hint for choosing a path, not a read: TryReadUserSpace()
  // checks again under the seqlock.
  bool OnCounterNow() const;

  // The count now: value, enabled and running (extrapolated to now from the
  // page's time fields). The user-space path needs cap_user_rdpmc,
  // cap_user_time and a non-zero index; otherwise read(2) is used.
  absl::StatusOr<Count> Read();
  // The user-space read alone: no system call, no allocation. Fills *out
  // and returns true when user_space_capable() and the event is on a
  // counter now, else returns false and leaves the caller to read(2).
  bool TryReadUserSpace(UserReading* out) const;
  // The user-space read of a whole group, no system call, no allocation:
  // each member's count from its own page into values[i * stride]
  // (members[0] is the leader), and the group's time_enabled/time_running
  // extrapolated once, from the leader's page, into *times (times->value
  // is the leader's count). read(2) of a group reports the leader's times
  // too: members are scheduled with their leader. Returns false when any
  // member cannot be read from user space now (see TryReadUserSpace) or
  // was mapped by another thread than the leader; the caller then reads the
  // group with read(2).
  static bool TryReadGroupUserSpace(const UserReader* members, size_t n,
                                    uint64_t* values, size_t stride,
                                    UserReading* times);
  // Path used by the last successful Read().
  ReadPath last_path() const { return last_path_; }

 private:
  friend class internal::UserReaderTestPeer;
  // CounterSet reads its groups' pages directly (see counter_set.cc).
  friend class CounterSet;
  UserReader(const Event* event, void* page, size_t length);
  static absl::Status CheckMappable(const Event& event, bool group_member);
  static absl::StatusOr<UserReader> MapPage(const Event& event,
                                            bool group_member);
  // True on the thread that mapped the reader, in the process that did.
  bool OnOwnerThread() const;
  // The page's reading (kTimes: with the times, else out->value alone),
  // without the owner check (TryReadGroupUserSpace makes it once, on the
  // leader).
  template <bool kTimes>
  bool ReadPageNow(UserReading* out) const;
  const Event* event_ = nullptr;
  void* page_ = nullptr;
  // The mapping's length; 0 for a page the reader does not own (tests).
  size_t length_ = 0;
  // Null: the real hardware; else a test's fakes.
  const internal::UserReadHardware* hardware_ = nullptr;
  // The thread that mapped the page (the address of a thread-local of
  // it), and the process's fork generation then (it changes in a child
  // after fork()).
  const void* owner_ = nullptr;
  uint64_t fork_generation_ = 0;
  // A topdown event: never read from user space.
  bool syscall_only_ = false;
  // Mapped with MapGroupMember(): no read(2) fallback in Read().
  bool group_member_ = false;
  ReadPath last_path_ = ReadPath::kSyscall;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_USER_READ_H_
