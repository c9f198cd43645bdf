#include "perfcounters/user_read.h"

// user_read.cc: UserReader (mapping an event's perf_event_mmap_page, who may
// read it, the read(2) fallback) and the hardware reads behind it.
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "perfcounters/internal/user_read_algorithm.h"
#include "perfcounters/internal/user_read_hardware.h"

namespace perfcounters {
namespace {

using internal::kHaveUserRead;
using internal::ReadHardwareCounter;
using internal::ReadTimeCycles;

#if defined(__x86_64__)
constexpr bool kTopdownArch = true;
#else
constexpr bool kTopdownArch = false;
#endif

void OnForkChild() {
  internal::g_fork_generation.fetch_add(1, std::memory_order_relaxed);
  // The child's only thread is a new thread of a new process.
  internal::t_thread_key = 0;
}

// Registers OnForkChild once, before the first reader exists.
uint64_t FirstForkGeneration() {
  static const int registered = pthread_atfork(nullptr, nullptr, OnForkChild);
  (void)registered;
  return internal::ForkGeneration();
}

using internal::ForkGeneration;
using internal::ThreadIdentity;

// Unmaps a reader's page: only one it owns (length != 0), and only in the
// process that mapped it (in a child after fork() the page is not mapped,
// and something else may live at its address now).
void Unmap(void* page, size_t length, uint64_t generation) {
  if (page != nullptr && length != 0 && generation == ForkGeneration()) {
    munmap(page, length);
  }
}

pid_t CallingTid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

const perf_event_mmap_page* Page(void* page) {
  return static_cast<const perf_event_mmap_page*>(page);
}

// A read through a test's fakes, out of the hardware path's way.
template <bool kTimes>
[[gnu::noinline]] bool ReadWithFakes(const perf_event_mmap_page* pc,
                                     const internal::UserReadHardware& fakes,
                                     UserReading* out) {
  return internal::ReadMmapPageAt<kTimes>(pc, fakes.read_counter,
                                          fakes.read_time, out);
}

}  // namespace

namespace internal {

[[gnu::visibility("hidden")]] std::atomic<uint64_t> g_fork_generation{0};

__thread uint64_t t_thread_key
    __attribute__((tls_model("initial-exec"), visibility("hidden"))) = 0;

uint64_t ClaimThreadKey() {
  // Registers the atfork handler that clears the key in a child.
  FirstForkGeneration();
  static std::atomic<uint64_t> last{0};
  if (t_thread_key == 0) {
    t_thread_key = last.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  return t_thread_key;
}

absl::Status CheckSelfMonitoring(const Target& target, pid_t opener_tid,
                                 pid_t caller_tid, const std::string& label) {
  std::string what;
  if ((target.flags & PERF_FLAG_PID_CGROUP) != 0) {
    what = absl::StrCat("counts a cgroup (Target::Cgroup) on CPU ", target.cpu);
  } else if (target.pid == -1) {
    what = absl::StrCat("counts every thread on CPU ", target.cpu,
                        " (Target::AllThreads)");
  } else if (target.pid > 0 && target.pid != caller_tid) {
    what = absl::StrCat("counts thread ", target.pid,
                        ", not the calling thread ", caller_tid);
  } else if (target.pid == 0 && opener_tid != caller_tid) {
    what = absl::StrCat("was opened by thread ", opener_tid,
                        " and counts it, not the calling thread ", caller_tid);
  } else if (target.cpu >= 0) {
    what = absl::StrCat("counts the calling thread only on CPU ", target.cpu);
  } else {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "UserReader: '", label, "' ", what,
      "; user-space reads (rdpmc / mrs) read the counters of the CPU the "
      "calling thread runs on, so they are right only for an event that "
      "counts the calling thread on any CPU (Target::CallingThread(), "
      "opened by this thread): read this one with read(2) "
      "(Event::ReadCount or Group::Read)"));
}

bool IsIntelTopdown(const Attr& attr) {
  if (attr.type != PERF_TYPE_RAW) return false;
  const uint64_t event_umask = attr.config & 0xffff;  // INTEL_ARCH_EVENT_MASK
  return event_umask == 0x0400 ||                     // INTEL_TD_SLOTS
         ((event_umask & 0xff) == 0 && event_umask >= 0x8000 &&
          event_umask <= 0x8700);  // INTEL_TD_METRIC_RETIRING..MEM_BOUND
}

}  // namespace internal

const char* ReadPathName(ReadPath path) {
  return path == ReadPath::kUserSpace ? "user-space" : "syscall";
}

const char* ReadSyscallOnlyReason(const Attr& attr) {
  switch (attr.type) {
    case PERF_TYPE_SOFTWARE:
      return "a software event (never on a hardware counter)";
    case PERF_TYPE_TRACEPOINT:
      return "a tracepoint (never on a hardware counter)";
    case PERF_TYPE_BREAKPOINT:
      return "a breakpoint (never on a hardware counter)";
    default:
      break;
  }
  if (kTopdownArch && internal::IsIntelTopdown(attr)) {
    return "a topdown event (slots, topdown-*: its metrics are not counts, "
           "and read(2) of slots resets the counters behind the page's "
           "back)";
  }
  return nullptr;
}

bool MustUseReadSyscall(const Attr& attr) {
  return ReadSyscallOnlyReason(attr) != nullptr;
}

void RequestUserAccess(Attr& attr, bool wide) {
#if defined(__aarch64__)
  // armv8 PMU: config1 bit 1 = user access (rdpmc format term), bit 0 = a
  // 64-bit (chained or long) counter. Only hardware/raw/PMU events use it.
  if (attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_RAW ||
      attr.type >= PERF_TYPE_MAX) {
    attr.config1 |= 0x2;
    if (wide) attr.config1 |= 0x1;
  }
#else
  (void)attr;
  (void)wide;
#endif
}

absl::Status UserReader::CheckMappable(const Event& event, bool group_member) {
  if (!event.is_open()) {
    return absl::FailedPreconditionError(
        "UserReader::Map: the event is not open");
  }
  if (!group_member && (event.attr().read_format & PERF_FORMAT_GROUP)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "UserReader::Map: '", event.label(),
        "' was opened with PERF_FORMAT_GROUP; user-space reads need one "
        "event per reader (or MapGroupMember, without the read(2) "
        "fallback)"));
  }
  return internal::CheckSelfMonitoring(event.target(), event.opener_tid(),
                                       CallingTid(), event.label());
}

UserReader::UserReader(const Event* event, void* page, size_t length)
    : event_(event),
      page_(page),
      length_(length),
      owner_(ThreadIdentity()),
      fork_generation_(FirstForkGeneration()),
      syscall_only_(kTopdownArch && internal::IsIntelTopdown(event->attr())) {}

absl::StatusOr<UserReader> UserReader::MapPage(const Event& event,
                                               bool group_member) {
  if (absl::Status ok = CheckMappable(event, group_member); !ok.ok()) {
    return ok;
  }
  const long page_size = sysconf(_SC_PAGESIZE);
  void* page = mmap(nullptr, page_size, PROT_READ, MAP_SHARED, event.fd(), 0);
  if (page == MAP_FAILED) {
    const int err = errno;
    return absl::ErrnoToStatus(
        err, absl::StrCat("mmap of the perf_event_mmap_page of '",
                          event.label(), "'"));
  }
  UserReader reader(&event, page, static_cast<size_t>(page_size));
  reader.group_member_ = group_member;
  return reader;
}

absl::StatusOr<UserReader> UserReader::Map(const Event& event) {
  return MapPage(event, /*group_member=*/false);
}

absl::StatusOr<UserReader> UserReader::MapGroupMember(const Event& event) {
  return MapPage(event, /*group_member=*/true);
}

namespace internal {

absl::StatusOr<UserReader> UserReaderTestPeer::Make(
    const Event& event, perf_event_mmap_page* page,
    const UserReadHardware* hardware, bool group_member) {
  if (absl::Status ok = UserReader::CheckMappable(event, group_member);
      !ok.ok()) {
    return ok;
  }
  UserReader reader(&event, page, 0);
  reader.hardware_ = hardware;
  reader.group_member_ = group_member;
  return reader;
}

}  // namespace internal

UserReader::UserReader(UserReader&& other) noexcept
    : event_(std::exchange(other.event_, nullptr)),
      page_(std::exchange(other.page_, nullptr)),
      length_(std::exchange(other.length_, 0)),
      hardware_(std::exchange(other.hardware_, nullptr)),
      owner_(other.owner_),
      fork_generation_(other.fork_generation_),
      syscall_only_(other.syscall_only_),
      group_member_(other.group_member_),
      last_path_(other.last_path_) {}

UserReader& UserReader::operator=(UserReader&& other) noexcept {
  if (this != &other) {
    Unmap(page_, length_, fork_generation_);
    event_ = std::exchange(other.event_, nullptr);
    page_ = std::exchange(other.page_, nullptr);
    length_ = std::exchange(other.length_, 0);
    hardware_ = std::exchange(other.hardware_, nullptr);
    owner_ = other.owner_;
    fork_generation_ = other.fork_generation_;
    syscall_only_ = other.syscall_only_;
    group_member_ = other.group_member_;
    last_path_ = other.last_path_;
  }
  return *this;
}

UserReader::~UserReader() { Unmap(page_, length_, fork_generation_); }

inline bool UserReader::OnOwnerThread() const {
  return fork_generation_ == ForkGeneration() && owner_ == ThreadIdentity();
}

bool UserReader::user_space_capable() const {
  if (page_ == nullptr || syscall_only_ || !OnOwnerThread()) return false;
  if (!kHaveUserRead && hardware_ == nullptr) return false;
  const perf_event_mmap_page* pc = Page(page_);
  return pc->cap_user_rdpmc != 0 && pc->cap_user_time != 0;
}

uint16_t UserReader::pmc_width() const {
  return user_space_capable() ? internal::ReadOnce(Page(page_)->pmc_width) : 0;
}

bool UserReader::OnCounterNow() const {
  return page_ != nullptr && internal::ReadOnce(Page(page_)->index) != 0;
}

template <bool kTimes>
inline bool UserReader::ReadPageNow(UserReading* out) const {
  if (page_ == nullptr || syscall_only_) return false;
  if (hardware_ != nullptr) [[unlikely]] {
    return ReadWithFakes<kTimes>(Page(page_), *hardware_, out);
  }
  if constexpr (kHaveUserRead) {
    return internal::ReadMmapPageAt<kTimes, internal::kHardwareMetricsIndex>(
        Page(page_), ReadHardwareCounter, ReadTimeCycles, out);
  }
  return false;
}

bool UserReader::TryReadUserSpace(UserReading* out) const {
  return OnOwnerThread() && ReadPageNow<true>(out);
}

bool UserReader::TryReadGroupUserSpace(const UserReader* members, size_t n,
                                       uint64_t* values, size_t stride,
                                       UserReading* times) {
  if (n == 0) return false;
  const UserReader& leader = members[0];
  // The thread and process are checked once, on the leader; a member must
  // have been mapped by the same thread in the same process.
  if (!leader.OnOwnerThread() || !leader.ReadPageNow<true>(times)) {
    return false;
  }
  values[0] = times->value;
  const void* const owner = leader.owner_;
  const uint64_t generation = leader.fork_generation_;
  UserReading r;
  for (size_t i = 1; i < n; ++i) {
    const UserReader& member = members[i];
    if (member.owner_ != owner || member.fork_generation_ != generation ||
        !member.ReadPageNow<false>(&r)) {
      return false;
    }
    values[i * stride] = r.value;
  }
  return true;
}

absl::StatusOr<Count> UserReader::Read() {
  if (page_ == nullptr || event_ == nullptr) {
    return absl::FailedPreconditionError(
        "UserReader::Read: this reader was moved from");
  }
  UserReading r;
  if (TryReadUserSpace(&r)) {
    last_path_ = ReadPath::kUserSpace;
    Count count;
    count.value = r.value;
    count.enabled = r.enabled;
    count.running = r.running;
    // Same shape as read(2) gives: the id only when read_format has it.
    if (event_->attr().read_format & PERF_FORMAT_ID) count.id = event_->id();
    count.label = event_->label();
    return count;
  }
  if (group_member_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "UserReader::Read: '", event_->label(),
        "' cannot be read from user space now (not on a counter, the "
        "kernel offers no user-space reads, a topdown event, or not the "
        "reader's thread) and is a group member: read its group with "
        "read(2)"));
  }
  absl::StatusOr<Count> count = event_->ReadCount();
  if (count.ok()) last_path_ = ReadPath::kSyscall;
  return count;
}

}  // namespace perfcounters
