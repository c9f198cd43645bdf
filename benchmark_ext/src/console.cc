// console.cc: the console presentation of perfcounters' main and Measure:
// one warning line per reason, the tidied console table and context.
#include "console.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "measure_internal.h"
#include "perfcounters/benchmark_ext.h"
#include "perfcounters/capabilities.h"
#include "perfcounters/plan.h"
#include "registry.h"

namespace perfcounters {
namespace benchmark_ext_internal {
namespace {

// The event's label: its key without the "#N" of a repeated request.
absl::string_view LabelOf(absl::string_view key) {
  const size_t hash = key.rfind('#');
  return hash == absl::string_view::npos ? key : key.substr(0, hash);
}

// `reason` without the event's own name in front and without group
// bookkeeping when the group was the event alone.
std::string CleanReason(absl::string_view key, absl::string_view reason) {
  const std::string own = absl::StrCat(LabelOf(key), ": ");
  if (absl::StartsWith(reason, own)) reason.remove_prefix(own.size());
  const size_t member = reason.rfind(" [member ");
  if (member != absl::string_view::npos && absl::EndsWith(reason, "}]") &&
      reason.find(" of 1 in group {", member) != absl::string_view::npos) {
    reason = reason.substr(0, member);
  }
  return std::string(reason);
}

// The short form of "this machine has no hardware PMU at all".
std::string NoPmuReason(const Capabilities& caps) {
  return absl::StrCat("no hardware PMU here (",
                      caps.hypervisor ? "a VM without a virtual PMU"
                                      : "none in /sys/bus/event_source/devices",
                      "); software events still count");
}

}  // namespace

std::vector<ReasonLine> GroupUnavailable(const Plan& plan,
                                         const Capabilities* caps) {
  std::vector<ReasonLine> lines;
  for (const Unavailable& u : plan.unavailable) {
    std::string reason = CleanReason(u.key, u.reason);
    if (caps != nullptr && !caps->has_hardware_pmu() &&
        absl::StrContains(reason, "no hardware PMU in sysfs")) {
      reason = NoPmuReason(*caps);
    }
    ReasonLine* line = nullptr;
    for (ReasonLine& l : lines) {
      if (l.reason == reason) line = &l;
    }
    if (line == nullptr) {
      line = &lines.emplace_back();
      line->reason = std::move(reason);
    }
    line->keys.push_back(u.key);
  }
  return lines;
}

std::string ShortForMessage(absl::string_view list) {
  if (list.size() <= 100) return std::string(list);
  return absl::StrCat(list.substr(0, 60), "...(", list.size(), " bytes)...",
                      list.substr(list.size() - 30));
}

std::string UnavailableContext(const Plan& plan) {
  return FormatUnavailableContext(GroupUnavailable(plan, nullptr));
}

void WarnNotCounted(const std::vector<std::string>& keys,
                    absl::string_view what) {
  std::vector<std::string> fresh;
  for (const std::string& key : keys) {
    if (Registry::Get().FirstTime(absl::StrCat(what, "\n", key))) {
      fresh.push_back(key);
    }
  }
  if (fresh.empty()) return;
  const std::string line = absl::StrCat(
      "perfcounters: warning: ", absl::StrJoin(fresh, ", "), ": ", what);
  std::fprintf(stderr, "%s\n", line.c_str());
}

bool ShowContextOnConsole(absl::string_view key, bool verbose) {
  return verbose || !absl::StartsWith(key, "perfcounters.") ||
         key == "perfcounters.events" || key == "perfcounters.read_path" ||
         key == "perfcounters.source";
}

double RoundSignificant(double value, int digits) {
  if (!std::isfinite(value) || value == 0) return value;
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return std::strtod(text, nullptr);
}

std::string ReadableCount(double value) {
  // StrCat's 6 significant digits turn 16051234 into 1.60512e+07.
  if (std::isfinite(value) && std::abs(value) >= 1e5 &&
      std::abs(value) < 9e18) {
    return absl::StrCat(std::llround(value));
  }
  return absl::StrCat(absl::SixDigits(value));
}

void TidyForConsole(const Plan& plan, benchmark::BenchmarkReporter::Run* run) {
  const absl::flat_hash_set<std::string> keys(plan.requested_keys.begin(),
                                              plan.requested_keys.end());
  absl::flat_hash_set<std::string> derived;
  for (const DerivedMetric& m : plan.derived) derived.insert(m.name);
  // A coefficient of variation is printed as a percentage by gbench.
  const bool percent =
      run->run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate &&
      run->aggregate_unit == benchmark::kPercentage;
  for (auto it = run->counters.begin(); it != run->counters.end();) {
    const std::string& name = it->first;
    double& value = it->second.value;
    const size_t dot = name.rfind('.');
    const std::string base = name.substr(0, dot);
    const absl::string_view suffix =
        dot == std::string::npos ? "" : absl::string_view(name).substr(dot);
    if ((suffix == ".not_counted" || suffix == ".mux_intervals") &&
        keys.contains(base)) {
      it = run->counters.erase(it);
      continue;
    }
    if (absl::StartsWith(name, "perfcounters.")) {
      it = run->counters.erase(it);
      continue;
    }
    if (suffix == ".coverage" && keys.contains(base)) {
      // Shown to 3 digits: what would read as 1 is left out.
      if (!percent && value >= 0.9995) {
        it = run->counters.erase(it);
        continue;
      }
      if (!percent) value = RoundSignificant(value, 3);
    } else if (keys.contains(name) && !percent) {
      value = RoundSignificant(value, 4);
    } else if (derived.contains(name) && !percent) {
      value = RoundSignificant(value, 3);
    }
    ++it;
  }
}

namespace {

bool IsCsv(benchmark::BenchmarkReporter* reporter) {
  // gbench marks its CSV reporter deprecated; it still writes
  // --benchmark_format=csv and --benchmark_out_format=csv.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return dynamic_cast<benchmark::CSVReporter*>(reporter) != nullptr;
#pragma GCC diagnostic pop
}

}  // namespace

DisplayReporter::DisplayReporter(
    std::unique_ptr<benchmark::BenchmarkReporter> inner, bool verbose,
    RowFiller* rows, bool warn)
    : inner_(std::move(inner)),
      verbose_(verbose),
      console_(dynamic_cast<benchmark::ConsoleReporter*>(inner_.get()) !=
               nullptr),
      csv_(IsCsv(inner_.get())),
      rows_(rows),
      warn_(warn) {}

void DisplayReporter::ShareStreams() {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
}

bool DisplayReporter::ReportContext(const Context& context) {
  ShareStreams();
  if (!console_ || verbose_) return inner_->ReportContext(context);
  // gbench prints the context (custom lines included) to the error stream:
  // catch it and leave out our lines that are for the JSON and CSV only.
  std::ostream& err = inner_->GetErrorStream();
  std::ostringstream captured;
  inner_->SetErrorStream(&captured);
  const bool ok = inner_->ReportContext(context);
  inner_->SetErrorStream(&err);
  const std::string text = captured.str();
  std::string kept;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty()) continue;
    const absl::string_view key = line.substr(0, line.find(": "));
    if (!ShowContextOnConsole(key, verbose_)) continue;
    absl::StrAppend(&kept, line, "\n");
  }
  err << kept;
  err.flush();
  return ok;
}

void DisplayReporter::ReportRuns(const std::vector<Run>& reported) {
  ShareStreams();
  std::vector<Run> runs = reported;
  std::vector<std::string> warnings;
  if (rows_ != nullptr) rows_->Fill(&runs, &warnings);
  if (runs.empty()) return;
  if (console_ && !verbose_) {
    const Plan plan = CurrentBenchmarkPlan();
    std::vector<Run> tidy = runs;
    for (Run& run : tidy) TidyForConsole(plan, &run);
    inner_->ReportRuns(tidy);
  } else if (csv_) {
    held_.insert(held_.end(), runs.begin(), runs.end());
  } else {
    inner_->ReportRuns(runs);
  }
  if (!warn_) return;
  for (const std::string& w : warnings) {
    std::fprintf(stderr, "perfcounters: warning: %s\n", w.c_str());
  }
  WarnAboutRepetitions(runs);
}

void DisplayReporter::WarnAboutRepetitions(const std::vector<Run>& runs) {
  std::vector<RunNotes> notes = Registry::Get().TakeNotes();
  std::vector<const Run*> rows;
  for (const Run& run : runs) {
    if (run.run_type == Run::RT_Iteration && !Skipped(run)) {
      rows.push_back(&run);
    }
  }
  if (notes.empty() || rows.empty()) return;
  WarnAboutPausedTimer(runs, notes.back().time);
  // The last notes are the reported repetitions' (earlier ones sized the
  // batch).
  const size_t n = std::min(notes.size(), rows.size());
  struct Kind {
    std::string first;
    std::vector<int64_t> repetitions;
  };
  std::map<std::string, Kind> kinds;
  std::vector<std::string> order;
  for (size_t i = 0; i < n; ++i) {
    const Run& run = *rows[rows.size() - n + i];
    for (const std::string& w : notes[notes.size() - n + i].noise) {
      // "<key> counted ..." or "<key> was multiplexed ...".
      const std::string kind =
          absl::StrCat(run.benchmark_name(), "\n",
                       w.substr(0, w.find(' ', w.find(' ') + 1)));
      auto [it, fresh] = kinds.try_emplace(kind);
      if (fresh) {
        it->second.first = w;
        order.push_back(kind);
      }
      it->second.repetitions.push_back(run.repetition_index);
    }
  }
  const std::string name = rows.front()->benchmark_name();
  const int64_t total = rows.front()->repetitions;
  for (const std::string& kind : order) {
    const Kind& k = kinds[kind];
    if (!warned_.insert(kind).second) continue;
    std::fprintf(stderr, "perfcounters: warning: %s: %s%s\n", name.c_str(),
                 k.first.c_str(),
                 RepetitionsNote(k.repetitions, total).c_str());
  }
}

void DisplayReporter::Finalize() {
  ShareStreams();
  if (warn_ && rows_ != nullptr) {
    for (const std::string& w : rows_->TakeGroupedWarnings()) {
      std::fprintf(stderr, "perfcounters: warning: %s\n", w.c_str());
    }
  }
  if (!held_.empty()) inner_->ReportRuns(std::exchange(held_, {}));
  inner_->Finalize();
}

void DisplayReporter::WarnAboutPausedTimer(
    const std::vector<Run>& runs, const std::optional<CountedTime>& counted) {
  if (!counted.has_value() || runs.empty()) return;
  const Run& run = runs.back();
  if (run.run_type != Run::RT_Iteration ||
      run.iterations != counted->iterations) {
    return;
  }
  // The counters' time enabled follows the perf clock while the thread is
  // on a CPU, which on a VM includes the time the host took from the vCPU
  // (in CI 131 ms for 99.6 ms of gbench's CPU time, unpaused); gbench's
  // CPU time leaves that out, its wall time does not. So the timed time is
  // the larger of the two (real_accumulated_time is per thread, the CPU
  // time and the counted time sums over the threads): a paused timer
  // stops both.
  const double threads = std::max<double>(run.threads, 1);
  const double timed =
      std::max(run.cpu_accumulated_time, run.real_accumulated_time * threads);
  const std::string warning = PausedTimerWarning(counted->seconds, timed);
  const std::string name = run.benchmark_name();
  if (warning.empty() || !warned_.insert(name + "\npaused").second) return;
  std::fprintf(stderr, "perfcounters: warning: %s: %s\n", name.c_str(),
               warning.c_str());
}

}  // namespace benchmark_ext_internal

std::string DescribeUnavailable(const Plan& plan) {
  if (plan.unavailable.empty()) return "";
  std::string out;
  const Capabilities caps = ProbeCapabilities();
  for (const benchmark_ext_internal::ReasonLine& line :
       benchmark_ext_internal::GroupUnavailable(plan, &caps)) {
    absl::StrAppend(&out,
                    "perfcounters: warning: ", absl::StrJoin(line.keys, ", "),
                    ": not counted — ", line.reason, "\n");
  }
  return out;
}

}  // namespace perfcounters
