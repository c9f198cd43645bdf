// profile.cc: Profiler (a sampling event of the calling thread, its ring and
// the thread that drains it) and Profile::Merge.
#include "perfcounters/profile.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/records.h"
#include "perfcounters/ring_buffer.h"

namespace perfcounters {
namespace {

// The clock events count nanoseconds: a period is natural for them.
bool IsClock(const Attr& a) {
  return a.type == PERF_TYPE_SOFTWARE && (a.config == PERF_COUNT_SW_CPU_CLOCK ||
                                          a.config == PERF_COUNT_SW_TASK_CLOCK);
}

std::optional<uint64_t> MaxSampleRate() {
  std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
  uint64_t v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

// Kernel markers in a call chain (PERF_CONTEXT_USER, ...): not addresses.
bool IsContextMarker(uint64_t ip) {
  return ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX);
}

// 16 data pages (64 KiB) hold 2700 samples without call chains, at 4 kHz
// 0.6 s; the reader drains at a quarter of that. Small enough for several
// threads under the default perf_event_mlock_kb (516 KiB per CPU).
constexpr size_t kDefaultRingPages = 16;

}  // namespace

absl::StatusOr<uint64_t> ParseSampleRate(std::string_view text,
                                         std::string_view what) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample ", std::string(what), " '", std::string(text),
                     "' is not a whole number; write a positive integer, "
                     "e.g. 100000"));
  }
  if (v == 0 || v > kMaxPeriod) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample ", std::string(what), " ", v,
                     " is out of range: it must be 1 to ", kMaxPeriod));
  }
  return v;
}

absl::Status Profile::Merge(const Profile& other) {
  if (event.empty() && samples == 0 && lost == 0) {
    *this = other;
    return absl::OkStatus();
  }
  if (other.event != event || other.period != period ||
      other.frequency != frequency || other.callchains != callchains) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot merge a profile of ", other.event, " into one of ", event,
        ": the event, the rate and the call-chain setting must be equal"));
  }
  samples += other.samples;
  lost += other.lost;
  for (const auto& [ip, n] : other.by_address) by_address[ip] += n;
  for (const auto& [stack, n] : other.stacks) stacks[stack] += n;
  return absl::OkStatus();
}

struct Profiler::State {
  Event event;
  RingBuffer ring;
  std::string label;
  Profile profile;  // guarded by mu (with ring)
  absl::Status error;
  std::mutex mu;
  std::thread reader;
  int wake_fd = -1;
  std::atomic<bool> quit{false};
  bool running = false;
  uint64_t lost_taken = 0;

  // Reads every record in the ring into `profile`. Holds mu.
  void DrainLocked() {
    while (true) {
      absl::StatusOr<std::optional<Record>> r = ring.TryRead();
      if (!r.ok()) {
        if (error.ok()) error = r.status();
        if (absl::IsDataLoss(r.status())) return;  // the ring is unusable
        continue;
      }
      if (!r->has_value()) return;
      const SampleRecord* s = (*r)->As<SampleRecord>();
      if (s == nullptr || !s->ip.has_value()) continue;
      ++profile.samples;
      ++profile.by_address[*s->ip];
      if (s->callchain.has_value()) {
        std::vector<uint64_t> stack;
        stack.reserve(s->callchain->size());
        for (uint64_t ip : *s->callchain) {
          if (!IsContextMarker(ip)) stack.push_back(ip);
        }
        if (stack.empty()) stack.push_back(*s->ip);
        ++profile.stacks[std::move(stack)];
      }
    }
  }

  void ReaderLoop() {
    while (!quit.load(std::memory_order_acquire)) {
      pollfd fds[2] = {{event.fd(), POLLIN, 0}, {wake_fd, POLLIN, 0}};
      const int n = poll(fds, 2, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;
      if (fds[1].revents != 0) return;  // told to quit
      {
        std::lock_guard<std::mutex> lock(mu);
        DrainLocked();
      }
      // The profiled thread exited: nothing more will come.
      if ((fds[0].revents & (POLLHUP | POLLERR)) != 0) return;
    }
  }

  ~State() {
    if (reader.joinable()) {
      quit.store(true, std::memory_order_release);
      uint64_t one = 1;
      (void)!write(wake_fd, &one, sizeof(one));
      reader.join();
    }
    if (wake_fd >= 0) close(wake_fd);
  }
};

Profiler::Profiler() = default;
Profiler::Profiler(Profiler&&) noexcept = default;
Profiler& Profiler::operator=(Profiler&&) noexcept = default;
Profiler::~Profiler() {
  if (state_ != nullptr && state_->running) (void)Stop();
}

absl::StatusOr<Profiler> Profiler::Open(const ProfileOptions& options) {
  if (options.period.has_value() && options.frequency.has_value()) {
    return absl::InvalidArgumentError(
        "give a sample period or a sample frequency, not both");
  }
  for (auto [v, what] : {std::pair(options.period, "period"),
                         std::pair(options.frequency, "frequency")}) {
    if (v.has_value() && (*v == 0 || *v > kMaxPeriod)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sample ", what, " ", *v,
                       " is out of range: it must be 1 to ", kMaxPeriod));
    }
  }
  ParseOptions parse;
  parse.default_user_only = true;
  absl::StatusOr<EventSpec> spec = ParseEvent(options.event, parse);
  if (!spec.ok()) {
    return absl::Status(spec.status().code(),
                        absl::StrCat("profile event '", options.event,
                                     "': ", spec.status().message()));
  }
  if (spec->pmu == "tracepoint" || spec->pmu == "breakpoint" ||
      spec->pmu == "tool") {
    return absl::InvalidArgumentError(absl::StrCat(
        "profile event '", options.event, "' is a ", spec->pmu,
        ": sample on a counting event such as cycles, instructions or "
        "cpu-clock"));
  }
  Attr& a = spec->attr;
  std::optional<uint64_t> period = options.period;
  std::optional<uint64_t> frequency = options.frequency;
  if (!period && !frequency) {
    if (IsClock(a)) {
      period = kDefaultClockPeriodNs;
    } else {
      frequency = kDefaultFrequencyHz;
    }
  }
  if (frequency.has_value()) {
    const std::optional<uint64_t> max = MaxSampleRate();
    if (max.has_value() && *frequency > *max) {
      return absl::InvalidArgumentError(
          absl::StrCat("sample frequency ", *frequency,
                       " Hz is above kernel.perf_event_max_sample_rate (", *max,
                       "): lower it, or raise the limit with `sysctl "
                       "kernel.perf_event_max_sample_rate=",
                       *frequency, "`"));
    }
    a.freq = true;
    a.sample_period = *frequency;
  } else {
    a.freq = false;
    a.sample_period = *period;
  }
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  if (options.callchain) {
    a.sample_type |= PERF_SAMPLE_CALLCHAIN;
    a.exclude_callchain_kernel = true;
  }
  a.disabled = true;
  a.inherit = false;
  a.read_format = 0;
  const size_t pages =
      options.ring_pages == 0 ? kDefaultRingPages : options.ring_pages;
  const long page = sysconf(_SC_PAGESIZE);
  a.watermark = true;
  a.wakeup_events = static_cast<uint32_t>(pages * page / 4);

  ASSIGN_OR_RETURN(Event event, Event::Open(*spec, Target::CallingThread()));
  absl::StatusOr<RingBuffer> ring = RingBuffer::Map(event, pages);
  if (!ring.ok()) {
    return absl::Status(ring.status().code(),
                        absl::StrCat("profile event '", spec->label,
                                     "': cannot map its ring of ", pages,
                                     " pages: ", ring.status().message()));
  }
  Profiler p;
  p.state_ = std::make_unique<State>();
  State& s = *p.state_;
  s.event = std::move(event);
  s.ring = std::move(*ring);
  s.label = spec->label;
  s.profile.event = spec->label;
  s.profile.period = period;
  s.profile.frequency = frequency;
  s.profile.callchains = options.callchain;
  s.wake_fd = eventfd(0, EFD_CLOEXEC);
  if (s.wake_fd < 0) {
    return absl::InternalError(
        absl::StrCat("eventfd for the profile's reader: ", strerror(errno)));
  }
  State* raw = p.state_.get();
  s.reader = std::thread([raw] { raw->ReaderLoop(); });
  return p;
}

absl::Status Profiler::Start() {
  if (state_ == nullptr) {
    return absl::FailedPreconditionError("Start() on a moved-from Profiler");
  }
  if (state_->running) {
    return absl::FailedPreconditionError("the profiler is already started");
  }
  absl::Status st = state_->event.Enable();
  if (st.ok()) state_->running = true;
  return st;
}

absl::Status Profiler::Stop() {
  if (state_ == nullptr || !state_->running) return absl::OkStatus();
  absl::Status st = state_->event.Disable();
  state_->running = false;
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->DrainLocked();
  return st;
}

bool Profiler::running() const { return state_ != nullptr && state_->running; }

const std::string& Profiler::label() const {
  static const std::string* const kNone = new std::string();
  return state_ == nullptr ? *kNone : state_->label;
}

absl::StatusOr<Profile> Profiler::Take() {
  if (state_ == nullptr) {
    return absl::FailedPreconditionError("Take() on a moved-from Profiler");
  }
  RETURN_IF_ERROR(Stop());
  std::lock_guard<std::mutex> lock(state_->mu);
  State& s = *state_;
  s.DrainLocked();
  if (!s.error.ok()) {
    absl::Status e = std::move(s.error);
    s.error = absl::OkStatus();
    return e;
  }
  Profile out = s.profile;
  const uint64_t lost = s.ring.lost_records() + s.ring.lost_samples();
  out.lost = lost - s.lost_taken;
  s.lost_taken = lost;
  s.profile.samples = 0;
  s.profile.by_address.clear();
  s.profile.stacks.clear();
  return out;
}

}  // namespace perfcounters
