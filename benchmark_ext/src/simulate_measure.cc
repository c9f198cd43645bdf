// simulate_measure.cc: the child's side of the simulator — Measure's
// brackets as callgrind client requests (collection is off at start;
// each batch zeroes the costs and turns collection on, a pause turns it
// off and a resume on again), one dump per batch read back from the
// parent's private directory, the brackets' own costs calibrated and
// subtracted, and the estimates.
//
// Exactness. A dump's `totals:` line sums the costs of the instructions
// that ran while collection was on: from the guest basic block after the
// client request that turned it on to the one that turned it off. Those
// are the loop's and the bracket's own (the end of Measure::begin(), the
// loop's last check, the start of Finish(); ResumeActive()'s end and
// PauseActive()'s start for a pause); the bracket's are measured on empty
// loops through the same code (SimCalibrate) and subtracted.
#include <dirent.h>
#include <unistd.h>
#ifdef PERFCOUNTERS_HAVE_VALGRIND_H
#include <valgrind/callgrind.h>
#else
// Without valgrind's headers the parent refuses to run the child
// (simulate_run.cc), so these never run.
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(tag) (void)(tag)
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "benchmark/benchmark.h"
#include "console.h"
#include "measure_internal.h"
#include "registry.h"
#include "simulate.h"
#include "simulate_profile.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

constexpr char kDumpPrefix[] = "callgrind.out.";

const char* DumpDir() { return std::getenv(kChildEnvVar); }

// The dump of the calling thread's request `tag` (callgrind writes one
// file per thread and dump with --separate-threads=yes:
// "callgrind.out.<part>-<thread>", the request's tag in its `desc:
// Trigger:` line), read and then removed; other threads' dumps are left
// to them.
absl::StatusOr<std::string> TakeDump(const std::string& tag) {
  const char* dir_path = DumpDir();
  if (dir_path == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(kChildEnvVar, " is not set"));
  }
  DIR* dir = opendir(dir_path);
  if (dir == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot list callgrind's directory ", dir_path));
  }
  std::vector<std::string> dumps;
  while (const dirent* e = readdir(dir)) {
    absl::string_view name = e->d_name;
    if (!absl::ConsumePrefix(&name, kDumpPrefix)) continue;
    const size_t dash = name.find('-');
    int64_t part = 0;
    int64_t thread = 0;
    if (dash == absl::string_view::npos ||
        !absl::SimpleAtoi(name.substr(0, dash), &part) ||
        !absl::SimpleAtoi(name.substr(dash + 1), &thread)) {
      continue;
    }
    dumps.emplace_back(e->d_name);
  }
  closedir(dir);
  const std::string trigger =
      absl::StrCat("desc: Trigger: Client Request: ", tag, "\n");
  for (const std::string& d : dumps) {
    const std::string path = absl::StrCat(dir_path, "/", d);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in || !absl::StrContains(text.str(), trigger)) continue;
    unlink(path.c_str());
    return text.str();
  }
  return absl::NotFoundError(absl::StrCat(
      "callgrind wrote no dump into ", dir_path,
      " (is the benchmark running under the parent's callgrind?)"));
}

// Whether calibration subtracts the event: the counts (instructions, data
// accesses, branches), which the bracket's code runs the same way every
// time. Its misses depend on what ran before (cold after a dump, warm in a
// loop) and are left in.
constexpr bool kCalibrated[kSimEventCount] = {true,  true,  true,  false, false,
                                              false, false, false, false, true,
                                              false, true,  false};

}  // namespace

SimCosts SubtractCalibrated(const SimCosts& a, const SimCosts& b,
                            uint64_t times, std::vector<std::string>* below) {
  static constexpr const char* kNames[kSimEventCount] = {
      "Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
      "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};
  SimCosts out = a;
  for (int e = 0; e < kSimEventCount; ++e) {
    if (!kCalibrated[e]) continue;
    const uint64_t sub = b[e] * times;
    if (a[e] >= sub) {
      out[e] = a[e] - sub;
    } else {
      out[e] = 0;
      if (below != nullptr) below->push_back(kNames[e]);
    }
  }
  return out;
}

SimCosts CalibratedPart(const SimCosts& c) {
  SimCosts out{};
  for (int e = 0; e < kSimEventCount; ++e) {
    if (kCalibrated[e]) out[e] = c[e];
  }
  return out;
}

void SimCollectOn() {
  CALLGRIND_ZERO_STATS;
  CALLGRIND_TOGGLE_COLLECT;
}

void SimCollectOff() { CALLGRIND_TOGGLE_COLLECT; }

bool WantsSimulatedEstimates(const Config& config) {
  for (const std::string& key : config.plan.requested_keys) {
    if (absl::StartsWith(key, "cycles") ||
        absl::StartsWith(key, "cpu-cycles") ||
        absl::StartsWith(key, "instructions")) {
      return true;
    }
  }
  return false;
}

bool IsSimulatorChild() { return DumpDir() != nullptr; }

void SimStart(SimThread* t) {
  t->pauses = 0;
  t->collecting = true;
  CALLGRIND_ZERO_STATS;
  CALLGRIND_TOGGLE_COLLECT;
}

void SimStop(SimThread* t) {
  if (!t->collecting) return;
  CALLGRIND_TOGGLE_COLLECT;
  t->collecting = false;
}

void SimPause(SimThread* t) {
  if (!t->collecting) return;
  CALLGRIND_TOGGLE_COLLECT;
  t->collecting = false;
  ++t->pauses;
}

void SimResume(SimThread* t) {
  if (t->collecting || t->pauses == 0) return;
  t->collecting = true;
  CALLGRIND_TOGGLE_COLLECT;
}

absl::StatusOr<std::string> SimDumpText() {
  // A tag of this thread's own: the thread's and the process's dumps are
  // told apart by it.
  thread_local uint64_t dumps = 0;
  const std::string tag = absl::StrCat("perfcounters ", gettid(), " ", ++dumps);
  CALLGRIND_DUMP_STATS_AT(tag.c_str());
  return TakeDump(tag);
}

absl::StatusOr<SimCosts> SimDump() {
  absl::StatusOr<std::string> dump = SimDumpText();
  if (!dump.ok()) return dump.status();
  return ParseCallgrindTotals(*dump);
}

void SimCalibrate(SimThread* t, const std::function<void()>& batch,
                  const std::function<void()>& pause) {
  // The last of three runs: the bracket's code is then warm, as in every
  // batch after a benchmark's first.
  for (int round = 0; round < 3; ++round) {
    batch();
    absl::StatusOr<SimCosts> b = SimDump();
    CALLGRIND_ZERO_STATS;
    // A pause inside a running batch: collection on, one pause counted.
    t->collecting = false;
    t->pauses = 1;
    pause();
    t->pauses = 0;
    t->collecting = false;
    absl::StatusOr<SimCosts> p = SimDump();
    if (!b.ok() || !p.ok()) {
      WarnOnce("simulate/calibration",
               absl::StrCat("the simulator's calibration failed (",
                            (b.ok() ? p : b).status().message(),
                            "); nothing is subtracted"));
      t->batch_cost = SimCosts{};
      t->pause_cost = SimCosts{};
      return;
    }
    t->batch_cost = *b;
    t->pause_cost = *p;
  }
}

void PublishSimulated(SimThread* t, const Config& config,
                      benchmark::IterationCount iterations) {
  absl::StatusOr<std::string> text = SimDumpText();
  // The sampling run's region, by function (simulate_profile.h).
  if (text.ok() && SimProfiling())
    SimProfileAdd(*text, /*from_extra_run=*/false);
  absl::StatusOr<SimCosts> dump =
      text.ok() ? ParseCallgrindTotals(*text) : text.status();
  RunRecord& run = Registry::Get().run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (run.config != &config) return;
  ++run.publishers;
  run.iterations += iterations;
  // The simulator has no time enabled to compare with gbench's.
  run.time_known = false;
  if (!dump.ok()) {
    WarnOnce("simulate/dump/" + std::string(dump.status().message()),
             absl::StrCat("the simulator did not count a run (",
                          dump.status().message(),
                          "); its counters are marked not counted"));
    run.not_counted.assign(run.not_counted.size(), true);
    return;
  }
  std::vector<std::string> below;
  SimCosts net = SubtractCalibrated(*dump, t->batch_cost, 1, &below);
  net = SubtractCalibrated(net, t->pause_cost, t->pauses, &below);
  if (!below.empty()) {
    run.noise.push_back(absl::StrCat(
        "the simulator counted less than its calibrated bracket for ",
        absl::StrJoin(below, ","),
        " (those inputs are taken as 0): the bracket's code ran differently "
        "than when calibrated"));
  }
  if (run.simulated.empty()) run.simulated.assign(kSimEventCount, 0);
  for (int e = 0; e < kSimEventCount; ++e) run.simulated[e] += net[e];
  size_t i = 0;
  for (const PlannedGroup& g : config.plan.groups) {
    for (const PlannedEvent& e : g.events) {
      absl::StatusOr<std::vector<SimEvent>> inputs = SimulatedInputs(e.spec);
      if (!inputs.ok()) {
        run.not_counted[i] = true;
      } else {
        for (SimEvent in : *inputs) {
          run.scaled[i] += static_cast<double>(net[in]);
        }
      }
      ++i;
    }
  }
}

void ReportSimulatedEstimates(const Config& config, benchmark::State& state) {
  const bool wanted = WantsSimulatedEstimates(config);
  RunRecord& run = Registry::Get().run();
  std::lock_guard<std::mutex> lock(run.mu);
  if (!wanted || run.config != &config ||
      run.simulated.size() != kSimEventCount || run.skipped ||
      run.publishers != state.threads()) {
    return;
  }
  SimCosts sum{};
  for (int e = 0; e < kSimEventCount; ++e) sum[e] = run.simulated[e];
  const double cycles = EstimatedCycles(sum);
  state.counters["est_cycles"] = benchmark::Counter(
      cycles, benchmark::Counter::kAvgIterations, benchmark::Counter::kIs1000);
  if (cycles > 0) {
    state.counters["est_ipc"] =
        benchmark::Counter(static_cast<double>(sum[kIr]) / cycles);
  }
}

}  // namespace perfcounters::benchmark_ext_internal
