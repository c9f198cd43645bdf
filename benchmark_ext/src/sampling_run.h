// sampling_run.h: the main's --perf_profile flags and the pass that samples
// each benchmark's timed region (sampling_run.cc).
//
// With --perf_profile the selected benchmarks run twice: first a silent
// pass in which a Profiler per benchmark thread samples only the timed
// region of perfcounters::Measure loops (not gbench's setup, not the code
// before or after the loop, not PauseTiming()..ResumeTiming()), and of
// plain `for (auto _ : state)` loops in gbench's extra run (its
// ProfilerManager, 1.9 and newer: one thread, the repetition's iteration
// count); then the
// measured run, exactly as without the flag, whose console rows get a
// `hot:` line and whose JSON rows (--benchmark_out, --benchmark_format=json)
// the profile member.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_SAMPLING_RUN_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_SAMPLING_RUN_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"

namespace perfcounters::benchmark_ext_internal {

struct ProfileFlags {
  // --perf_profile: an event, or "auto"; empty when not profiling.
  std::string event;
  std::optional<uint64_t> period;     // --perf_profile_period
  std::optional<uint64_t> frequency;  // --perf_profile_freq
  int top = 3;                        // --perf_profile_top
  std::string out_dir;                // --perf_profile_out
};

// Removes the --perf_profile* flags from argv (as ExtractFlags does) and
// checks them: an unknown event, a bad rate, an unwritable directory are
// errors naming the flag.
absl::StatusOr<ProfileFlags> ExtractProfileFlags(int* argc, char** argv);

// Our section of --help for these flags.
std::string ProfileFlagsHelp();

// Runs the selected benchmarks as RunSpecifiedBenchmarks(display, file)
// does (`file` may be null), after a sampling run when `flags.event` is
// set. `console`: the display is gbench's console reporter (it then gets
// the hot: lines); `display_json`, `file_json`: the display or `file`
// writes gbench's JSON (its rows then get the profile member).
void RunWithProfiles(const ProfileFlags& flags,
                     benchmark::BenchmarkReporter* display, bool console,
                     bool display_json, benchmark::BenchmarkReporter* file,
                     bool file_json);

// Measure's hooks (measure_loop.cc), outside the counters' bracket: the
// timed region begins / ends / pauses / resumes on the calling thread.
// They do nothing outside the sampling run.
void ProfileBegin();
void ProfileEnd();
void ProfilePause();
void ProfileResume();
// Ends the calling thread's timed region and drops its samples (a Measure
// loop in gbench's extra run, which skips its body).
void ProfileDiscard();

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_SAMPLING_RUN_H_
