// event.cc: Event, one perf_event file descriptor: opening it with
// perf_event_open(2), closing it exactly once, every ioctl, and reading it.
#include "perfcounters/event.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "errno_text.h"
#include "measure.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters {
namespace {

int PerfEventOpen(perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                  unsigned long flags) {
  return static_cast<int>(
      syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags));
}

// Rejects pid/cpu combinations the kernel would answer with a bare EINVAL.
absl::Status CheckTarget(const Target& target, const std::string& label) {
  if ((target.flags & PERF_FLAG_PID_CGROUP) != 0) {
    if (target.cpu < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": cgroup mode counts per CPU: the target's cpu is ",
          target.cpu, ", but it must be a CPU number >= 0"));
    }
    if (target.pid < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          label,
          ": cgroup mode needs the fd of an open cgroup directory as "
          "the target's pid, got ",
          target.pid));
    }
    return absl::OkStatus();
  }
  if (target.pid == -1 && target.cpu < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        label,
        ": counting every thread (pid -1) needs one CPU (cpu >= 0); "
        "use Target::AllThreads(cpu) for each CPU, or "
        "Target::CallingThread() for this thread on any CPU"));
  }
  if (target.pid < -1 || target.cpu < -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": target pid ", target.pid, " / cpu ", target.cpu,
        " is invalid: pid is 0 (this thread), -1 (all threads) or a thread "
        "id; cpu is -1 (any) or a CPU number"));
  }
  return absl::OkStatus();
}

}  // namespace

Event::Event(int fd, Attr attr, std::string label, Target target, pid_t opener)
    : fd_(fd),
      target_(target),
      opener_tid_(opener),
      attr_(attr),
      label_(std::move(label)) {}

absl::StatusOr<Event> Event::Open(const Attr& attr, std::string label,
                                  const Target& target, int group_leader) {
  EventSpec spec;
  spec.label = label;
  spec.text = std::move(label);
  spec.attr = attr;
  return Open(spec, target, group_leader);
}

absl::StatusOr<Event> Event::Open(const EventSpec& spec, const Target& target,
                                  int group_leader) {
  if (absl::Status valid = spec.attr.Validate(); !valid.ok()) {
    return absl::Status(valid.code(),
                        absl::StrCat(spec.label, ": ", valid.message()));
  }
  RETURN_IF_ERROR(CheckTarget(target, spec.label));
  perf_event_attr kernel = spec.attr.ToKernel();
  const unsigned long flags = target.flags | PERF_FLAG_FD_CLOEXEC;
  const int fd =
      PerfEventOpen(&kernel, target.pid, target.cpu, group_leader, flags);
  if (fd < 0) {
    const int err = errno;
    if ((target.flags & PERF_FLAG_PID_CGROUP) != 0 &&
        (err == ENOENT || err == EBADF)) {
      return absl::Status(
          err == ENOENT ? absl::StatusCode::kUnimplemented
                        : absl::StatusCode::kInvalidArgument,
          absl::StrCat(spec.label, ": cgroup mode with fd ", target.pid,
                       " failed (", internal::ErrnoName(err),
                       "): the fd must be an open directory of a cgroup in a "
                       "hierarchy with the perf_event controller (any cgroup "
                       "v2 directory, or a v1 perf_event one), on a kernel "
                       "built with CONFIG_CGROUP_PERF"));
    }
    return ExplainOpenError(err, spec, group_leader >= 0, ProbeCapabilities());
  }
  Event event(fd, spec.attr, spec.label, target,
              static_cast<pid_t>(syscall(SYS_gettid)));
  // On an error `event` closes the fd.
  ASSIGN_OR_RETURN(event.id_, event.QueryId());
  return event;
}

Event::Event(Event&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      id_(std::exchange(other.id_, 0)),
      target_(other.target_),
      opener_tid_(std::exchange(other.opener_tid_, 0)),
      attr_(other.attr_),
      label_(std::move(other.label_)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    id_ = std::exchange(other.id_, 0);
    target_ = other.target_;
    opener_tid_ = std::exchange(other.opener_tid_, 0);
    attr_ = other.attr_;
    label_ = std::move(other.label_);
  }
  return *this;
}

Event::~Event() {
  if (fd_ >= 0) close(fd_);
}

absl::Status Event::Close() {
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("close of '", label_,
                     "': the event is already closed (or moved from)"));
  }
  const int fd = std::exchange(fd_, -1);
  // The fd is released by close(2) even when it reports an error, so it is
  // never closed again.
  if (close(fd) != 0) {
    return internal::ErrnoError(errno, absl::StrCat("close of '", label_, "'"));
  }
  return absl::OkStatus();
}

namespace {

// One ioctl on an event's fd; the error names the ioctl, the event and errno.
absl::Status Ioctl(int fd, const std::string& label, const char* name,
                   unsigned long request, unsigned long arg) {
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, " on '", label, "': the event is closed"));
  }
  if (ioctl(fd, request, arg) != 0) {
    return internal::ErrnoError(errno, absl::StrCat(name, " on '", label, "'"));
  }
  return absl::OkStatus();
}

unsigned long GroupFlag(bool whole_group) {
  return whole_group ? PERF_IOC_FLAG_GROUP : 0;
}

unsigned long Ptr(const void* p) { return reinterpret_cast<unsigned long>(p); }

}  // namespace

absl::Status Event::Enable(bool whole_group) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_ENABLE", PERF_EVENT_IOC_ENABLE,
               GroupFlag(whole_group));
}

absl::Status Event::Disable(bool whole_group) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_DISABLE", PERF_EVENT_IOC_DISABLE,
               GroupFlag(whole_group));
}

absl::Status Event::Reset(bool whole_group) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_RESET", PERF_EVENT_IOC_RESET,
               GroupFlag(whole_group));
}

absl::Status Event::Refresh(int count) const {
  if (count <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PERF_EVENT_IOC_REFRESH on '", label_, "': count is ", count,
        ", but it must be >= 1 (the number of overflows before the event "
        "disables itself)"));
  }
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_REFRESH", PERF_EVENT_IOC_REFRESH,
               static_cast<unsigned long>(count));
}

absl::Status Event::SetPeriod(uint64_t period) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_PERIOD", PERF_EVENT_IOC_PERIOD,
               Ptr(&period));
}

absl::StatusOr<uint64_t> Event::QueryId() const {
  uint64_t id = 0;
  RETURN_IF_ERROR(
      Ioctl(fd_, label_, "PERF_EVENT_IOC_ID", PERF_EVENT_IOC_ID, Ptr(&id)));
  return id;
}

absl::Status Event::SetOutput(int target_fd) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_SET_OUTPUT",
               PERF_EVENT_IOC_SET_OUTPUT,
               static_cast<unsigned long>(target_fd));
}

absl::Status Event::SetFilter(const std::string& filter) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_SET_FILTER",
               PERF_EVENT_IOC_SET_FILTER, Ptr(filter.c_str()));
}

absl::Status Event::SetBpf(int bpf_prog_fd) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_SET_BPF", PERF_EVENT_IOC_SET_BPF,
               static_cast<unsigned long>(bpf_prog_fd));
}

absl::Status Event::PauseOutput(bool pause) const {
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_PAUSE_OUTPUT",
               PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

absl::StatusOr<std::vector<uint32_t>> Event::QueryBpf(uint32_t max) const {
  // struct perf_event_query_bpf ends in a flexible array of `max` ids.
  std::vector<uint32_t> buffer(2 + static_cast<size_t>(max), 0);
  buffer[0] = max;  // ids_len
  RETURN_IF_ERROR(Ioctl(fd_, label_, "PERF_EVENT_IOC_QUERY_BPF",
                        PERF_EVENT_IOC_QUERY_BPF, Ptr(buffer.data())));
  const uint32_t count = buffer[1];  // prog_cnt
  if (count > max) {
    return absl::ResourceExhaustedError(
        absl::StrCat("PERF_EVENT_IOC_QUERY_BPF on '", label_, "': ", count,
                     " BPF programs are attached, more than max = ", max,
                     "; call again with max >= ", count));
  }
  return std::vector<uint32_t>(buffer.begin() + 2, buffer.begin() + 2 + count);
}

absl::Status Event::ModifyAttributes(const Attr& attr) const {
  if (absl::Status valid = attr.Validate(); !valid.ok()) {
    return absl::Status(valid.code(),
                        absl::StrCat("PERF_EVENT_IOC_MODIFY_ATTRIBUTES on '",
                                     label_, "': ", valid.message()));
  }
  perf_event_attr kernel = attr.ToKernel();
  return Ioctl(fd_, label_, "PERF_EVENT_IOC_MODIFY_ATTRIBUTES",
               PERF_EVENT_IOC_MODIFY_ATTRIBUTES, Ptr(&kernel));
}

absl::StatusOr<Count> Event::ReadCount() const {
  constexpr uint64_t kTimes =
      PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  const uint64_t format = attr_.read_format;
  if (fd_ < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("read of '", label_, "': the event is closed"));
  }
  if ((format & PERF_FORMAT_GROUP) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "read of '", label_,
        "': its read_format has PERF_FORMAT_GROUP, so read(2) returns the "
        "whole group: read it with Group::Read()"));
  }
  if ((format & kTimes) != kTimes) {
    return absl::FailedPreconditionError(absl::StrCat(
        "read of '", label_, "': read_format is 0x", absl::Hex(format),
        ", but a Count needs PERF_FORMAT_TOTAL_TIME_ENABLED | "
        "PERF_FORMAT_TOTAL_TIME_RUNNING (0x",
        absl::Hex(kTimes),
        ") to tell a counted value from one that never ran"));
  }
  // Layout (perf_event_open(2)): value, time_enabled, time_running, then id
  // and lost when requested, each a u64.
  uint64_t words[5] = {};
  size_t expected = 3;
  const bool has_id = (format & PERF_FORMAT_ID) != 0;
  if (has_id) ++expected;
  if ((format & PERF_FORMAT_LOST) != 0) ++expected;
  const ssize_t got = read(fd_, words, sizeof(words));
  if (got < 0) {
    return internal::ErrnoError(errno, absl::StrCat("read of '", label_, "'"));
  }
  if (got == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "read of '", label_,
        "' returned 0 bytes: the event is pinned and in error state (it "
        "could not be scheduled on the PMU); it is not counting"));
  }
  if (static_cast<size_t>(got) != expected * sizeof(uint64_t)) {
    return absl::InternalError(absl::StrCat(
        "read of '", label_, "' returned ", got, " bytes, but read_format 0x",
        absl::Hex(format), " means ", expected * sizeof(uint64_t)));
  }
  Count count;
  count.value = words[0];
  count.enabled = words[1];
  count.running = words[2];
  count.id = has_id ? words[3] : 0;
  count.label = label_;
  return count;
}

absl::StatusOr<Count> Event::CountCall(const std::function<void()>& f) const {
  return internal::MeasureInterval(*this, &Event::ReadCount, f);
}

}  // namespace perfcounters
