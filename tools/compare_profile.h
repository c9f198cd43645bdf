// compare_profile.h: the profile part of `perfcounters compare`. When both
// files carry profiles ("perfcounters_profile", profile_data.h), each
// benchmark profiled in both gets the functions whose self share changed
// most (`ParseNumber 41% → 58% (+17 pp)`); when only one file does, one
// note says so; with none, the outputs are as they were.
#ifndef PERFCOUNTERS_TOOLS_COMPARE_PROFILE_H_
#define PERFCOUNTERS_TOOLS_COMPARE_PROFILE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gbench_json.h"
#include "name_filter.h"
#include "nlohmann/json.hpp"

namespace perfcounters::tools {

// One function of one benchmark, both sides (shares in %).
struct FunctionShareChange {
  std::string name;
  // Self share in % of all samples; 0 where a complete profile does not
  // list the function, nullopt where an incomplete one does not.
  std::optional<double> base_pct;
  std::optional<double> next_pct;
  // next - base in percentage points, when both are known.
  std::optional<double> change_pp;
  // Where one side is unknown (not listed in its incomplete list, whose
  // unlisted samples bound its share): the range the change lies in, pp.
  std::optional<double> change_min_pp;
  std::optional<double> change_max_pp;
  // One standard error of the change from sampling alone (binomial), pp.
  std::optional<double> noise_pp;
};

// One benchmark profiled in both files.
struct BenchmarkProfileChange {
  std::string benchmark;
  double base_samples = 0;
  double next_samples = 0;
  std::string base_event;
  std::string next_event;
  // Both sides simulated (exact counts: no sampling noise).
  bool simulated = false;
  // The share of all samples each side's function list holds, % (100 for
  // a complete list; less where the writer left functions with self
  // samples out).
  double base_listed_pct = 100;
  double next_listed_pct = 100;
  // Every function of either side, by the largest change it may be:
  // |change_pp| where both sides are known, else the largest end of its
  // range (a function new at 31 % beside an incomplete base list ranks as
  // a change of up to 31 pp, never below the known changes).
  std::vector<FunctionShareChange> functions;
};

// Which files carry profiles.
enum class ProfileSides { kNone, kBaseOnly, kNewOnly, kBoth };

struct ProfileComparison {
  ProfileSides sides = ProfileSides::kNone;
  std::string base_source;
  std::string next_source;
  // Benchmarks profiled in both files, in base's order.
  std::vector<BenchmarkProfileChange> benchmarks;
  // Benchmarks (passing the filter) profiled in one file only.
  std::vector<std::string> only_base;
  std::vector<std::string> only_next;
  // Benchmarks with a simulated profile on one side and a sampled one on
  // the other: not compared.
  std::vector<std::string> mixed;
};

// Lines up the profiles of `base` and `next` (benchmarks the filter
// passes).
ProfileComparison CompareProfiles(const BenchmarkFile& base,
                                  const BenchmarkFile& next,
                                  const std::optional<NameFilter>& filter);

// Functions per benchmark in the table and markdown outputs: the largest
// changes of at least kProfileChangeShownPp (a smaller one reads +0.0 pp).
inline constexpr size_t kProfileChangesShown = 3;
inline constexpr double kProfileChangeShownPp = 0.05;

// "ParseNumber 41% → 58% (+17 pp)"; "strtod n/a → 31% (+21 to +31 pp)"
// where a side's incomplete list does not have it.
std::string FormatShareChange(const FunctionShareChange& f);

// The table output's profile part ("" with no profiles anywhere).
std::string ProfileTableText(const ProfileComparison& p);

// The markdown output's profile part, at most `max_chars` characters (rows
// that do not fit are counted, not cut).
std::string ProfileMarkdown(const ProfileComparison& p, size_t max_chars);

// The JSON output's "profiles" member (null with no profiles anywhere).
nlohmann::ordered_json ProfileJson(const ProfileComparison& p);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_COMPARE_PROFILE_H_
