// sampling_run.cc: --perf_profile*: the flags, Measure's hooks, and the
// sampling run before the measured one (sampling_run.h).
#include "sampling_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "console.h"
#include "extra_run.h"
#include "extra_run_counting.h"
#include "perfcounters/grammar.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/profile.h"
#include "perfcounters/symbols.h"
#include "profile_format.h"
#include "registry.h"
#include "rows.h"
#include "simulate.h"
#include "simulate_profile.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

// The sampling run's process-wide state (process_state.h).
SamplingRunState& Sampling() { return Registry::Get().state().sampling; }

// This thread's sampler (opened at its first timed region) and whether it
// is sampling the timed region now (per thread: process_state.h's listed
// exceptions).
thread_local std::unique_ptr<Profiler> t_profiler;
thread_local bool t_in_region = false;

// A warning of the sampling run, through the one warn-once (registry.h).
void WarnProfile(const std::string& message) {
  WarnOnce(absl::StrCat("profile: ", message), message);
}

// `--name=VALUE` (or -name=VALUE): the value; nullopt for another flag.
std::optional<absl::string_view> FlagValue(absl::string_view arg,
                                           absl::string_view name) {
  if (!absl::ConsumePrefix(&arg, "--")) absl::ConsumePrefix(&arg, "-");
  if (!absl::ConsumePrefix(&arg, name) || !absl::ConsumePrefix(&arg, "=")) {
    return std::nullopt;
  }
  return arg;
}

absl::Status CheckWritableDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return absl::InvalidArgumentError(
        absl::StrCat("--perf_profile_out=", dir,
                     ": cannot create the directory: ", strerror(errno)));
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--perf_profile_out=", dir,
        ": not a writable directory; give one the folded-stack files can "
        "be written into"));
  }
  return absl::OkStatus();
}

// Writes `text` into dir/name whole (a temporary file renamed over it).
absl::Status WriteWhole(const std::string& dir, const std::string& name,
                        const std::string& text) {
  const std::string path = absl::StrCat(dir, "/", name);
  const std::string tmp = absl::StrCat(path, ".tmp", getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      const int error = errno;
      unlink(tmp.c_str());
      return absl::InternalError(
          absl::StrCat("cannot write ", path, ": ", strerror(error)));
    }
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return absl::InternalError(
        absl::StrCat("cannot rename onto ", path, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

// Collects each benchmark's profile as the sampling run reports it, and
// prints nothing.
class Collector : public benchmark::BenchmarkReporter {
 public:
  // `simulated`: the simulator's child, profiling `event` (`inputs`).
  Collector(Summaries* out, const std::vector<SimEvent>* simulated,
            std::string event)
      : out_(out), simulated_(simulated), event_(std::move(event)) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    if (simulated_ != nullptr) {
      ReportSimulated(runs);
      return;
    }
    Profile p;
    absl::Status error;
    bool from_extra_run = false;
    {
      SamplingRunState& sampling = Sampling();
      std::lock_guard<std::mutex> lock(sampling.mu);
      p = std::move(sampling.profile);
      sampling.profile = Profile();
      error = std::exchange(sampling.error, absl::OkStatus());
      from_extra_run = std::exchange(sampling.from_extra_run, false);
    }
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      if (!error.ok()) {
        WarnProfile(absl::StrCat(run.benchmark_name(),
                                 ": no profile: ", error.message()));
        return;
      }
      if (Skipped(run) || p.event.empty()) {
        // No profile of its timed region: said (once per reason, after the
        // sampling run), never left out silently.
        NoteNoProfile(run, "sample");
        return;
      }
      if (!symbolizer_.has_value()) {
        absl::StatusOr<Symbolizer> s = Symbolizer::ForThisProcess();
        if (!s.ok()) {
          WarnProfile(std::string(s.status().message()));
          return;
        }
        symbolizer_ = std::move(*s);
      }
      ShownProfile& shown = (*out_)[run.benchmark_name()];
      shown.summary = SummarizeProfile(p, *symbolizer_);
      if (from_extra_run && run.threads > 1) {
        // gbench's extra run has one thread: the profile is its main
        // thread's, and says so.
        shown.threads = run.threads;
        shown.threads_sampled = 1;
        one_thread_.push_back(run.benchmark_name());
      }
      return;
    }
  }

  // The simulator's child: callgrind's costs of the benchmark's region.
  void ReportSimulated(const std::vector<Run>& runs) {
    absl::StatusOr<SimProfileResult> r = TakeSimProfile(event_, *simulated_);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      if (!r.ok()) {
        WarnProfile(absl::StrCat(run.benchmark_name(),
                                 ": no profile: ", r.status().message()));
        return;
      }
      if (Skipped(run) || r->empty) {
        NoteNoProfile(run, "count");
        return;
      }
      ShownProfile& shown = (*out_)[run.benchmark_name()];
      shown.summary = std::move(r->summary);
      shown.simulated = true;
      shown.excluded = r->excluded;
      if (r->from_extra_run && run.threads > 1) {
        // As in the sampled profile: gbench's extra run has one thread.
        shown.threads = run.threads;
        shown.threads_sampled = 1;
        one_thread_.push_back(run.benchmark_name());
      }
      return;
    }
  }

  // The notes of benchmarks without a profile: one line per reason; and
  // one for the Threads(N) benchmarks sampled on one thread.
  void PrintNotes() {
    for (const auto& [why, names] : std::exchange(notes_, {})) {
      std::fprintf(stderr, "perfcounters: note: %s: no profile: %s\n",
                   absl::StrJoin(names, ", ").c_str(), why.c_str());
    }
    const std::vector<std::string> one = std::exchange(one_thread_, {});
    if (one.empty()) return;
    const char* how = simulated_ != nullptr ? "count" : "sample";
    std::fprintf(
        stderr,
        "perfcounters: note: %s: profiled on one thread only: a plain `for "
        "(auto _ : state)` loop is %sed in gbench's extra run (its "
        "ProfilerManager), which runs it on the main thread alone, so the "
        "profile is gbench's thread 0's, not its other threads' (the JSON "
        "says \"threads_sampled\": 1); use perfcounters::Measure to %s "
        "every thread\n",
        absl::StrJoin(one, ", ").c_str(), how, how);
  }

 private:
  // Why `run` has no profile (`how`: "sample" or "count").
  void NoteNoProfile(const Run& run, const char* how) {
    Note(run.benchmark_name(),
         Skipped(run) ? "it skipped its run (SkipWithError)"
         : ExtraRunAvailable()
             ? "its timed loop did not run"
             : absl::StrCat("it does not use perfcounters::"
                            "Measure, and this Google Benchmark "
                            "(older than 1.9) has no "
                            "ProfilerManager to ",
                            how,
                            " a plain `for (auto _ : state)` "
                            "loop in"));
  }

  void Note(const std::string& name, const std::string& why) {
    for (auto& [w, names] : notes_) {
      if (w != why) continue;
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
      return;
    }
    notes_.emplace_back(why, std::vector<std::string>{name});
  }

  Summaries* out_;
  const std::vector<SimEvent>* simulated_;
  const std::string event_;
  std::optional<Symbolizer> symbolizer_;
  std::vector<std::pair<std::string, std::vector<std::string>>> notes_;
  // Threads(N) benchmarks profiled in gbench's extra run (one thread).
  std::vector<std::string> one_thread_;
};

void Merge(absl::StatusOr<Profile> p) {
  SamplingRunState& sampling = Sampling();
  std::lock_guard<std::mutex> lock(sampling.mu);
  if (!p.ok()) {
    if (sampling.error.ok()) sampling.error = p.status();
    return;
  }
  if (absl::Status st = sampling.profile.Merge(*p);
      !st.ok() && sampling.error.ok()) {
    sampling.error = st;
  }
}

// The sampling run's file reporter, where --benchmark_out needs one (gbench
// would make its own and write the pass's rows): prints and keeps nothing.
// The Collector takes each benchmark's profile once, as the display.
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// gbench's extra run (its ProfilerManager, 1.9 and newer) of a benchmark
// without Measure: its timed loop, on the main thread, with the
// repetition's iteration count. Start() comes after gbench's setup and the
// benchmark's code before its loop, Stop() before the code after it.
class ExtraRunSampler : public ExtraRunClient {
 public:
  void Start() override { ProfileBegin(); }
  void Stop() override {
    // Still in the region: no Measure loop discarded it, so these are a
    // plain loop's samples.
    if (t_in_region) {
      SamplingRunState& sampling = Sampling();
      std::lock_guard<std::mutex> lock(sampling.mu);
      sampling.from_extra_run = true;
    }
    ProfileEnd();
  }
};

// One note for every benchmark whose call chains broke (SummarizeProfile
// judged them), with what to change.
void NoteBrokenCallChains(const Summaries& summaries) {
  std::vector<std::string> broken;
  for (const auto& [name, shown] : summaries) {
    const ProfileSummary& s = shown.summary;
    if (s.callchains || s.callchains_broken == 0 || s.samples == 0) continue;
    broken.push_back(absl::StrCat(
        name, " (",
        absl::StrFormat("%.0f%%", 100.0 *
                                      static_cast<double>(s.callchains_broken) /
                                      static_cast<double>(s.samples)),
        ")"));
  }
  if (broken.empty()) return;
  std::fprintf(
      stderr,
      "perfcounters: note: %s: call chains broken: that share of the "
      "samples has no caller that a symbol covers, as code built without "
      "frame pointers gives; rebuild the benchmarks and the code they call "
      "with -fno-omit-frame-pointer (and -mno-omit-leaf-frame-pointer) for "
      "stacks and inclusive shares. The self shares (hot: lines) are right; "
      "the JSON says \"callchains\": false\n",
      absl::StrJoin(broken, ", ").c_str());
}

// One folded-stack file per profiled benchmark (--perf_profile_out).
void WriteFoldedFiles(const ProfileFlags& flags, const Summaries& summaries) {
  for (const auto& [name, s] : summaries) {
    if (flags.out_dir.empty()) break;
    absl::Status st = WriteWhole(flags.out_dir, FoldedFileName(name),
                                 FoldedStacks(s.summary));
    if (!st.ok()) {
      WarnProfile(absl::StrCat(name, ": ", st.message()));
    }
  }
}

void RunSamplingRun(const ProfileFlags& flags, bool file, Summaries* out);
void RunSimulatedProfileRun(const ProfileFlags& flags, bool file,
                            Summaries* out);

}  // namespace

void ProfileDiscard() {
  if (!t_in_region) return;
  t_in_region = false;
  (void)t_profiler->Take();
}

void ProfileBegin() {
  if (t_in_region || !Sampling().profiling.load(std::memory_order_relaxed)) {
    return;
  }
  if (t_profiler == nullptr) {
    absl::StatusOr<Profiler> p = Profiler::Open(Sampling().options);
    if (!p.ok()) {
      Merge(p.status());
      return;
    }
    t_profiler = std::make_unique<Profiler>(std::move(*p));
  }
  t_in_region = true;
  (void)t_profiler->Start();
}

void ProfileEnd() {
  if (!t_in_region) return;
  t_in_region = false;
  Merge(t_profiler->Take());
}

void ProfilePause() {
  if (t_in_region) (void)t_profiler->Stop();
}

void ProfileResume() {
  if (t_in_region) (void)t_profiler->Start();
}

absl::StatusOr<ProfileFlags> ExtractProfileFlags(int* argc, char** argv) {
  ProfileFlags f;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const absl::string_view arg = argv[i];
    std::optional<absl::string_view> v;
    bool ours = true;
    if ((v = FlagValue(arg, "perf_profile"))) {
      f.event = std::string(*v);
      if (f.event.empty()) {
        return absl::InvalidArgumentError(
            "--perf_profile= needs an event: write --perf_profile=auto, "
            "--perf_profile=cycles or --perf_profile=cpu-clock");
      }
    } else if ((v = FlagValue(arg, "perf_profile_period"))) {
      absl::StatusOr<uint64_t> n =
          ParseSampleRate(std::string_view(v->data(), v->size()), "period");
      if (!n.ok())
        return absl::InvalidArgumentError(
            absl::StrCat("--perf_profile_period: ", n.status().message()));
      f.period = *n;
    } else if ((v = FlagValue(arg, "perf_profile_freq"))) {
      absl::StatusOr<uint64_t> n =
          ParseSampleRate(std::string_view(v->data(), v->size()), "frequency");
      if (!n.ok())
        return absl::InvalidArgumentError(
            absl::StrCat("--perf_profile_freq: ", n.status().message()));
      f.frequency = *n;
    } else if ((v = FlagValue(arg, "perf_profile_top"))) {
      if (!absl::SimpleAtoi(*v, &f.top) || f.top < 1 || f.top > 100) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--perf_profile_top=", *v, ": write a number from 1 to 100"));
      }
    } else if ((v = FlagValue(arg, "perf_profile_out"))) {
      f.out_dir = std::string(*v);
      if (f.out_dir.empty()) {
        return absl::InvalidArgumentError(
            "--perf_profile_out= needs a directory");
      }
    } else {
      ours = false;
    }
    if (!ours) argv[out++] = argv[i];
  }
  if (*argc > 0) {
    argv[out] = nullptr;
    *argc = out;
  }
  const bool rate = f.period || f.frequency;
  if (f.event.empty() && (rate || !f.out_dir.empty())) {
    return absl::InvalidArgumentError(
        "--perf_profile_period, --perf_profile_freq and --perf_profile_out "
        "need --perf_profile=EVENT (or auto)");
  }
  if (f.period && f.frequency) {
    return absl::InvalidArgumentError(
        "give --perf_profile_period or --perf_profile_freq, not both");
  }
  if (!f.event.empty() && f.event != "auto") {
    if (f.event.find_first_of(",{}") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--perf_profile=", ShortForMessage(f.event),
          ": a profile samples one event, not a list or a group; give one, "
          "e.g. --perf_profile=cycles (count the others with "
          "--perf_counters)"));
    }
    // A name the grammar does not know is a mistake, not a refusal.
    ParseOptions parse;
    parse.default_user_only = true;
    absl::StatusOr<EventSpec> spec = ParseEvent(f.event, parse);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--perf_profile=", f.event, ": ", spec.status().message()));
    }
  }
  if (!f.out_dir.empty()) {
    RETURN_IF_ERROR(CheckWritableDir(f.out_dir));
  }
  return f;
}

std::string ProfileFlagsHelp() {
  return R"(perfcounters: a sampled profile of each benchmark's timed region
  --perf_profile=EVENT|auto
        Run the selected benchmarks once more, before the measured run,
        sampling the timed region of perfcounters::Measure loops (and of
        plain loops in gbench 1.9's ProfilerManager run) on EVENT
        (our grammar: cycles, instructions, cpu-clock, ...; user space
        unless :k/:uk); auto = cycles where they count, else cpu-clock.
        The measured run is unchanged. Each row gets a hot: line; the
        --benchmark_out JSON rows a "perfcounters_profile" member.
        With --perf_counters_source=simulate: callgrind's exact counts
        of EVENT (instructions = auto, L1-dcache-load-misses, branches,
        ... any simulated event), not samples, labelled [simulated].
  --perf_profile_period=N / --perf_profile_freq=HZ
        Sample every N events (ns for the clocks), or HZ times a second
        (default: 250000 ns for the clocks, else 4000 Hz).
  --perf_profile_top=N
        Functions on the hot: line (default 3).
  --perf_profile_out=DIR
        One folded-stack file per benchmark (flamegraph.pl, inferno,
        speedscope), named after the benchmark.

)";
}

void RunWithProfiles(const ProfileFlags& flags,
                     benchmark::BenchmarkReporter* display, bool console,
                     bool display_json, benchmark::BenchmarkReporter* file,
                     bool file_json) {
  if (flags.event.empty()) {
    if (file != nullptr) {
      benchmark::RunSpecifiedBenchmarks(display, file);
    } else {
      benchmark::RunSpecifiedBenchmarks(display);
    }
    return;
  }
  Summaries summaries;
  if (IsSimulatorChild()) {
    RunSimulatedProfileRun(flags, file != nullptr, &summaries);
  } else {
    RunSamplingRun(flags, file != nullptr, &summaries);
  }
  ProfileReporter shown(display, &summaries, console, display_json, flags.top);
  if (file == nullptr) {
    benchmark::RunSpecifiedBenchmarks(&shown);
    return;
  }
  ProfileReporter to_file(file, &summaries, false, file_json, flags.top);
  benchmark::RunSpecifiedBenchmarks(&shown, &to_file);
}

namespace {

void RunSamplingRun(const ProfileFlags& flags, bool file, Summaries* out) {
  Summaries& summaries = *out;
  ProfileOptions o;
  o.period = flags.period;
  o.frequency = flags.frequency;
  o.callchain = true;
  o.event = flags.event == "auto" ? "cycles" : flags.event;
  absl::StatusOr<Profiler> probe = Profiler::Open(o);
  if (!probe.ok() && flags.event == "auto") {
    o.event = "cpu-clock";
    probe = Profiler::Open(o);
  }
  if (!probe.ok()) {
    // An event that cannot be sampled here (cycles without a PMU): say
    // what can, where the CPU clock can.
    std::string hint;
    ProfileOptions clock = o;
    clock.event = "cpu-clock";
    if (flags.event != "auto" && flags.event != "cpu-clock" &&
        Profiler::Open(clock).ok()) {
      hint =
          "; --perf_profile=auto samples cycles where they count, else "
          "cpu-clock, which samples here (or give --perf_profile=cpu-clock)";
    }
    WarnProfile(absl::StrCat("--perf_profile=", flags.event, ": no profiles: ",
                             probe.status().message(), hint));
  } else {
    *probe = Profiler();  // closed again: each thread opens its own
    SamplingRunState& sampling = Sampling();
    sampling.options = o;
    // Benchmarks without Measure are sampled in gbench's extra run (where
    // the linked gbench has one).
    std::call_once(sampling.extra_run_sampler_once, [&sampling] {
      sampling.extra_run_sampler = new ExtraRunSampler();
      AddExtraRunClient(sampling.extra_run_sampler);
    });
    sampling.profiling.store(true);
    Collector collector(&summaries, nullptr, "");
    Silent quiet_file;
    if (!file) {
      benchmark::RunSpecifiedBenchmarks(&collector);
    } else {
      benchmark::RunSpecifiedBenchmarks(&collector, &quiet_file);
    }
    collector.PrintNotes();
    sampling.profiling.store(false);
    t_profiler.reset();
    // The counts of gbench's extra runs in the sampling run belong to no
    // reported row: the measured run's rows take only their own.
    (void)TakeExtraRunResults();
    NoteBrokenCallChains(summaries);
    WriteFoldedFiles(flags, summaries);
  }
}

void RunSimulatedProfileRun(const ProfileFlags& flags, bool file,
                            Summaries* out) {
  // The parent checked the event (simulate_run.cc): an error here is one
  // line, and no profiles.
  absl::StatusOr<std::vector<SimEvent>> inputs = SimProfileInputs(flags.event);
  if (!inputs.ok()) {
    WarnProfile(absl::StrCat("no profiles: ", inputs.status().message()));
    return;
  }
  Collector collector(out, &*inputs,
                      flags.event == "auto" ? "instructions" : flags.event);
  Silent quiet_file;
  SimProfileStart();
  if (!file) {
    benchmark::RunSpecifiedBenchmarks(&collector);
  } else {
    benchmark::RunSpecifiedBenchmarks(&collector, &quiet_file);
  }
  SimProfileStop();
  collector.PrintNotes();
  (void)TakeExtraRunResults();
  WriteFoldedFiles(flags, *out);
}

}  // namespace
}  // namespace perfcounters::benchmark_ext_internal
