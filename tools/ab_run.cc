// ab_run.cc: the rounds of `perfcounters ab` (ab.h): checking the two
// binaries, running them in ABBA order, pairing their rows per round,
// the intervals, the stop rule and the two gbench files.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ab.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gbench_json.h"
#include "input_text.h"
#include "nlohmann/json.hpp"
#include "output_file.h"

namespace perfcounters::tools {
namespace ab_run {

// A directory of the runs' files, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp",
                                     "/perfcounters-ab.XXXXXX");
    if (mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One binary: its label for messages and where its rounds go.
struct AbSide {
  const char* label;  // "BASE" or "NEW"
  std::string binary;
  std::vector<std::pair<std::string, std::string>> context;
  std::vector<std::pair<std::string, std::string>> context_json;
  nlohmann::json rows = nlohmann::json::array();
};

std::string Named(const AbSide& side) {
  return absl::StrCat(side.label, " '", ShortForMessage(side.binary), "'");
}

// The last non-empty line of a file (a child's stderr), for messages.
std::string LastLine(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path, 1 << 20);
  if (!text.ok()) return "";
  std::string last;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (!line.empty()) last = std::string(line);
  }
  return last.empty() ? "" : absl::StrCat(": ", ShortForMessage(last, 160));
}

absl::Status CheckBinary(const AbSide& side) {
  struct stat st {};
  if (stat(side.binary.c_str(), &st) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Named(side), ": ", std::strerror(errno),
                     "; give the path of a Google Benchmark binary"));
  }
  if (!S_ISREG(st.st_mode) || access(side.binary.c_str(), X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Named(side),
                     " is not an executable file; give the path of a "
                     "Google Benchmark binary"));
  }
  return absl::OkStatus();
}

// The benchmarks `side` runs with `flags` (--benchmark_list_tests).
absl::StatusOr<std::vector<std::string>> ListBenchmarks(
    const AbSide& side, const std::vector<std::string>& flags,
    const std::string& dir, double timeout_s) {
  std::vector<std::string> argv = {side.binary};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("--benchmark_list_tests=true");
  const std::string out = absl::StrCat(dir, "/list.out");
  const std::string err = absl::StrCat(dir, "/list.err");
  const ChildExit exit = RunChild(argv, out, err, timeout_s);
  if (exit.interrupted != 0) {
    return absl::CancelledError(
        absl::StrCat("interrupted by signal ", exit.interrupted));
  }
  if (exit.signal != 0 || exit.exit_code != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Named(side), " ", DescribeExit(exit),
                     " when asked for its benchmarks (--benchmark_list_tests)",
                     LastLine(err), "; is it a Google Benchmark binary?"));
  }
  absl::StatusOr<std::string> text = ReadFileToString(out, 64 << 20);
  if (!text.ok()) return text.status();
  std::vector<std::string> names;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    // gbench lists names only; a program such as echo prints its
    // arguments back.
    if (absl::StrContains(line, "--benchmark_list_tests")) {
      return absl::InvalidArgumentError(absl::StrCat(
          Named(side),
          " is not a Google Benchmark binary: asked for its benchmarks "
          "(--benchmark_list_tests=true), it printed its arguments back; "
          "give the path of a Google Benchmark binary"));
    }
    if (!line.empty()) names.emplace_back(line);
  }
  if (names.empty()) {
    std::string filter;  // the last --benchmark_filter= (gbench takes it)
    for (const std::string& f : flags) {
      if (absl::StartsWith(f, "--benchmark_filter=")) {
        filter = f.substr(strlen("--benchmark_filter="));
      }
    }
    if (!filter.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Named(side), " has no benchmark that --benchmark_filter='",
          ShortForMessage(filter),
          "' matches; give a regular expression "
          "that matches some of its benchmarks (--benchmark_list_tests "
          "lists them)"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(Named(side), " lists no benchmarks",
                     flags.empty() ? "" : " with the flags given after --",
                     "; is it a Google Benchmark binary?"));
  }
  return names;
}

absl::Status SameBenchmarks(const std::vector<std::string>& base,
                            const std::vector<std::string>& next) {
  const std::set<std::string> b(base.begin(), base.end());
  const std::set<std::string> n(next.begin(), next.end());
  if (b == n) return absl::OkStatus();
  std::vector<std::string> only_base, only_next;
  for (const std::string& name : b) {
    if (n.count(name) == 0) only_base.push_back(ShortForMessage(name, 60));
  }
  for (const std::string& name : n) {
    if (b.count(name) == 0) only_next.push_back(ShortForMessage(name, 60));
  }
  auto some = [](std::vector<std::string> v) {
    if (v.empty()) return std::string("none");
    const size_t all = v.size();
    if (all > 5) v.resize(5);
    return absl::StrCat(absl::StrJoin(v, ", "),
                        all > 5 ? absl::StrCat(" and ", all - 5, " more") : "");
  };
  return absl::InvalidArgumentError(absl::StrCat(
      "BASE and NEW run different benchmarks (only in BASE: ", some(only_base),
      "; only in NEW: ", some(only_next),
      "); ab compares the same benchmarks of two builds: select the common "
      "ones with -- --benchmark_filter=REGEX"));
}

// A benchmark's values per metric and round (NaN: not counted that round).
struct AbSeries {
  std::string name;
  bool active = true;
  size_t rounds = 0;
  std::string stopped;
  std::vector<std::string> metrics;
  std::vector<std::vector<double>> base;
  std::vector<std::vector<double>> next;
};

size_t MetricIndex(AbSeries& s, const std::string& metric) {
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    if (s.metrics[i] == metric) return i;
  }
  s.metrics.push_back(metric);
  s.base.emplace_back(s.rounds, std::nan(""));
  s.next.emplace_back(s.rounds, std::nan(""));
  return s.metrics.size() - 1;
}

// Every metric of one row: real_time, cpu_time, each counter (NaN when not
// counted).
std::vector<std::pair<std::string, double>> RowMetrics(const BenchmarkFile& f,
                                                       const RunEntry& e) {
  std::vector<std::pair<std::string, double>> out;
  if (e.real_time_ns) out.emplace_back("real_time", *e.real_time_ns);
  if (e.cpu_time_ns) out.emplace_back("cpu_time", *e.cpu_time_ns);
  for (const EntryCounter& c : e.counters) {
    out.emplace_back(f.counter_names[c.name],
                     c.counted ? c.value : std::nan(""));
  }
  return out;
}

// The row as gbench writes it (times in ns), for round `round`.
nlohmann::json RowJson(const BenchmarkFile& f, const RunEntry& e,
                       size_t round) {
  nlohmann::json row = nlohmann::json::object();
  row["name"] = e.name;
  row["run_name"] = e.run_name;
  row["run_type"] = "iteration";
  row["repetitions"] = 0;  // set when written
  row["repetition_index"] = round;
  row["iterations"] = e.iterations;
  if (e.real_time_ns) row["real_time"] = *e.real_time_ns;
  if (e.cpu_time_ns) row["cpu_time"] = *e.cpu_time_ns;
  row["time_unit"] = "ns";
  for (const EntryCounter& c : e.counters) {
    if (c.counted) {
      row[f.counter_names[c.name]] = c.value;
    } else {
      row[f.counter_names[c.name]] = nullptr;  // not counted, never 0
    }
  }
  for (const auto& [name, coverage] : e.coverages()) {
    row[absl::StrCat(f.counter_names[name], ".coverage")] = coverage;
  }
  for (const auto& [name, intervals] : e.mux_intervals()) {
    row[absl::StrCat(f.counter_names[name], ".mux_intervals")] = intervals;
  }
  return row;
}

// Runs `side` once on the active benchmarks and reads its rows.
absl::StatusOr<BenchmarkFile> RunOnce(const AbSide& side,
                                      const AbOptions& options,
                                      const std::vector<AbSeries>& series,
                                      size_t round, const std::string& dir) {
  std::vector<std::string> active;
  for (const AbSeries& s : series) {
    if (s.active) active.push_back(FilterEscape(s.name));
  }
  const std::string stem = absl::StrCat(dir, "/", side.label, "-", round);
  std::vector<std::string> argv = {side.binary};
  argv.insert(argv.end(), options.gbench_flags.begin(),
              options.gbench_flags.end());
  argv.push_back(
      absl::StrCat("--benchmark_filter=^(", absl::StrJoin(active, "|"), ")$"));
  argv.push_back("--benchmark_repetitions=1");
  argv.push_back(absl::StrCat("--benchmark_out=", stem, ".json"));
  argv.push_back("--benchmark_out_format=json");
  const ChildExit exit =
      RunChild(argv, absl::StrCat(stem, ".out"), absl::StrCat(stem, ".err"),
               options.timeout_s);
  if (exit.interrupted != 0) {
    return absl::CancelledError(
        absl::StrCat("interrupted by signal ", exit.interrupted));
  }
  if (exit.signal != 0 || exit.exit_code != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        Named(side), " ", DescribeExit(exit), " in round ", round + 1,
        LastLine(absl::StrCat(stem, ".err")), "; nothing was written"));
  }
  absl::StatusOr<BenchmarkFile> file =
      LoadBenchmarkJson(absl::StrCat(stem, ".json"));
  if (!file.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        Named(side), " wrote no Google Benchmark JSON in round ", round + 1,
        " (", ShortForMessage(file.status().message(), 160),
        "); is it a Google Benchmark binary?"));
  }
  return file;
}

// Adds one side's rows of one round to the series; errors for a benchmark
// without a row or with an error.
absl::Status TakeRows(AbSide& side, const BenchmarkFile& file, bool is_base,
                      std::vector<AbSeries>& series, size_t round) {
  if (side.context.empty()) {
    side.context = file.context;
    side.context_json = file.context_json;
  }
  std::map<std::string, const RunEntry*> by_name;
  for (const RunEntry& e : file.entries) {
    if (e.run_type == RunType::kIteration) by_name.emplace(e.run_name, &e);
  }
  for (AbSeries& s : series) {
    if (!s.active) continue;
    const auto it = by_name.find(s.name);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Named(side), " wrote no row for ", ShortForMessage(s.name, 80),
          " in round ", round + 1, "; nothing was written"));
    }
    const RunEntry& e = *it->second;
    if (e.error_occurred || e.skipped) {
      return absl::InvalidArgumentError(
          absl::StrCat(ShortForMessage(s.name, 80), " of ", Named(side), " ",
                       e.error_occurred ? "failed" : "was skipped",
                       " in round ", round + 1, ": ",
                       ShortForMessage(e.error_occurred ? e.error_message()
                                                        : e.skip_message()),
                       "; nothing was written"));
    }
    for (const auto& [metric, value] : RowMetrics(file, e)) {
      const size_t i = MetricIndex(s, metric);
      (is_base ? s.base : s.next)[i].push_back(value);
    }
    side.rows.push_back(RowJson(file, e, round));
  }
  return absl::OkStatus();
}

// After both sides of a round: pads metrics a side lacked this round.
void EndRound(std::vector<AbSeries>& series) {
  for (AbSeries& s : series) {
    if (!s.active) continue;
    ++s.rounds;
    for (size_t i = 0; i < s.metrics.size(); ++i) {
      s.base[i].resize(s.rounds, std::nan(""));
      s.next[i].resize(s.rounds, std::nan(""));
    }
  }
}

AbMetric Interval(const AbSeries& s, size_t i, double confidence) {
  AbMetric m;
  m.metric = s.metrics[i];
  std::vector<double> base, next;  // the rounds with a ratio
  for (size_t r = 0; r < s.rounds; ++r) {
    const double b = s.base[i][r], n = s.next[i][r];
    if (!std::isfinite(b) || !std::isfinite(n)) continue;  // not counted
    m.base.push_back(b);
    m.next.push_back(n);
    if (b == 0 && n == 0) {
      ++m.zero_both;
    } else if (b > 0 && n > 0) {
      base.push_back(b);
      next.push_back(n);
    } else {
      ++m.no_ratio;
    }
  }
  m.interval = SignTestInterval(LogRatios(base, next), confidence);
  return m;
}

// Width of an interval as a ratio: exp(high) - exp(low).
double Width(const PairedInterval& in) {
  return std::exp(in.high) - std::exp(in.low);
}

// Stops the benchmarks whose interval is narrow enough; the progress line.
std::string Update(std::vector<AbSeries>& series, const AbOptions& options,
                   size_t round) {
  size_t done = 0;
  double widest = -1;
  std::string widest_text;
  for (AbSeries& s : series) {
    if (!s.active) {
      ++done;
      continue;
    }
    const size_t i = MetricIndex(s, options.metric);
    const AbMetric m = Interval(s, i, options.confidence);
    if (m.interval.valid && s.rounds >= options.min_rounds &&
        Width(m.interval) < options.precision) {
      s.active = false;
      s.stopped = "precision";
      ++done;
      continue;
    }
    const double w = m.interval.valid ? Width(m.interval) : INFINITY;
    if (w > widest) {
      widest = w;
      widest_text =
          m.interval.valid
              ? absl::StrFormat(
                    "%s %.4f [%.4f, %.4f]", ShortForMessage(s.name, 60),
                    std::exp(m.interval.median), std::exp(m.interval.low),
                    std::exp(m.interval.high))
          : m.interval.n
              ? absl::StrFormat("%s %.4f, too few rounds for an interval",
                                ShortForMessage(s.name, 60),
                                std::exp(m.interval.median))
              : absl::StrCat(ShortForMessage(s.name, 60),
                             " no ratio yet, so no interval");
    }
  }
  std::string line =
      absl::StrFormat("ab: round %d of at most %d: %d of %d done", round + 1,
                      options.max_rounds, done, series.size());
  if (done < series.size()) {
    if (std::isfinite(widest)) {
      absl::StrAppend(&line, "; widest ", options.metric, " interval ",
                      absl::StrFormat("%.2f %%", widest * 100), ": ",
                      widest_text);
    } else {
      absl::StrAppend(&line, "; ", options.metric, ": ", widest_text);
    }
  }
  return line;
}

// A side's rounds as one gbench JSON file.
std::string SideJson(const AbSide& side, const std::string& id,
                     const std::string& role, const std::string& other,
                     const std::vector<AbSeries>& series) {
  nlohmann::json context = nlohmann::json::object();
  for (const auto& [key, value] : side.context) context[key] = value;
  for (const auto& [key, value] : side.context_json) {
    context[key] = nlohmann::json::parse(value, nullptr, false);
  }
  context["perfcounters.ab.id"] = id;
  context["perfcounters.ab.side"] = role;
  context["perfcounters.ab.binary"] = side.binary;
  context["perfcounters.ab.other_binary"] = other;
  context["perfcounters.ab.order"] = "ABBA";
  nlohmann::json rows = side.rows;
  std::map<std::string, size_t> rounds;
  for (const AbSeries& s : series) rounds[s.name] = s.rounds;
  for (nlohmann::json& row : rows) {
    row["repetitions"] = rounds[row["run_name"].get<std::string>()];
  }
  nlohmann::json out = nlohmann::json::object();
  out["context"] = std::move(context);
  out["benchmarks"] = std::move(rows);
  return out.dump(2) + "\n";
}

// The first round's check: every benchmark has the metric the intervals
// stop on.
absl::Status HasMetric(const std::vector<AbSeries>& series,
                       const std::string& metric) {
  for (const AbSeries& s : series) {
    bool has = false;
    for (const std::string& m : s.metrics) has |= m == metric;
    if (!has) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--metric ", ShortForMessage(metric), ": ",
          ShortForMessage(s.name, 80), " has no such metric; it has ",
          ShortForMessage(absl::StrJoin(s.metrics, ", "), 300)));
    }
  }
  return absl::OkStatus();
}

// The intervals of every benchmark after `rounds` rounds; a series still
// active stopped at --max-rounds.
AbResult Result(std::vector<AbSeries>& series, const AbOptions& options,
                size_t rounds) {
  AbResult result;
  result.rounds = rounds;
  result.confidence = options.confidence;
  result.precision = options.precision;
  result.metric = options.metric;
  for (AbSeries& s : series) {
    if (s.active) s.stopped = "max-rounds";
    AbBenchmark b;
    b.name = s.name;
    b.rounds = s.rounds;
    b.stopped = s.stopped;
    for (size_t i = 0; i < s.metrics.size(); ++i) {
      b.metrics.push_back(Interval(s, i, options.confidence));
    }
    result.benchmarks.push_back(std::move(b));
  }
  return result;
}

}  // namespace ab_run

absl::StatusOr<AbResult> RunAb(const AbOptions& options) {
  using ab_run::AbSeries;
  using ab_run::AbSide;
  using ab_run::CheckBinary;
  using ab_run::EndRound;
  using ab_run::HasMetric;
  using ab_run::ListBenchmarks;
  using ab_run::Result;
  using ab_run::RunOnce;
  using ab_run::SameBenchmarks;
  using ab_run::SideJson;
  using ab_run::TakeRows;
  using ab_run::TempDir;
  using ab_run::Update;
  AbSide base{"BASE", options.base, {}, {}, {}};
  AbSide next{"NEW", options.next, {}, {}, {}};
  if (absl::Status s = CheckBinary(base); !s.ok()) return s;
  if (absl::Status s = CheckBinary(next); !s.ok()) return s;
  const TempDir dir;
  if (dir.path().empty()) {
    return absl::InternalError(absl::StrCat(
        "cannot make a temporary directory: ", std::strerror(errno),
        "; set TMPDIR to a writable directory"));
  }
  absl::StatusOr<std::vector<std::string>> base_names =
      ListBenchmarks(base, options.gbench_flags, dir.path(), options.timeout_s);
  if (!base_names.ok()) return base_names.status();
  absl::StatusOr<std::vector<std::string>> next_names =
      ListBenchmarks(next, options.gbench_flags, dir.path(), options.timeout_s);
  if (!next_names.ok()) return next_names.status();
  if (absl::Status s = SameBenchmarks(*base_names, *next_names); !s.ok()) {
    return s;
  }
  std::vector<AbSeries> series;
  for (const std::string& name : *base_names) {
    AbSeries s;
    s.name = name;
    series.push_back(std::move(s));
  }

  size_t round = 0;
  for (; round < options.max_rounds; ++round) {
    // ABBA: A B in even rounds, B A in odd ones.
    AbSide* order[2] = {&base, &next};
    if (round % 2 == 1) std::swap(order[0], order[1]);
    for (AbSide* side : order) {
      absl::StatusOr<BenchmarkFile> file =
          RunOnce(*side, options, series, round, dir.path());
      if (!file.ok()) return file.status();
      if (absl::Status s = TakeRows(*side, *file, side == &base, series, round);
          !s.ok()) {
        return s;
      }
    }
    EndRound(series);
    if (round == 0) {
      if (absl::Status s = HasMetric(series, options.metric); !s.ok()) return s;
    }
    const std::string line = Update(series, options, round);
    if (options.progress) std::fprintf(stderr, "%s\n", line.c_str());
    bool any = false;
    for (const AbSeries& s : series) any |= s.active;
    if (!any) {
      ++round;
      break;
    }
  }
  AbResult result =
      Result(series, options, std::min(round, options.max_rounds));
  const std::string id =
      absl::StrCat(static_cast<long long>(std::time(nullptr)), "-", getpid());
  if (!options.base_out.empty()) {
    if (absl::Status s = WriteOutputFile(
            options.base_out, SideJson(base, id, "base", next.binary, series));
        !s.ok()) {
      return s;
    }
  }
  if (!options.next_out.empty()) {
    if (absl::Status s = WriteOutputFile(
            options.next_out, SideJson(next, id, "new", base.binary, series));
        !s.ok()) {
      if (!options.base_out.empty()) std::remove(options.base_out.c_str());
      return s;
    }
  }
  return result;
}

}  // namespace perfcounters::tools
