// ring_buffer.h: `RingBuffer`, the mmap'd ring through which a sampling
// event delivers its records, and the readers over it.
//
// A RingBuffer maps 1 + 2^n pages of an open Event: the metadata page
// (struct perf_event_mmap_page) and 2^n data pages. The kernel appends
// records at data_head; we consume them from data_tail. data_head is read
// with acquire ordering (the record bytes are visible once head is) and
// data_tail is written with release ordering (the kernel may overwrite the
// bytes only after we are done with them).
//
// Readers:
//   * ReadRaw / TryReadRaw: the bytes of the next record, header included;
//     a record that straddles the end of the ring is copied out whole.
//   * Read / TryRead: the next record decoded (records.h) with the format of
//     the event that owns the ring.
//   * Blocking reads wait with poll(2) on the event fd plus an eventfd, so
//     that Cancel() from another thread wakes them at once (go-perf does the
//     same with its context).
// Lost-record accounting: every PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES
// passing through either reader is added to lost_records() / lost_samples().
//
// A RingBuffer is used by one reading thread; only Cancel() may be called
// from another thread.
#ifndef PERFCOUNTERS_RING_BUFFER_H_
#define PERFCOUNTERS_RING_BUFFER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "perfcounters/event.h"
#include "perfcounters/export.h"
#include "perfcounters/records.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The ring of an open event.
class RingBuffer {
 public:
  // A timeout for Read/ReadRaw that never expires.
  static constexpr std::chrono::nanoseconds kWaitForever =
      std::chrono::nanoseconds::max();

  // Maps 1 + `data_pages` pages of `event`'s fd. `data_pages` must be a
  // power of two (InvalidArgument naming the value otherwise). The ring
  // keeps its own duplicate of the fd, so it stays valid if `event` is
  // closed first. Decoding uses RecordFormat::FromAttr(event.attr()).
  static absl::StatusOr<RingBuffer> Map(const Event& event,
                                        size_t data_pages = 8);

  RingBuffer() = default;
  RingBuffer(RingBuffer&& other) noexcept;
  RingBuffer& operator=(RingBuffer&& other) noexcept;
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;
  ~RingBuffer();

  // Size of the data area in bytes (data_pages * page size).
  size_t data_size() const { return data_size_; }
  // The format records are decoded with.
  const RecordFormat& format() const { return format_; }
  // The metadata page's data_head (acquire) and data_tail. In a backward
  // ring data_head counts down from 0 (mod 2^64).
  uint64_t data_head() const;
  uint64_t data_tail() const;
  // The metadata page itself, for fields this class does not wrap
  // (time_zero, cap_user_time, ...). Valid while the ring lives.
  const perf_event_mmap_page* metadata() const { return meta_; }

  // True when at least one unread record is in the ring.
  bool HasRecord() const;

  // The next record's bytes (header included), or std::nullopt when the
  // ring is empty. The span points into this ring's own copy and stays
  // valid until the next read. A header whose size is below 8 or beyond
  // the unread data is DataLoss (the ring is then unusable).
  absl::StatusOr<std::optional<absl::Span<const uint8_t>>> TryReadRaw();
  // Waits up to `timeout` for a record (kWaitForever waits
  // forever). DeadlineExceeded on timeout, Cancelled after Cancel(),
  // FailedPrecondition when the event hung up (its task exited) and the
  // ring is empty.
  absl::StatusOr<absl::Span<const uint8_t>> ReadRaw(
      std::chrono::nanoseconds timeout);

  // Typed versions of the above: the record decoded with format(). A record
  // that does not decode is consumed all the same and its error returned;
  // the next read continues with the following record.
  absl::StatusOr<std::optional<Record>> TryRead();
  absl::StatusOr<Record> Read(std::chrono::nanoseconds timeout);

  // The backward (overwrite) ring of an event opened with write_backward=1
  // (mapped read-only; the kernel overwrites the oldest records and never
  // loses any). Pauses output, decodes every complete record from the
  // newest to the oldest still intact, and resumes. Read/TryRead on such a
  // ring are FailedPrecondition, as is this on a forward ring.
  absl::StatusOr<std::vector<Record>> ReadBackwardSnapshot();

  // Makes a blocked Read/ReadRaw (in another thread) return Cancelled now;
  // if none is blocked, the next blocking read returns Cancelled at once.
  // Thread-safe.
  void Cancel() const;

  // Total records the kernel reported as dropped (PERF_RECORD_LOST) and
  // samples the PMU dropped (PERF_RECORD_LOST_SAMPLES), over the records
  // read so far.
  uint64_t lost_records() const { return lost_records_; }
  uint64_t lost_samples() const { return lost_samples_; }

  // Sends `follower`'s records into this ring (PERF_EVENT_IOC_SET_OUTPUT)
  // after CheckOutputCompatible(owner attr, follower attr). The follower
  // must be on the same CPU (or both per-task on the same task) and must
  // not have a ring of its own; the kernel's refusal is returned as is.
  absl::Status AddFollower(const Event& follower) const;

  // PERF_EVENT_IOC_PAUSE_OUTPUT on the ring: while paused the kernel drops
  // new records (and counts them as lost).
  absl::Status Pause() const;
  absl::Status Resume() const;

  // Unmaps and closes (also done by the destructor).
  void Close();

 private:
  absl::StatusOr<std::optional<absl::Span<const uint8_t>>> Next();
  absl::Status Wait(std::chrono::steady_clock::time_point deadline);
  void Account(absl::Span<const uint8_t> record);
  // Copies n bytes at ring position pos (mod the size) into out.
  void CopyOut(uint64_t pos, size_t n, uint8_t* out) const;

  int fd_ = -1;       // dup of the event's fd
  int wake_fd_ = -1;  // eventfd for Cancel()
  void* base_ = nullptr;
  size_t map_size_ = 0;
  perf_event_mmap_page* meta_ = nullptr;
  const uint8_t* data_ = nullptr;
  size_t data_size_ = 0;
  Attr attr_;
  RecordFormat format_;
  std::vector<uint8_t> scratch_;
  uint64_t lost_records_ = 0;
  uint64_t lost_samples_ = 0;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_RING_BUFFER_H_
