// overhead_bench.cc: what perfcounters::Measure costs per counting
// interval, against the system calls it cannot avoid.
//
//   BM_RawReads/N              the floor: two read(2)s of one group of N
//                              counters into a fixed buffer, nothing else
//   BM_StartStop/syscall/N     perfcounters::Counters::Start() + Stop() of
//                              the same group, read with read(2): the code
//                              a region and Measure's batch run at their
//                              start and end (two snapshots, the delta, its
//                              accumulation)
//   BM_StartStop/user/N        the same through user-space reads (rdpmc /
//                              mrs); hardware events only, so on a machine
//                              without a hardware PMU it is reported as
//                              unavailable (an error row), never as a number
//
// N = 1, 2, 4, 8. The events are hardware ones (cycles, instructions) when
// a group of N of them opens here, else software ones (page-faults,
// context-switches, ...). Every Start+Stop row carries `vs_raw`, its time
// over BM_RawReads/N's time in the same run, and the program ends with a
// summary table of those ratios (CPU time of the benchmark thread, so that a
// loaded machine does not blur them). Target: syscall path <= 1.05.
//
// Where an instructions event of the bench's own opens (kernel included
// where allowed), every Start+Stop row also carries
// `instructions_per_pair`: the pair's instructions, the caller's loop
// subtracted (exact in the emulated arm64 machine, so that a history of
// these rows shows each instruction the bracket gains or loses; absent,
// never 0, where instructions cannot be counted).
//
// Then, where hardware events open and a page allows user-space reads, the
// user-space Start+Stop against the smallest correct one: the uapi
// reference (uapi_reference.h), N = 1..4, both counted in instructions by
// that event, the caller's loop subtracted. Target: CounterSet <= 1.08x
// the reference (tests/counter_set_test.cc holds it there).
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
#include "perfcounters/counters.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "perfcounters/internal/counter_set.h"
#include "perfcounters/plan.h"
#include "uapi_reference.h"

namespace {

using perfcounters::Counters;
using perfcounters::EventSpec;
using perfcounters::ReadMode;

constexpr int kSizes[] = {1, 2, 4, 8};

// The first `n` events of `list` (comma-separated, our grammar) as one
// `{}` group: a Counters opens it as one group, as the raw reads read it.
std::string FirstEvents(const std::string& list, int n) {
  std::vector<std::string> names = absl::StrSplit(list, ',');
  names.resize(static_cast<size_t>(n));
  return absl::StrCat("{", absl::StrJoin(names, ","), "}");
}

std::vector<EventSpec> Specs(const std::string& group) {
  perfcounters::ParseOptions options;
  options.default_user_only = true;
  absl::StatusOr<std::vector<perfcounters::GroupSpec>> groups =
      perfcounters::ParseEventList(group, options);
  if (!groups.ok() || groups->size() != 1) return {};
  return groups->front().events;
}

// A group of n events that opens and counts here: hardware when possible.
std::string EventsFor(int n, std::string* why_no_hardware) {
  std::string hw = FirstEvents(
      "cycles,instructions,instructions,instructions,instructions,"
      "instructions,instructions,instructions",
      n);
  absl::Status s = perfcounters::OpenAndVerify(Specs(hw));
  if (s.ok()) return hw;
  *why_no_hardware = std::string(s.message());
  return FirstEvents(
      "page-faults,context-switches,cpu-migrations,minor-faults,"
      "major-faults,alignment-faults,emulation-faults,cpu-clock",
      n);
}

// This thread's CPU time: the ratios compare the work each path does and
// stay meaningful on a loaded machine, where wall time mostly measures the
// other processes (gbench's own CPU column is the same clock).
double NowNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// ns per iteration of each row, by (kind, n), for the ratios and summary.
std::map<std::pair<std::string, int>, double>& Results() {
  static auto* results = new std::map<std::pair<std::string, int>, double>();
  return *results;
}
std::map<int, std::string>& Unavailable() {
  static auto* why = new std::map<int, std::string>();
  return *why;
}

void Record(benchmark::State& state, const std::string& kind, int n,
            double ns) {
  const double per = ns / static_cast<double>(state.iterations());
  Results()[{kind, n}] = per;
  auto raw = Results().find({"raw", n});
  if (kind != "raw" && raw != Results().end() && raw->second > 0) {
    state.counters["vs_raw"] = per / raw->second;
  }
}

void BM_RawReads(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::string ignored;
  perfcounters::GroupOptions options;
  options.start_disabled = false;
  absl::StatusOr<perfcounters::Group> group =
      perfcounters::Group::Open(Specs(EventsFor(n, &ignored)), options);
  if (!group.ok()) {
    state.SkipWithError(std::string(group.status().message()).c_str());
    return;
  }
  state.SetLabel(group->leader().label() + (n > 1 ? ",..." : ""));
  const int fd = group->leader().fd();
  uint64_t buffer[3 + 2 * 8];
  const size_t bytes = (3 + 2 * static_cast<size_t>(n)) * sizeof(uint64_t);
  // What the reads return is summed and checked after the loop: nothing
  // else in it (DoNotOptimize would be a call of its own per read at -O0).
  int64_t got = 0;
  const double t0 = NowNs();
  for (auto _ : state) {
    got += read(fd, buffer, bytes);
    got += read(fd, buffer, bytes);
  }
  const double ns = NowNs() - t0;
  if (got != 2 * static_cast<int64_t>(bytes) *
                 static_cast<int64_t>(state.iterations())) {
    state.SkipWithError("a read(2) of the group failed or came back short");
    return;
  }
  Record(state, "raw", n, ns);
}

// What `outer` counts while `f()` runs (0 when it cannot be read).
template <typename F>
uint64_t CountedBy(const perfcounters::Event& outer, F&& f) {
  if (!outer.Reset().ok() || !outer.Enable().ok()) return 0;
  f();
  if (!outer.Disable().ok()) return 0;
  absl::StatusOr<perfcounters::Count> c = outer.ReadCount();
  return c.ok() ? c->value : 0;
}

// Instructions per call of `pair()`: the smallest of 7 windows of 200
// calls less the smallest empty window, over 200 (windows short next to a
// timer tick, so the smallest is one no interrupt landed in).
template <typename Pair>
double InstructionsPerPair(const perfcounters::Event& outer, Pair pair) {
  constexpr int kPairs = 200;
  auto least = [&](int pairs) {
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < 7; ++round) {
      best = std::min(best, CountedBy(outer, [&] {
                        for (int i = 0; i < pairs; ++i) pair();
                      }));
    }
    return best;
  };
  least(kPairs);  // warm up
  const uint64_t with = least(kPairs), none = least(0);
  return with > none ? static_cast<double>(with - none) / kPairs : 0.0;
}

// The bench's own instructions event (kernel included where allowed) and
// the caller's share of a pair in it: two calls of a function that does
// nothing (uapi_reference.h), subtracted from every count of a pair. Every
// pair below is called through a plain pointer captured by reference, as
// this loop passes one: at -O0 (a Debug build of this file) StatusOr's
// operator-> is a call of its own per use, which would inflate both sides
// of a ratio alike and shrink it. Opened once.
struct OuterInstructions {
  absl::StatusOr<perfcounters::Event> event = absl::UnknownError("not open");
  const char* text = "instructions:uk";
  double loop = 0;
};
const OuterInstructions& Outer() {
  static const OuterInstructions* outer = [] {
    auto* o = new OuterInstructions;
    for (const char* text : {"instructions:uk", "instructions:u"}) {
      std::vector<EventSpec> spec = Specs(absl::StrCat("{", text, "}"));
      if (spec.size() != 1) continue;
      spec[0].attr.disabled = true;
      spec[0].attr.read_format =
          PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
      o->event = perfcounters::Event::Open(spec[0]);
      o->text = text;
      if (o->event.ok()) break;
    }
    if (o->event.ok()) {
      const void* any = nullptr;
      o->loop = InstructionsPerPair(*o->event, [&] {
        perfcounters::bench_support::CallersShare(any);
        perfcounters::bench_support::CallersShare(any);
      });
    }
    return o;
  }();
  return *outer;
}

void StartStop(benchmark::State& state, ReadMode mode) {
  const int n = static_cast<int>(state.range(0));
  const std::string kind = ReadModeName(mode);
  std::string why_no_hardware;
  const std::string events = EventsFor(n, &why_no_hardware);
  if (mode == ReadMode::kUser && !why_no_hardware.empty()) {
    const std::string why =
        "unavailable: user-space reads need hardware "
        "events, and a group of " +
        std::to_string(n) + " cannot be counted here (" + why_no_hardware + ")";
    Unavailable()[n] = why;
    state.SkipWithError(why.c_str());
    return;
  }
  perfcounters::CountersOptions options;
  options.read_mode = mode;
  options.calibrate = false;
  absl::StatusOr<Counters> counters = Counters::Open(events, options);
  if (!counters.ok() || counters->plan().groups.size() != 1 ||
      !perfcounters::internal::CounterSetOf(*counters).group_status(0).ok()) {
    const std::string why =
        !counters.ok() ? std::string(counters.status().message())
        : counters->plan().groups.size() != 1
            ? events + " was not planned as one group"
            : std::string(perfcounters::internal::CounterSetOf(*counters)
                              .group_status(0)
                              .message());
    state.SkipWithError(why.c_str());
    return;
  }
  const perfcounters::CounterSet& set =
      perfcounters::internal::CounterSetOf(*counters);
  if (mode == ReadMode::kUser && !set.user_space(0)) {
    const std::string why = "unavailable: " + set.user_space_reason(0);
    Unavailable()[n] = why;
    state.SkipWithError(why.c_str());
    return;
  }
  state.SetLabel(counters->plan().groups[0].events[0].key +
                 (n > 1 ? ",..." : ""));
  // Called through a plain pointer, as a consumer's region would: at -O0
  // StatusOr's operator-> is a call of its own per use.
  Counters* c = &*counters;
  const double t0 = NowNs();
  for (auto _ : state) {
    c->Start();
    c->Stop();
  }
  const double ns = NowNs() - t0;
  if (set.failed(0)) {
    state.SkipWithError("a snapshot failed");
    return;
  }
  state.counters["user_snapshots"] = static_cast<double>(set.user_snapshots());
  state.counters["syscall_snapshots"] =
      static_cast<double>(set.syscall_snapshots());
  if (const OuterInstructions& outer = Outer(); outer.event.ok()) {
    const double per_pair = InstructionsPerPair(*outer.event,
                                                [&] {
                                                  c->Start();
                                                  c->Stop();
                                                }) -
                            outer.loop;
    if (per_pair > 0 && !set.failed(0)) {
      state.counters["instructions_per_pair"] = per_pair;
    }
  }
  Record(state, kind, n, ns);
}

void BM_StartStopSyscall(benchmark::State& state) {
  StartStop(state, ReadMode::kSyscall);
}
void BM_StartStopUser(benchmark::State& state) {
  StartStop(state, ReadMode::kUser);
}

// Raw reads of every size first, so every Start+Stop row has its ratio.
void Register() {
  for (int n : kSizes) {
    benchmark::RegisterBenchmark("BM_RawReads", BM_RawReads)->Arg(n);
  }
  for (int n : kSizes) {
    benchmark::RegisterBenchmark("BM_StartStop/syscall", BM_StartStopSyscall)
        ->Arg(n);
    benchmark::RegisterBenchmark("BM_StartStop/user", BM_StartStopUser)->Arg(n);
  }
}

std::string Cell(const std::string& kind, int n) {
  auto it = Results().find({kind, n});
  auto raw = Results().find({"raw", n});
  if (it == Results().end()) {
    if (kind == "user" && Unavailable().count(n) > 0) return "unavailable";
    return "not run";
  }
  if (kind == "raw" || raw == Results().end()) {
    return absl::StrCat(static_cast<int64_t>(it->second), " ns");
  }
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.3f", it->second / raw->second);
  return absl::StrCat(static_cast<int64_t>(it->second), " ns (", ratio, "x)");
}

void PrintSummary() {
  std::printf("\nStart+Stop per counting interval vs two raw group read()s:\n");
  std::printf("%-3s %-14s %-24s %-24s\n", "N", "2 raw reads", "syscall path",
              "user-space path");
  for (int n : kSizes) {
    std::printf("%-3d %-14s %-24s %-24s\n", n, Cell("raw", n).c_str(),
                Cell("syscall", n).c_str(), Cell("user", n).c_str());
  }
  if (!Unavailable().empty()) {
    const auto& [n, why] = *Unavailable().begin();
    std::printf("user-space path, N=%d: %s\n", n, why.c_str());
  }
}

// CounterSet's user-space Start+Stop against the uapi reference, in
// instructions counted by an event of our own; prints one row per N, or
// why it cannot.
void PrintReferenceRatios() {
  const OuterInstructions& outer = Outer();
  std::printf("\nuser-space Start+Stop vs the uapi reference, in %s:\n",
              outer.text);
  if (!outer.event.ok()) {
    std::printf("unavailable: %s\n",
                std::string(outer.event.status().message()).c_str());
    return;
  }
  const double loop = outer.loop;
  std::printf("(the caller's loop, %.1f per pair, subtracted)\n", loop);
  std::printf("%-3s %-12s %-12s %s\n", "N", "CounterSet", "reference", "ratio");
  for (int n = 1; n <= 4; ++n) {
    std::string why;
    const std::string events = EventsFor(n, &why);
    if (!why.empty()) {
      std::printf("%-3d unavailable: %s\n", n, why.c_str());
      continue;
    }
    // One after the other: both groups at once might not fit on the PMU.
    double set = 0, reference = 0;
    bool fine = true;
    std::string why_not;
    {
      perfcounters::CountersOptions options;
      options.read_mode = ReadMode::kUser;
      options.calibrate = false;
      absl::StatusOr<Counters> counters = Counters::Open(events, options);
      if (!counters.ok()) {
        why_not = std::string(counters.status().message());
      } else if (!perfcounters::internal::CounterSetOf(*counters).user_space(
                     0)) {
        why_not =
            perfcounters::internal::CounterSetOf(*counters).user_space_reason(
                0);
      } else {
        Counters* c = &*counters;
        set = InstructionsPerPair(*outer.event,
                                  [&] {
                                    c->Start();
                                    c->Stop();
                                  }) -
              loop;
        fine = !perfcounters::internal::CounterSetOf(*counters).failed(0) &&
               perfcounters::internal::CounterSetOf(*counters)
                       .syscall_snapshots() == 0;
      }
    }
    if (why_not.empty()) {
      absl::StatusOr<perfcounters::bench_support::UapiReference> ref =
          perfcounters::bench_support::UapiReference::Open(Specs(events));
      if (!ref.ok()) {
        why_not = std::string(ref.status().message());
      } else {
        perfcounters::bench_support::UapiReference* r = &*ref;
        reference = InstructionsPerPair(*outer.event,
                                        [&] {
                                          r->Start();
                                          r->Stop();
                                        }) -
                    loop;
        fine = fine && ref->ok();
      }
    }
    if (!why_not.empty()) {
      std::printf("%-3d unavailable: %s\n", n, why_not.c_str());
      continue;
    }
    std::printf("%-3d %-12.1f %-12.1f %.3f%s\n", n, set, reference,
                set / reference, fine ? "" : " (a snapshot failed)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PrintSummary();
  PrintReferenceRatios();
  return 0;
}
