// profile_data.h: the sampled profile a benchmark row of Google Benchmark
// JSON carries in its "perfcounters_profile" member (written by
// benchmark_ext's --perf_profile; the format is in docs/profiles.md), as
// `perfcounters report` and `perfcounters compare` read it.
//
// ReadProfile() checks every member it knows: a value of the wrong kind is
// an error naming its position (benchmarks[3] ("BM_x").perfcounters_profile
// .functions[1].samples is a string; expected a number). Optional members
// may be absent (file/line of a function without debug info, inclusive
// without call chains, stacks, the totals); members it does not know are
// said in a warning, not used. Profiles() (gbench_json.h) gives one profile
// per benchmark: when several rows of a benchmark carry one (repetitions),
// identical copies count once and different ones are added up
// (MergeProfile), so no sample is dropped.
#ifndef PERFCOUNTERS_TOOLS_PROFILE_DATA_H_
#define PERFCOUNTERS_TOOLS_PROFILE_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {

// One function of a profile (self samples: the samples whose innermost
// frame it is).
struct ProfileFunction {
  std::string name;
  // The executable or shared library; "" when absent.
  std::string module;
  // Source file and line; "" / nullopt when unknown.
  std::string file;
  std::optional<int64_t> line;
  // For an address no symbol covers ([unknown]): its offset in the module,
  // as written (a number or a "0x..." string).
  std::string offset;
  double samples = 0;
  // Shares of all samples (0..1) as written; Share() falls back on
  // samples / total.
  std::optional<double> self;
  std::optional<double> inclusive;
  bool inlined = false;

  bool operator==(const ProfileFunction&) const = default;
};

// One call stack: frames outermost first, joined with ';' (the folded
// format).
struct ProfileStack {
  std::string stack;
  double samples = 0;

  bool operator==(const ProfileStack&) const = default;
};

struct BenchmarkProfile {
  std::string event;
  std::optional<double> period;
  std::optional<double> frequency;
  // All samples taken (the file's "samples", else the functions' sum).
  double samples = 0;
  std::optional<double> lost;
  bool callchains = false;
  // The share of samples whose call chain broke at the sampled frame, when
  // the writer judged the chains broken ("callchains": false).
  std::optional<double> callchains_broken;
  // Sorted by self samples, descending (as read; Profiles() re-sorts merged
  // profiles).
  std::vector<ProfileFunction> functions;
  std::vector<ProfileStack> stacks;
  // Distinct stacks the writer left out.
  double stacks_truncated = 0;
  // Written by the simulator ("source": "simulated", "sampled": false):
  // `samples` are the event's exact counts (callgrind's, every event of
  // the timed region), not samples; `excluded`: the count it left out as
  // the measurement's own code (docs/simulate.md).
  bool simulated = false;
  std::optional<double> excluded;
  // Written when fewer of the benchmark's threads were sampled than it ran
  // (benchmark_ext: a plain Threads(N) loop, sampled in gbench's one-thread
  // extra run): the benchmark's threads and those sampled.
  std::optional<double> threads;
  std::optional<double> threads_sampled;
  // Whether `functions` holds every function with self samples (their
  // samples add up to `samples`): a function it does not list then had no
  // self samples (0 %), even where the writer left functions out
  // ("functions_truncated": entries with inclusive samples only). When
  // false, an unlisted function's share is unknown (at most the smallest
  // listed), never taken as 0.
  bool complete = true;

  bool operator==(const BenchmarkProfile&) const = default;

  // `f`'s self share of all samples in 0..1 (nullopt without samples).
  std::optional<double> Share(const ProfileFunction& f) const;
};

// The profile of a benchmark (its run_name) in a file.
struct NamedProfile {
  std::string benchmark;
  BenchmarkProfile profile;
};

// Checks and converts the value of a "perfcounters_profile" member;
// `where` names it in messages ("benchmarks[3] (\"BM_x\")
// .perfcounters_profile"). Problems that do not make the profile wrong
// (unknown members, functions' samples above the total) are appended to
// `warnings`.
absl::StatusOr<BenchmarkProfile> ReadProfile(
    const nlohmann::json& value, const std::string& where,
    std::vector<std::string>* warnings);

// Adds `from` into `into` (a second, different profile of a benchmark):
// functions and stacks of the same key summed, shares recomputed.
void MergeProfile(BenchmarkProfile& into, const BenchmarkProfile& from);

// One function name's part of a profile, entries of the same name (the same
// function in two modules, or at two lines) added up: how profiles of two
// runs are lined up.
struct NameShare {
  std::string name;
  // The first entry of the name (module, file, line for people).
  const ProfileFunction* entry = nullptr;
  double samples = 0;
  // Self share of all samples, 0..1.
  double share = 0;
  // Largest inclusive share of the name's entries, when written.
  std::optional<double> inclusive;
};

// Every function of `profile` by name, largest share first (ties by name).
// Empty when the profile has no samples.
std::vector<NameShare> SharesByName(const BenchmarkProfile& profile);

// The share of `name` in a profile whose SharesByName() is `shares`: 0 when
// it is not listed and the list is complete, nullopt when not listed in an
// incomplete list (or the profile has no samples).
std::optional<double> ShareOf(const std::vector<NameShare>& shares,
                              const BenchmarkProfile& profile,
                              const std::string& name);

// A share in % for people: "41%" from 10 up, "4.5%" below.
std::string FormatSharePct(double pct);
// A change of a share in percentage points: "+17 pp", "-5.0 pp".
std::string FormatPp(double pp);

// A function's name for people: its name without the parameter list of a
// demangled C++ name ("ns::Parse(char const*)" -> "ns::Parse"), for
// compact lines; the full name stays in tooltips and JSON.
std::string ShortFunctionName(absl::string_view name);

// Builds a JSON value from SAX events (gbench_json.cc hands it the events
// of a "perfcounters_profile" member).
class JsonValueBuilder {
 public:
  void Key(absl::string_view key) { key_.assign(key.data(), key.size()); }
  void Value(nlohmann::json v);
  void StartObject() { Open(nlohmann::json::object()); }
  void StartArray() { Open(nlohmann::json::array()); }
  void End() { stack_.pop_back(); }
  // True once the outermost value is complete.
  bool Done() const { return started_ && stack_.empty(); }
  nlohmann::json& result() { return root_; }

 private:
  void Open(nlohmann::json v);
  nlohmann::json* Place(nlohmann::json v);

  nlohmann::json root_;
  std::vector<nlohmann::json*> stack_;
  std::string key_;
  bool started_ = false;
};

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_PROFILE_DATA_H_
