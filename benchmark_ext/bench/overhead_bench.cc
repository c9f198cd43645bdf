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
#include <time.h>
#include <unistd.h>

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
#include "counter_set.h"
#include "perfcounters/counters.h"
#include "perfcounters/grammar.h"
#include "perfcounters/group.h"
#include "perfcounters/plan.h"

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
  const std::string hw = FirstEvents(
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
  const double t0 = NowNs();
  for (auto _ : state) {
    benchmark::DoNotOptimize(read(fd, buffer, bytes));
    benchmark::DoNotOptimize(read(fd, buffer, bytes));
  }
  Record(state, "raw", n, NowNs() - t0);
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
  const double t0 = NowNs();
  for (auto _ : state) {
    counters->Start();
    counters->Stop();
  }
  const double ns = NowNs() - t0;
  if (set.failed(0)) {
    state.SkipWithError("a snapshot failed");
    return;
  }
  state.counters["user_snapshots"] = static_cast<double>(set.user_snapshots());
  state.counters["syscall_snapshots"] =
      static_cast<double>(set.syscall_snapshots());
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

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PrintSummary();
  return 0;
}
