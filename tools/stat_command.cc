// stat_command.cc: `perfcounters stat [-e LIST] [-r N] [-x SEP | --json]
// [--] COMMAND...`: counts a command the way `perf stat` does.
//
// Per run: fork; the child waits on a pipe; the parent opens every event on
// the child (disabled, enable_on_exec, inherit: children included) and lets
// it exec. The counters start at exec and are read after the child exits.
// Events are read one by one (inherit and PERF_FORMAT_GROUP reads do not
// mix), each scaled by its own time_enabled/time_running. Events the user
// put in braces (`-e '{cycles,instructions}'`) are opened as one kernel group,
// as perf stat does: the leader is enabled at exec and the members count
// exactly when it does, so they are scheduled together or not at all. A group
// that can never be scheduled (more events than counters) reads as not
// counted, and says so.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "commands.h"
#include "nlohmann/json.hpp"
#include "perfcounters/counts.h"
#include "perfcounters/event.h"
#include "perfcounters/grammar.h"
#include "perfcounters/metrics.h"

namespace perfcounters::tools {
namespace {

// One event over all runs.
struct Series {
  EventSpec spec;
  // Index of the user's `{}` group this event is in, or -1.
  int group = -1;
  // Index in the series of this event's group leader, when it is a member
  // (not the first) of a `{}` group; else -1.
  int leader = -1;
  std::string unsupported;         // why it cannot be opened, if so
  std::vector<double> values;      // counted runs, scaled
  std::vector<double> coverages;   // running / enabled per counted run
  std::vector<double> running_ns;  // time_running per counted run
  int not_counted = 0;
};

struct RunOutcome {
  int exit_code = 0;
  double seconds = 0;
};

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Relative standard error of the mean in %, as perf prints "( +- x% )".
double SpreadPct(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return m == 0 ? 0 : sd / std::sqrt(static_cast<double>(v.size())) / m * 100;
}

// Runs the command once, counting `series`. Returns an error message when
// the command cannot be executed.
absl::StatusOr<RunOutcome> RunOnce(const std::vector<std::string>& command,
                                   std::vector<Series>& series) {
  int go[2], exec_err[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(exec_err, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    close(go[1]);
    close(exec_err[0]);
    char c;
    if (read(go[0], &c, 1) < 0) _exit(127);
    std::vector<char*> argv;
    for (const std::string& a : command) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    (void)!write(exec_err[1], &err, sizeof err);
    _exit(127);
  }
  close(go[0]);
  close(exec_err[1]);
  std::vector<std::optional<Event>> events(series.size());
  for (size_t i = 0; i < series.size(); ++i) {
    if (!series[i].unsupported.empty()) continue;
    const int leader = series[i].leader;
    const bool member = leader >= 0;
    if (member && !events[leader]) {
      series[i].unsupported = absl::StrCat(
          "its group leader ", series[leader].spec.label, " cannot be opened");
      continue;
    }
    Attr attr = series[i].spec.attr;
    attr.disabled = !member;
    attr.enable_on_exec = !member;
    attr.inherit = true;
    attr.read_format =
        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    absl::StatusOr<Event> e =
        Event::Open(attr, series[i].spec.label, Target::Thread(pid),
                    member ? events[leader]->fd() : -1);
    if (!e.ok()) {
      series[i].unsupported = std::string(e.status().message());
      continue;
    }
    events[i] = *std::move(e);
  }
  const auto start = std::chrono::steady_clock::now();
  close(go[1]);  // the child may exec now
  int err = 0;
  const bool exec_failed = read(exec_err[0], &err, sizeof err) == sizeof err;
  close(exec_err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  RunOutcome out;
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (exec_failed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot execute '", command[0], "': ", std::strerror(err)));
  }
  out.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  for (size_t i = 0; i < series.size(); ++i) {
    if (!events[i]) continue;
    absl::StatusOr<Count> c = events[i]->ReadCount();
    if (!c.ok()) {
      ++series[i].not_counted;
      continue;
    }
    const ScaledCount s = Scale(*c);
    if (!s.counted()) {
      ++series[i].not_counted;
      continue;
    }
    series[i].values.push_back(s.value() * series[i].spec.scale);
    series[i].coverages.push_back(s.coverage());
    series[i].running_ns.push_back(static_cast<double>(s.running()));
  }
  return out;
}

// The event named `base` (modifiers ignored) with a value, if any.
const Series* Find(const std::vector<Series>& series, absl::string_view base) {
  for (const Series& s : series) {
    const std::string& l = s.spec.label;
    if (!s.values.empty() &&
        (l == base || absl::StartsWith(l, absl::StrCat(base, ":")))) {
      return &s;
    }
  }
  return nullptr;
}

// Derived metric shown next to `s`: the metrics of the table (metrics.h)
// whose numerator `s` is and that perf stat comments (IPC, miss rates,
// stall ratios), else CPUs utilized for task-clock.
std::string Derived(const Series& s, const std::vector<Series>& all,
                    double seconds, double* value, std::string* unit) {
  std::string r;
  for (const perfcounters::Metric& m : perfcounters::Metrics()) {
    if (m.perf_stat.empty()) continue;
    const Series* n =
        Find(all, absl::string_view(m.numerator.data(), m.numerator.size()));
    const Series* d = Find(
        all, absl::string_view(m.denominator.data(), m.denominator.size()));
    if (n != &s || d == nullptr || Mean(d->values) == 0) continue;
    *value = Mean(n->values) / Mean(d->values) * (m.percent ? 100 : 1);
    *unit = absl::StrCat(m.percent ? "% " : "", std::string(m.perf_stat));
    r = absl::StrFormat("#  %6.2f%s%s", *value, m.percent ? "% " : "  ",
                        std::string(m.perf_stat));
    break;
  }
  if (r.empty() &&
      (s.spec.label == "task-clock" ||
       absl::StartsWith(s.spec.label, "task-clock:")) &&
      seconds > 0) {
    *value = Mean(s.values) / 1e9 / seconds;
    *unit = "CPUs utilized";
    r = absl::StrFormat("#  %6.3f CPUs utilized", *value);
  }
  return r;
}

// Why `s` (never counted) was not counted, when it is known: a `{}` group
// whose events were all opened but never ran could not be scheduled.
std::string NotCountedWhy(const Series& s, const std::vector<Series>& all) {
  if (s.group < 0) return "";
  int size = 0;
  for (const Series& o : all) {
    if (o.group != s.group) continue;
    if (!o.unsupported.empty() || !o.values.empty()) return "";
    ++size;
  }
  return absl::StrCat("  (group of ", size,
                      " never scheduled: more events than the PMU has "
                      "counters for them?)");
}

}  // namespace

int RunStat(const StatArgs& args) {
  if (args.command.empty()) {
    std::fprintf(stderr, "perfcounters stat: no command to run\n");
    return kExitUsage;
  }
  if (args.repeat < 1) {
    std::fprintf(stderr, "perfcounters stat: -r must be >= 1, not %d\n",
                 args.repeat);
    return kExitUsage;
  }
  absl::StatusOr<std::vector<GroupSpec>> groups = ParseEventList(args.events);
  if (!groups.ok()) {
    std::fprintf(stderr, "perfcounters stat: -e '%s': %s\n",
                 args.events.c_str(),
                 std::string(groups.status().message()).c_str());
    return kExitUsage;
  }
  std::vector<Series> series;
  int user_groups = 0;
  for (const GroupSpec& g : *groups) {
    const int group = g.user_group ? user_groups++ : -1;
    // The first event of a `{}` group leads it; the others join its fd.
    const int leader = static_cast<int>(series.size());
    for (const EventSpec& e : g.events) {
      Series s;
      s.spec = e;
      s.group = group;
      if (group >= 0 && static_cast<int>(series.size()) != leader) {
        s.leader = leader;
      }
      series.push_back(std::move(s));
    }
  }
  std::vector<double> seconds;
  int exit_code = 0;
  for (int r = 0; r < args.repeat; ++r) {
    absl::StatusOr<RunOutcome> out = RunOnce(args.command, series);
    if (!out.ok()) {
      std::fprintf(stderr, "perfcounters stat: %s\n",
                   std::string(out.status().message()).c_str());
      return kExitUsage;
    }
    seconds.push_back(out->seconds);
    exit_code = out->exit_code;
  }
  const double wall = Mean(seconds);
  const std::string cmd = absl::StrJoin(args.command, " ");

  if (args.json) {
    nlohmann::ordered_json j;
    j["command"] = args.command;
    j["runs"] = args.repeat;
    j["exit_code"] = exit_code;
    j["seconds_elapsed"] = wall;
    j["seconds_elapsed_spread_pct"] = SpreadPct(seconds);
    nlohmann::ordered_json& ev = j["events"] = nlohmann::ordered_json::array();
    for (const Series& s : series) {
      nlohmann::ordered_json e;
      e["event"] = s.spec.label;
      if (s.group >= 0) e["group"] = s.group;
      if (!s.unsupported.empty()) {
        e["status"] = "not supported";
        e["reason"] = s.unsupported;
      } else if (s.values.empty()) {
        e["status"] = "not counted";
        if (const std::string why = NotCountedWhy(s, series); !why.empty()) {
          e["reason"] = std::string(absl::StripPrefix(why, "  "));
        }
      } else {
        e["status"] = "counted";
        e["value"] = Mean(s.values);
        e["spread_pct"] = SpreadPct(s.values);
        e["running_pct"] = Mean(s.coverages) * 100;
        if (!s.spec.unit.empty()) e["unit"] = s.spec.unit;
        double v = 0;
        std::string unit;
        if (!Derived(s, series, wall, &v, &unit).empty()) {
          e["metric_value"] = v;
          e["metric_unit"] = unit;
        }
      }
      if (s.not_counted > 0 && !s.values.empty()) {
        e["runs_not_counted"] = s.not_counted;
      }
      ev.push_back(std::move(e));
    }
    std::fprintf(stderr, "%s\n", j.dump(2).c_str());
    return exit_code;
  }
  if (!args.separator.empty()) {
    // perf's -x format: value,unit,event,run-time,running%,metric,metric-unit
    const std::string& x = args.separator;
    for (const Series& s : series) {
      std::string value = !s.unsupported.empty() ? "<not supported>"
                          : s.values.empty()
                              ? "<not counted>"
                              : absl::StrFormat("%.2f", Mean(s.values));
      double v = 0;
      std::string unit;
      const bool derived =
          !s.values.empty() && !Derived(s, series, wall, &v, &unit).empty();
      std::fprintf(
          stderr, "%s\n",
          absl::StrCat(value, x, s.spec.unit, x, s.spec.label, x,
                       s.values.empty()
                           ? "0"
                           : absl::StrFormat("%.0f", Mean(s.running_ns)),
                       x,
                       s.values.empty()
                           ? "0.00"
                           : absl::StrFormat("%.2f", Mean(s.coverages) * 100),
                       x, derived ? absl::StrFormat("%.2f", v) : "", x,
                       derived ? unit : "")
              .c_str());
    }
    return exit_code;
  }
  std::string out = absl::StrCat(
      "\n Performance counter stats for '", cmd, "'",
      args.repeat > 1 ? absl::StrCat(" (", args.repeat, " runs)") : "",
      ":\n\n");
  for (const Series& s : series) {
    if (!s.unsupported.empty()) {
      absl::StrAppendFormat(&out, "%20s      %-24s  (%s)\n", "<not supported>",
                            s.spec.label, s.unsupported);
      continue;
    }
    if (s.values.empty()) {
      absl::StrAppendFormat(&out, "%20s      %-24s%s\n", "<not counted>",
                            s.spec.label, NotCountedWhy(s, series));
      continue;
    }
    const double mean = Mean(s.values);
    const bool msec = s.spec.label == "task-clock" ||
                      absl::StartsWith(s.spec.label, "task-clock:") ||
                      absl::StartsWith(s.spec.label, "cpu-clock");
    std::string value = msec ? absl::StrFormat("%.2f msec", mean / 1e6)
                             : absl::StrFormat("%.0f", mean);
    if (!s.spec.unit.empty()) {
      value = absl::StrFormat("%.2f %s", mean, s.spec.unit);
    }
    double v = 0;
    std::string unit;
    const std::string derived = Derived(s, series, wall, &v, &unit);
    absl::StrAppendFormat(&out, "%20s      %-24s %-28s", value, s.spec.label,
                          derived);
    if (args.repeat > 1) {
      absl::StrAppendFormat(&out, "  ( +- %5.2f%% )", SpreadPct(s.values));
    }
    const double running = Mean(s.coverages) * 100;
    if (running < 99.995) absl::StrAppendFormat(&out, "  (%.2f%%)", running);
    if (s.not_counted > 0) {
      absl::StrAppend(&out, "  (not counted in ", s.not_counted, " of ",
                      args.repeat, " runs)");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  absl::StrAppendFormat(&out, "\n %18.9f seconds time elapsed", wall);
  if (args.repeat > 1) {
    absl::StrAppendFormat(&out, "  ( +- %5.2f%% )", SpreadPct(seconds));
  }
  absl::StrAppend(&out, "\n\n");
  if (exit_code != 0) {
    absl::StrAppend(&out, " Command exited with status ", exit_code, "\n\n");
  }
  // Like perf, the counts go to stderr (the command owns stdout).
  std::fwrite(out.data(), 1, out.size(), stderr);
  return exit_code;
}

}  // namespace perfcounters::tools
