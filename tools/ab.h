// ab.h: `perfcounters ab BASE NEW [-- gbench flags]` without the command
// line: runs two Google Benchmark binaries alternately (ABBA: A B, B A,
// A B, ...), one repetition of each benchmark per binary and round, and
// reports per benchmark and metric the ratio new/base with the sign-test
// interval of the paired log-ratios (paired_stats.h). A benchmark stops
// when its interval on the stop metric is narrower than the precision
// asked; the run ends when every benchmark has stopped or at the most
// rounds. The rounds are written as two gbench JSON files (one row per
// round, repetition_index = the round, and the pair's id in the context)
// that `compare`, `report` and their gates read as paired (compare.h).
#ifndef PERFCOUNTERS_TOOLS_AB_H_
#define PERFCOUNTERS_TOOLS_AB_H_

#include <signal.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "paired_stats.h"

namespace perfcounters::tools {

struct AbOptions {
  std::string base;  // BASE binary
  std::string next;  // NEW binary
  // Flags for both binaries (after `--`); ab's own --benchmark_out,
  // --benchmark_out_format, --benchmark_repetitions and
  // --benchmark_filter (the benchmarks still running) come after them.
  std::vector<std::string> gbench_flags;
  size_t min_rounds = 6;
  size_t max_rounds = 40;
  // A benchmark stops when its interval of `metric`, exp(high) - exp(low),
  // is narrower than this (1 %: 0.01).
  double precision = 0.01;
  double confidence = 0.95;
  std::string metric = "cpu_time";
  // The rounds as gbench JSON; empty: not written.
  std::string base_out;
  std::string next_out;
  // Progress on stderr, one line per round.
  bool progress = true;
  // Seconds one start of a binary (a round's run of one side, or its list
  // of benchmarks) may take before it is killed and ab fails; 0: no limit.
  double timeout_s = 600;
};

// One metric of one benchmark.
struct AbMetric {
  std::string metric;
  // Per round counted on both sides (0 is a counted value; a round not
  // counted on a side is no pair).
  std::vector<double> base;
  std::vector<double> next;
  // Rounds counted as 0 on both sides (no ratio: left out of the interval,
  // unchanged), and rounds with no ratio otherwise (0 on one side, or a
  // negative value).
  size_t zero_both = 0;
  size_t no_ratio = 0;
  PairedInterval interval;  // of log(next / base) over the other rounds
};

// One benchmark.
struct AbBenchmark {
  std::string name;
  size_t rounds = 0;
  // Why it stopped: "precision" or "max-rounds".
  std::string stopped;
  std::vector<AbMetric> metrics;
};

struct AbResult {
  size_t rounds = 0;
  double confidence = 0.95;
  double precision = 0.01;
  std::string metric;
  std::vector<AbBenchmark> benchmarks;
};

// Runs the comparison. Errors (a binary missing, not executable, not a
// gbench binary, failing or killed in a round, benchmarks that differ,
// an output that cannot be written) say which binary and round, and leave
// no output file behind.
absl::StatusOr<AbResult> RunAb(const AbOptions& options);

// The result as a table (stdout's default) or as JSON.
std::string AbTable(const AbResult& result);
std::string AbJson(const AbResult& result);

// What a finished child process did, and its last stderr line.
struct ChildExit {
  bool started = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it
  std::string error;   // why it did not start
  // It ran past the timeout and was killed (SIGKILL).
  bool timed_out = false;
  double timeout_s = 0;
  // A passed-on signal ab received (AbInterruptedBy) before it ended.
  int interrupted = 0;
};

// While it lives, SIGINT, SIGTERM, SIGHUP and SIGQUIT (those ab does not
// ignore, as SIGHUP under nohup) are passed on to the running child's
// group and recorded instead of ending ab at once, so that ab can remove
// its files first; a second one kills the child's group.
class AbPassSignalsOn {
 public:
  AbPassSignalsOn();
  ~AbPassSignalsOn();
  AbPassSignalsOn(const AbPassSignalsOn&) = delete;
  AbPassSignalsOn& operator=(const AbPassSignalsOn&) = delete;

 private:
  struct sigaction old_[4] = {};
};

// The first passed-on signal received (0: none).
int AbInterruptedBy();
// Ends ab as the signal AbInterruptedBy() names would have (default
// action); returns when there was none.
void AbEndAsInterrupted();

// Runs `argv` (argv[0] a path) with stdout and stderr to the files given,
// in a process group of its own, and waits for it: at most `timeout_s`
// seconds of wall time (0: no limit), then kills its group (SIGKILL: what
// it started too) and reaps it. Meanwhile SIGINT (a terminal's Ctrl-C,
// which reaches ab's group only), SIGTERM, SIGHUP and SIGQUIT are passed on
// to the child's group (AbPassSignalsOn) and set `interrupted`; after one,
// no child starts.
ChildExit RunChild(const std::vector<std::string>& argv,
                   const std::string& stdout_path,
                   const std::string& stderr_path, double timeout_s = 0);

// "exited 3", "was killed by signal 11 (Segmentation fault)", "did not
// finish within 600 s (--timeout) and was killed", ...
std::string DescribeExit(const ChildExit& exit);

// Escapes `name` for an anchored gbench --benchmark_filter alternative.
std::string FilterEscape(const std::string& name);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_AB_H_
