// ring_buffer.cc: mapping the ring, reading records with the right memory
// ordering, and blocking reads with timeout and cancellation.
#include "perfcounters/ring_buffer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "absl/strings/str_format.h"
#include "errno_text.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters {

using internal::ErrnoError;

absl::StatusOr<RingBuffer> RingBuffer::Map(const Event& event,
                                           size_t data_pages) {
  if (data_pages == 0 || !std::has_single_bit(data_pages)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "ring buffer of %s: data_pages is %u, but must be a power of two "
        "(1, 2, 4, 8, ...); the mapping is 1 metadata page + data_pages",
        event.label(), data_pages));
  }
  if (!event.is_open()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "ring buffer of %s: the event is not open", event.label()));
  }
  const long page = sysconf(_SC_PAGESIZE);
  RingBuffer ring;
  ring.attr_ = event.attr();
  ring.format_ = RecordFormat::FromAttr(event.attr());
  ring.fd_ = fcntl(event.fd(), F_DUPFD_CLOEXEC, 0);
  if (ring.fd_ < 0) {
    return ErrnoError(errno, absl::StrFormat("ring buffer of %s: dup of fd %d",
                                             event.label(), event.fd()));
  }
  ring.wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (ring.wake_fd_ < 0) {
    return ErrnoError(errno, "ring buffer: eventfd");
  }
  ring.map_size_ = (1 + data_pages) * static_cast<size_t>(page);
  // A backward (overwrite) ring is mapped read-only: the kernel then never
  // waits for data_tail and overwrites the oldest records.
  const int prot =
      event.attr().write_backward ? PROT_READ : PROT_READ | PROT_WRITE;
  void* base = mmap(nullptr, ring.map_size_, prot, MAP_SHARED, ring.fd_, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    std::string hint;
    if (err == EPERM || err == ENOMEM) {
      hint =
          " (the ring exceeds the locked-memory limit: raise "
          "/proc/sys/kernel/perf_event_mlock_kb or RLIMIT_MEMLOCK, or use "
          "fewer pages)";
    } else if (err == EINVAL && event.attr().inherit) {
      hint =
          " (the kernel does not map inherited per-task events: with "
          "inherit=1 open one event per CPU, Target{pid, cpu})";
    } else if (err == EINVAL) {
      hint =
          " (the event may already have a ring of another size, or be "
          "redirected with SET_OUTPUT)";
    }
    return ErrnoError(err,
                      absl::StrFormat("ring buffer of %s: mmap of 1+%u pages%s",
                                      event.label(), data_pages, hint));
  }
  ring.base_ = base;
  ring.meta_ = static_cast<perf_event_mmap_page*>(base);
  // Kernels since 4.1 publish the data area's place; older ones leave 0.
  size_t offset = ring.meta_->data_offset;
  size_t size = ring.meta_->data_size;
  if (offset == 0 || size == 0) {
    offset = page;
    size = data_pages * page;
  }
  ring.data_ = static_cast<const uint8_t*>(base) + offset;
  ring.data_size_ = size;
  return ring;
}

RingBuffer::RingBuffer(RingBuffer&& other) noexcept {
  *this = std::move(other);
}

RingBuffer& RingBuffer::operator=(RingBuffer&& other) noexcept {
  if (this == &other) return *this;
  Close();
  fd_ = std::exchange(other.fd_, -1);
  wake_fd_ = std::exchange(other.wake_fd_, -1);
  base_ = std::exchange(other.base_, nullptr);
  map_size_ = std::exchange(other.map_size_, 0);
  meta_ = std::exchange(other.meta_, nullptr);
  data_ = std::exchange(other.data_, nullptr);
  data_size_ = std::exchange(other.data_size_, 0);
  attr_ = other.attr_;
  format_ = other.format_;
  scratch_ = std::move(other.scratch_);
  lost_records_ = std::exchange(other.lost_records_, 0);
  lost_samples_ = std::exchange(other.lost_samples_, 0);
  return *this;
}

RingBuffer::~RingBuffer() { Close(); }

void RingBuffer::Close() {
  if (base_ != nullptr) munmap(base_, map_size_);
  if (fd_ >= 0) close(fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
  base_ = nullptr;
  meta_ = nullptr;
  data_ = nullptr;
  data_size_ = 0;
  fd_ = -1;
  wake_fd_ = -1;
}

uint64_t RingBuffer::data_head() const {
  if (meta_ == nullptr) return 0;
  // Pairs with the kernel's store of data_head after writing the records.
  return __atomic_load_n(&meta_->data_head, __ATOMIC_ACQUIRE);
}

uint64_t RingBuffer::data_tail() const {
  if (meta_ == nullptr) return 0;
  // Only this reader writes data_tail.
  return __atomic_load_n(&meta_->data_tail, __ATOMIC_RELAXED);
}

bool RingBuffer::HasRecord() const {
  return meta_ != nullptr && data_head() != data_tail();
}

void RingBuffer::CopyOut(uint64_t pos, size_t n, uint8_t* out) const {
  const size_t off = pos & (data_size_ - 1);
  const size_t first = std::min(n, data_size_ - off);
  std::memcpy(out, data_ + off, first);
  if (first < n) std::memcpy(out + first, data_, n - first);
}

absl::StatusOr<std::vector<Record>> RingBuffer::ReadBackwardSnapshot() {
  if (meta_ == nullptr) {
    return absl::FailedPreconditionError("ring buffer is not mapped");
  }
  if (!attr_.write_backward) {
    return absl::FailedPreconditionError(
        "ring buffer: ReadBackwardSnapshot needs an event opened with "
        "write_backward=1; read forward rings with Read/TryRead");
  }
  RETURN_IF_ERROR(Pause());
  // data_head is the newest record; older ones follow it in memory. The
  // kernel starts at 0 and moves head down, so at most -head bytes (and at
  // most one ring) were ever written.
  const uint64_t head = data_head();
  const uint64_t limit = std::min<uint64_t>(data_size_, -head);
  std::vector<Record> out;
  absl::Status status;
  uint64_t pos = 0;
  while (pos + sizeof(perf_event_header) <= limit) {
    perf_event_header h;
    CopyOut(head + pos, sizeof(h), reinterpret_cast<uint8_t*>(&h));
    // A zero size is memory never written; a record reaching past the
    // limit was partly overwritten by the newest ones.
    if (h.size < sizeof(h) || pos + h.size > limit) break;
    scratch_.resize(h.size);
    CopyOut(head + pos, h.size, scratch_.data());
    pos += h.size;
    Account(scratch_);
    absl::StatusOr<Record> r = DecodeRecord(scratch_, format_);
    if (!r.ok()) {
      status = r.status();
      break;
    }
    out.push_back(std::move(*r));
  }
  if (absl::Status s = Resume(); !s.ok() && status.ok()) status = s;
  RETURN_IF_ERROR(status);
  return out;
}

absl::StatusOr<std::optional<absl::Span<const uint8_t>>> RingBuffer::Next() {
  if (meta_ == nullptr) {
    return absl::FailedPreconditionError("ring buffer is not mapped");
  }
  const uint64_t head = data_head();
  const uint64_t tail = data_tail();
  if (attr_.write_backward) {
    return absl::FailedPreconditionError(
        "ring buffer: this event writes backward (write_backward=1); read it "
        "with ReadBackwardSnapshot()");
  }
  if (head == tail) return std::nullopt;
  const uint64_t avail = head - tail;
  if (avail < sizeof(perf_event_header) || avail > data_size_) {
    return absl::DataLossError(absl::StrFormat(
        "ring buffer: %u unread bytes (data_head %u, data_tail %u) do not fit "
        "a record header in a %u-byte ring",
        avail, head, tail, data_size_));
  }
  perf_event_header header;
  CopyOut(tail, sizeof(header), reinterpret_cast<uint8_t*>(&header));
  if (header.size < sizeof(header) || header.size > avail) {
    return absl::DataLossError(absl::StrFormat(
        "ring buffer: record of type %s at offset %u has size %u, but "
        "must be 8..%u (the unread bytes)",
        RecordTypeName(header.type), tail, header.size, avail));
  }
  scratch_.resize(header.size);
  CopyOut(tail, header.size, scratch_.data());
  // Hands the bytes back to the kernel only after copying them out.
  __atomic_store_n(&meta_->data_tail, tail + header.size, __ATOMIC_RELEASE);
  absl::Span<const uint8_t> record(scratch_);
  Account(record);
  return record;
}

void RingBuffer::Account(absl::Span<const uint8_t> record) {
  absl::StatusOr<RecordHeader> h = DecodeHeader(record);
  if (!h.ok()) return;
  uint64_t n = 0;
  if (h->type == PERF_RECORD_LOST && record.size() >= 24) {
    std::memcpy(&n, record.data() + 16, 8);  // header, id, lost
    lost_records_ += n;
  } else if (h->type == PERF_RECORD_LOST_SAMPLES && record.size() >= 16) {
    std::memcpy(&n, record.data() + 8, 8);  // header, lost
    lost_samples_ += n;
  }
}

absl::Status RingBuffer::Wait(std::chrono::steady_clock::time_point deadline) {
  const bool forever = deadline == std::chrono::steady_clock::time_point::max();
  while (true) {
    if (HasRecord()) return absl::OkStatus();
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    timespec ts{};
    timespec* tsp = nullptr;
    if (!forever) {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::nanoseconds::zero()) {
        return absl::DeadlineExceededError(
            "ring buffer: no record arrived before the timeout");
      }
      const auto ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      ts.tv_sec = ns / 1000000000;
      ts.tv_nsec = ns % 1000000000;
      tsp = &ts;
    }
    const int n = ppoll(fds, 2, tsp, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(errno, "ring buffer: ppoll");
    }
    if (fds[1].revents & POLLIN) {
      uint64_t v;
      while (read(wake_fd_, &v, sizeof(v)) == sizeof(v)) {
      }
      return absl::CancelledError("ring buffer: read cancelled by Cancel()");
    }
    if ((fds[0].revents & (POLLHUP | POLLERR)) && !HasRecord()) {
      return absl::FailedPreconditionError(
          "ring buffer: the event hung up (its task exited or the event was "
          "closed) and no records are left");
    }
  }
}

void RingBuffer::Cancel() const {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  // A full eventfd counter (EAGAIN) means a cancel is already pending.
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
}

absl::StatusOr<std::optional<absl::Span<const uint8_t>>>
RingBuffer::TryReadRaw() {
  return Next();
}

absl::StatusOr<absl::Span<const uint8_t>> RingBuffer::ReadRaw(
    std::chrono::nanoseconds timeout) {
  if (meta_ == nullptr) {
    return absl::FailedPreconditionError("ring buffer is not mapped");
  }
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
  const auto now = std::chrono::steady_clock::now();
  if (timeout != kWaitForever &&
      timeout < std::chrono::steady_clock::time_point::max() - now) {
    deadline =
        now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  timeout);
  }
  while (true) {
    RETURN_IF_ERROR(Wait(deadline));
    ASSIGN_OR_RETURN(std::optional<absl::Span<const uint8_t>> r, Next());
    if (r.has_value()) return *r;
  }
}

absl::StatusOr<std::optional<Record>> RingBuffer::TryRead() {
  ASSIGN_OR_RETURN(std::optional<absl::Span<const uint8_t>> raw, Next());
  if (!raw.has_value()) return std::nullopt;
  ASSIGN_OR_RETURN(Record r, DecodeRecord(*raw, format_));
  return r;
}

absl::StatusOr<Record> RingBuffer::Read(std::chrono::nanoseconds timeout) {
  ASSIGN_OR_RETURN(absl::Span<const uint8_t> raw, ReadRaw(timeout));
  return DecodeRecord(raw, format_);
}

absl::Status RingBuffer::AddFollower(const Event& follower) const {
  if (fd_ < 0)
    return absl::FailedPreconditionError("ring buffer is not mapped");
  RETURN_IF_ERROR(CheckOutputCompatible(attr_, follower.attr()));
  return follower.SetOutput(fd_);
}

absl::Status RingBuffer::Pause() const {
  if (ioctl(fd_, PERF_EVENT_IOC_PAUSE_OUTPUT, 1) != 0) {
    return ErrnoError(errno, "ring buffer: PERF_EVENT_IOC_PAUSE_OUTPUT(1)");
  }
  return absl::OkStatus();
}

absl::Status RingBuffer::Resume() const {
  if (ioctl(fd_, PERF_EVENT_IOC_PAUSE_OUTPUT, 0) != 0) {
    return ErrnoError(errno, "ring buffer: PERF_EVENT_IOC_PAUSE_OUTPUT(0)");
  }
  return absl::OkStatus();
}

}  // namespace perfcounters
