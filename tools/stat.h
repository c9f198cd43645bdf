// stat.h: what `perfcounters stat` measured (StatResult: per event, the
// values of every run) and the four ways it is written out: perf's table,
// perf's -x CSV, perf's -j JSON lines, and one JSON object (--json).
// stat_command.cc runs the command and fills a StatResult; stat_output.cc
// formats it.
#ifndef PERFCOUNTERS_TOOLS_STAT_H_
#define PERFCOUNTERS_TOOLS_STAT_H_

#include <string>
#include <vector>

#include "perfcounters/event_spec.h"

namespace perfcounters::tools {

// One event over all runs.
struct StatSeries {
  EventSpec spec;
  // Index of the user's `{}` group this event is in, or -1.
  int group = -1;
  // Index in the series of this event's group leader, when it is a member
  // (not the first) of a `{}` group; else -1.
  int leader = -1;
  // Why it cannot be opened, if so.
  std::string unsupported;
  // Opened user-space only because the kernel refused kernel counting
  // (perf_event_paranoid >= 2 without CAP_PERFMON), as perf stat falls back;
  // the label then ends in "u".
  bool user_only_fallback = false;
  // perf's duration_time: no kernel counter, the run's wall-clock time.
  bool duration_time = false;
  // A cost model's estimate, not a count (the simulator's est_cycles,
  // est_ipc): labelled as one in every format.
  bool estimate = false;
  // Shown with two decimals (a ratio such as est_ipc).
  bool fractional = false;
  std::vector<double> values;      // counted runs, scaled by spec.scale
  std::vector<double> coverages;   // running / enabled per counted run
  std::vector<double> running_ns;  // time_running per counted run
  int not_counted = 0;             // runs in which it never ran
};

// Everything one `stat` invocation measured.
struct StatResult {
  std::vector<std::string> command;
  // Who counted: empty for the PMU (perf_event_open), else the simulated
  // source's description ("simulate: valgrind-3.19.0 callgrind, ...").
  std::string source;
  int runs_asked = 1;
  // Runs whose counts are in `series` (the interrupted one included).
  int runs_done = 0;
  std::vector<double> seconds;  // wall-clock time per run
  // The last run's user and system CPU time (perf's "seconds user/sys").
  double user_seconds = 0;
  double sys_seconds = 0;
  std::vector<StatSeries> series;
  // The last run's command: exit status, or the signal that killed it.
  int exit_status = 0;
  int term_signal = 0;
  // The signal (SIGINT, SIGTERM, SIGHUP) that stopped `stat` early, or 0.
  int interrupted_by = 0;
  // perf_event_paranoid when some event fell back to user space only.
  int fallback_paranoid = 0;

  // The exit code of `stat`: the command's, 128 + signal when killed.
  int ExitCode() const {
    return term_signal != 0 ? 128 + term_signal : exit_status;
  }
};

// perf's table (what `perf stat` prints on stderr).
std::string FormatStatTable(const StatResult& r);
// perf's `-x SEP` lines: value, unit, event, [variance% with -r,] run time
// (ns), running %, metric value, metric unit.
std::string FormatStatCsv(const StatResult& r, const std::string& sep);
// perf's `-j` lines: one JSON object per event.
std::string FormatStatJsonLines(const StatResult& r);
// One JSON object (docs/tools.md describes its shape).
std::string FormatStatJson(const StatResult& r);
// The notes `stat` prints on stderr besides the counts (the user-only
// fallback, an interruption), one per line; empty when none.
std::string StatNotes(const StatResult& r);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_STAT_H_
