// uapi_reference.cc: the uapi reference's open, map and reads (see
// uapi_reference.h).
#include "uapi_reference.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "perfcounters/internal/status_macros.h"
#include "perfcounters/internal/user_read_algorithm.h"
#include "perfcounters/internal/user_read_hardware.h"
#include "perfcounters/user_read.h"

namespace perfcounters::bench_support {
namespace {

template <typename T>
T Once(const T& field) {
  return *static_cast<const volatile T*>(&field);
}
void Barrier() { __asm__ volatile("" ::: "memory"); }

// The comment's sign extension from pmc_width bits.
uint64_t Extend(uint64_t pmc, uint16_t width) {
  pmc <<= 64 - width;
  return static_cast<uint64_t>(static_cast<int64_t>(pmc) >> (64 - width));
}

// One page's count: the comment's loop, without the times.
[[gnu::always_inline]] inline bool Count(const perf_event_mmap_page* pc,
                                         uint64_t* value) {
  uint32_t seq, index;
  uint64_t count, pmc = 0;
  uint16_t width = 0;
  do {
    seq = Once(pc->lock);
    Barrier();
    index = Once(pc->index);
    count = Once(pc->offset);
    if (pc->cap_user_rdpmc && index) {
      width = Once(pc->pmc_width);
      pmc = internal::ReadHardwareCounter(index - 1);
    }
    Barrier();
  } while (Once(pc->lock) != seq);
  if (!pc->cap_user_rdpmc || index == 0) return false;
  *value = count + Extend(pmc, width);
  return true;
}

}  // namespace

absl::StatusOr<UapiReference> UapiReference::Open(
    std::vector<EventSpec> specs) {
  if (specs.empty() || specs.size() > kMaxMembers) {
    return absl::InvalidArgumentError("UapiReference: 1 to 8 events");
  }
  for (EventSpec& s : specs) RequestUserAccess(s.attr, /*wide=*/false);
  GroupOptions options;
  options.start_disabled = false;
  ASSIGN_OR_RETURN(Group group, Group::Open(specs, options));
  UapiReference r;
  r.group_ = std::move(group);
  r.page_size_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (const Event& e : r.group_->events()) {
    void* p = mmap(nullptr, r.page_size_, PROT_READ, MAP_SHARED, e.fd(), 0);
    if (p == MAP_FAILED) return absl::ErrnoToStatus(errno, "mmap");
    r.pages_[r.n_++] = static_cast<const perf_event_mmap_page*>(p);
  }
  return r;
}

UapiReference& UapiReference::operator=(UapiReference&& o) noexcept {
  std::swap(group_, o.group_);
  std::swap(pages_, o.pages_);
  std::swap(n_, o.n_);
  std::swap(page_size_, o.page_size_);
  return *this;
}

UapiReference::~UapiReference() {
  for (size_t i = 0; i < n_; ++i) {
    munmap(const_cast<perf_event_mmap_page*>(pages_[i]), page_size_);
  }
}

// The leader's count and times, then each member's count; inlined into
// Start and Stop.
[[gnu::always_inline]] inline bool UapiReference::Snapshot(Reading* out) const {
  const perf_event_mmap_page* pc = pages_[0];
  uint32_t seq, index;
  uint64_t count, pmc = 0, enabled, running, cyc = 0, time_offset = 0;
  uint32_t time_mult = 0;
  uint16_t width = 0, time_shift = 0;
  do {
    seq = Once(pc->lock);
    Barrier();
    enabled = Once(pc->time_enabled);
    running = Once(pc->time_running);
    if (pc->cap_user_time) {
      cyc = internal::ReadTimeCycles();
      time_offset = Once(pc->time_offset);
      time_mult = Once(pc->time_mult);
      time_shift = Once(pc->time_shift);
      if (pc->cap_user_time_short) {
        const uint64_t base = Once(pc->time_cycles);
        cyc = base + ((cyc - base) & Once(pc->time_mask));
      }
    }
    index = Once(pc->index);
    count = Once(pc->offset);
    if (pc->cap_user_rdpmc && index) {
      width = Once(pc->pmc_width);
      pmc = internal::ReadHardwareCounter(index - 1);
    }
    Barrier();
  } while (Once(pc->lock) != seq);
  if (!pc->cap_user_rdpmc || !pc->cap_user_time || index == 0) return false;
  // The time conversion: the comment's quotient/remainder form is the
  // 128-bit product shifted, which costs fewer instructions.
  const uint64_t delta =
      time_offset + internal::ScaleCycles(cyc, time_mult, time_shift);
  out->enabled = enabled + delta;
  out->running = running + delta;
  out->value[0] = count + Extend(pmc, width);
  bool ok = true;
  for (size_t i = 1; i < n_; ++i) ok &= Count(pages_[i], &out->value[i]);
  return ok;
}

void UapiReference::Start() { ok_ &= Snapshot(&start_); }

void UapiReference::Stop() {
  Reading end;
  if (!Snapshot(&end)) {
    ok_ = false;
    return;
  }
  enabled_ += end.enabled - start_.enabled;
  running_ += end.running - start_.running;
  for (size_t i = 0; i < n_; ++i) sum_[i] += end.value[i] - start_.value[i];
}

// The asm keeps every call (nothing can prove the function empty).
void CallersShare(const void* p) { __asm__ volatile("" : : "r"(p)); }

}  // namespace perfcounters::bench_support
