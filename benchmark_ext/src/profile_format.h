// profile_format.h: how a benchmark's profile is shown (profile_format.cc):
// the console's hot: line, the JSON member of its --benchmark_out row, the
// folded-stack file and its safe name; and the reporters that add them to
// gbench's output.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_PROFILE_FORMAT_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_PROFILE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "perfcounters/symbols.h"

namespace perfcounters::benchmark_ext_internal {

// At most this many functions and distinct stacks go into the JSON member
// (the folded file has every stack); the rest are counted in
// functions_truncated / stacks_truncated.
inline constexpr size_t kJsonFunctions = 100;
inline constexpr size_t kJsonStacks = 200;

// "SpinOne" for "ns::SpinOne(unsigned long)": the console's short name.
std::string ShortName(const std::string& name);
// The name on the hot: line: ShortName, with template argument lists of
// more than 20 characters written "<…>" and the rest cut to at most
// kConsoleNameMax bytes, ending in "…" (the JSON keeps the whole name).
inline constexpr size_t kConsoleNameMax = 60;
std::string ConsoleFunctionName(const std::string& name);
// `hot: A 61% · B 22% · C 9%` (the top `top` functions by self share).
std::string HotLine(const ProfileSummary& s, int top);
// The JSON object (docs/profiles.md), on one line.
std::string ProfileJson(const ProfileSummary& s);

// A benchmark's profile as shown: sampled (perf_event's samples), or
// simulated (callgrind's costs of the timed region, every event counted:
// labelled "[simulated]" on the hot: line, "source": "simulated" and
// "sampled": false in the JSON member).
struct ShownProfile {
  ProfileSummary summary;
  bool simulated = false;
  // Simulated: the event's count in the bracket's and gbench's loop code,
  // left out of the profile (docs/simulate.md).
  uint64_t excluded = 0;
  // When fewer of the benchmark's threads were sampled than it runs (a
  // plain Threads(N) loop, sampled in gbench's one-thread extra run): the
  // benchmark's threads and those sampled ("(1 of 2 threads sampled)" on
  // the hot: line, "threads" and "threads_sampled" in the JSON member).
  // 0: every thread was sampled.
  int threads = 0;
  int threads_sampled = 0;
};
std::string HotLine(const ShownProfile& p, int top);
std::string ProfileJson(const ShownProfile& p);

// A file name for `benchmark`: letters, digits, '.', '-', '_' kept, every
// other byte '_', at most 120 of them, then '.' and 8 hex digits of a hash
// of the whole name (so that names differing only in replaced bytes do not
// collide), then ".folded".
std::string FoldedFileName(const std::string& benchmark);

// gbench's JSON text of some rows (objects, as its JSONReporter writes
// them) with `members[name]` (a JSON value) inserted as the member
// "perfcounters_profile" into each row of run type "iteration" whose
// "name" is a key of `members`. Everything else is left as it is.
std::string InsertProfileMembers(
    const std::string& text, const std::map<std::string, std::string>& members);

// Summaries by benchmark name (gbench's benchmark_name()).
using Summaries = std::map<std::string, ShownProfile>;

// Wraps a reporter: after the inner one reports a benchmark's rows, prints
// its hot: line (console), or inserts the profile member into each of its
// JSON rows of run type "iteration" (json: the inner reporter writes into a
// buffer that is then edited).
class ProfileReporter : public benchmark::BenchmarkReporter {
 public:
  ProfileReporter(benchmark::BenchmarkReporter* inner, const Summaries* s,
                  bool console, bool json, int top);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  benchmark::BenchmarkReporter* inner_;
  const Summaries* summaries_;
  const bool console_;
  const bool json_;
  const int top_;
};

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_PROFILE_FORMAT_H_
