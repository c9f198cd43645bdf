// event.h: `Event`, one open perf event file descriptor, and `Target`, what
// it counts (a thread or process, a CPU, a cgroup).
//
// Event is move-only and closes its fd exactly once. Every ioctl of the
// perf_event interface is a method; errors name the ioctl and the errno.
// Open failures are explained by ExplainOpenError() (capabilities.h): which
// sysctl or capability, "not supported by this machine's PMU", and so on.
//
// Thread safety: const methods (reads, ioctls) are each independent
// syscalls on the fd and may run concurrently from several threads on one
// Event. CountCall() from two threads at once on one Event is not a data race
// but its reset/enable/disable steps interleave and the counts are
// meaningless: use one Event per thread. Close(), moves and destruction must
// not overlap any other use of the same Event (tests/fault_lifecycle_test.cc).
#ifndef PERFCOUNTERS_EVENT_H_
#define PERFCOUNTERS_EVENT_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/attr.h"
#include "perfcounters/counts.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Who and where to count: the pid/cpu/flags arguments of perf_event_open.
struct Target {
  // 0: the calling thread; -1: every thread (needs a cpu); > 0: that
  // thread/process. In cgroup mode: the cgroup directory's fd.
  pid_t pid = 0;
  // -1: any CPU the thread runs on; >= 0: only that CPU.
  int cpu = -1;
  // PERF_FLAG_* bits. PERF_FLAG_FD_CLOEXEC is always added.
  unsigned long flags = 0;

  // The calling thread on any CPU (the common case for benchmarks).
  static Target CallingThread() { return Target{}; }
  // A given thread or process on any CPU.
  static Target Thread(pid_t tid) { return Target{tid, -1, 0}; }
  // Every thread on one CPU (system-wide for that CPU; needs privilege).
  static Target AllThreads(int cpu) { return Target{-1, cpu, 0}; }
  // Every task in a cgroup, on one CPU: cgroup_fd is an open fd of the
  // cgroup's directory (cgroup v2 mount); PERF_FLAG_PID_CGROUP is set.
  static Target Cgroup(int cgroup_fd, int cpu) {
    return Target{cgroup_fd, cpu, PERF_FLAG_PID_CGROUP};
  }
};

// The value of `cpu` meaning "any CPU".
inline constexpr int kAnyCpu = -1;

// One open perf event.
class Event {
 public:
  // Opens `spec` for `target`. `group_leader` is the fd of an open leader or
  // -1. The attr is opened exactly as given (read_format included).
  static absl::StatusOr<Event> Open(const EventSpec& spec,
                                    const Target& target = {},
                                    int group_leader = -1);
  // Same, from a bare Attr; `label` names it in counts and errors.
  static absl::StatusOr<Event> Open(const Attr& attr, std::string label,
                                    const Target& target = {},
                                    int group_leader = -1);

  Event() = default;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  // The fd, or -1 once closed or moved from.
  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  const std::string& label() const { return label_; }
  const Attr& attr() const { return attr_; }
  // The kernel's id of this event (PERF_EVENT_IOC_ID), read at open.
  uint64_t id() const { return id_; }
  // Who it counts, as given to Open().
  const Target& target() const { return target_; }
  // The thread that opened it (its tid): the thread a target pid of 0
  // (Target::CallingThread()) counts.
  pid_t opener_tid() const { return opener_tid_; }

  // Closes the fd now; errors from close(2) are returned. Closing an
  // already closed Event is FailedPrecondition, never a double close.
  absl::Status Close();

  // --- ioctls. `whole_group` passes PERF_IOC_FLAG_GROUP (only meaningful
  // on a group leader).
  absl::Status Enable(bool whole_group = false) const;
  absl::Status Disable(bool whole_group = false) const;
  absl::Status Reset(bool whole_group = false) const;
  // PERF_EVENT_IOC_REFRESH: enable for `count` more overflows.
  absl::Status Refresh(int count) const;
  // PERF_EVENT_IOC_PERIOD: new sample period (or frequency).
  absl::Status SetPeriod(uint64_t period) const;
  // PERF_EVENT_IOC_ID.
  absl::StatusOr<uint64_t> QueryId() const;
  // PERF_EVENT_IOC_SET_OUTPUT: send records to `target`'s ring buffer;
  // -1 stops redirection.
  absl::Status SetOutput(int target_fd) const;
  // PERF_EVENT_IOC_SET_FILTER: a tracepoint filter expression.
  absl::Status SetFilter(const std::string& filter) const;
  // PERF_EVENT_IOC_SET_BPF: attach a BPF program fd.
  absl::Status SetBpf(int bpf_prog_fd) const;
  // PERF_EVENT_IOC_PAUSE_OUTPUT: pause (true) or resume (false) the ring.
  absl::Status PauseOutput(bool pause) const;
  // PERF_EVENT_IOC_QUERY_BPF: ids of attached BPF programs (up to `max`).
  absl::StatusOr<std::vector<uint32_t>> QueryBpf(uint32_t max = 64) const;
  // PERF_EVENT_IOC_MODIFY_ATTRIBUTES (breakpoints only in the kernel).
  absl::Status ModifyAttributes(const Attr& attr) const;

  // Reads this event alone. Needs read_format with TOTAL_TIME_ENABLED |
  // TOTAL_TIME_RUNNING (and not PERF_FORMAT_GROUP); ID is optional.
  absl::StatusOr<Count> ReadCount() const;

  // Resets the event, enables it, runs f, disables it and returns the
  // reading (go-perf's Measure). Needs the read_format of ReadCount().
  // enabled/running are those of this interval only (reset clears values,
  // not times).
  absl::StatusOr<Count> CountCall(const std::function<void()>& f) const;

 private:
  Event(int fd, Attr attr, std::string label, Target target, pid_t opener);
  int fd_ = -1;
  uint64_t id_ = 0;
  Target target_;
  pid_t opener_tid_ = 0;
  Attr attr_;
  std::string label_;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_EVENT_H_
