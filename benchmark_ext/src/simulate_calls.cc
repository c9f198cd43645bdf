// simulate_calls.cc: reading callgrind's dumps (simulate.h: CallgrindName,
// CallgrindEventColumns) and the part of a dump of gbench's extra run that
// is the benchmark's own (BenchmarkCallCosts).
//
// The dump lists, per function (`fn=`), its calls (`cfn=`, `calls=`), each
// followed by one cost line: the call's inclusive cost. The benchmark's own
// part is the inclusive cost of gbench's call of the benchmark
// (BenchmarkInstance::Run calling a `...::Run(benchmark::State&)`: the
// function, lambda or fixture wrapper) less the inclusive costs of gbench's
// functions the benchmark calls: State::StartKeepRunning and
// FinishKeepRunning (the loop's start and end: timers, the run's state, an
// allocator whose path depends on the heap), PauseTiming and ResumeTiming
// (not when one of these calls another: that is inside the first's cost
// already). What remains is the benchmark's code, every iteration of its
// loop and the code before and after the loop, with gbench's one-call
// wrapper: exact, the same every run, and the same part of every
// repetition.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "simulate.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

constexpr absl::string_view kSimCallEventNames[kSimEventCount] = {
    "Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
    "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};

// gbench's functions that a benchmark's loop calls.
bool IsGbenchLoopCall(absl::string_view fn) {
  return fn == "benchmark::State::StartKeepRunning()" ||
         fn == "benchmark::State::FinishKeepRunning()" ||
         fn == "benchmark::State::PauseTiming()" ||
         fn == "benchmark::State::ResumeTiming()";
}

// Whether `caller` calling `callee` is gbench calling the benchmark.
bool IsBenchmarkCall(absl::string_view caller, absl::string_view callee) {
  return absl::StartsWith(caller,
                          "benchmark::internal::BenchmarkInstance::Run(") &&
         absl::EndsWith(callee, "::Run(benchmark::State&)");
}

// A function's name without the callers that --separate-callers (the
// simulated profile, simulate_profile.h) appends: "f'caller'caller2".
std::string WithoutCallers(std::string name) {
  if (const size_t quote = name.find('\''); quote != std::string::npos) {
    name.resize(quote);
  }
  return name;
}

}  // namespace

absl::StatusOr<std::string> CallgrindName(
    absl::string_view value, absl::flat_hash_map<int64_t, std::string>& ids) {
  if (!absl::ConsumePrefix(&value, "(")) return std::string(value);
  const size_t close = value.find(')');
  int64_t id = 0;
  if (close == absl::string_view::npos ||
      !absl::SimpleAtoi(value.substr(0, close), &id)) {
    return absl::DataLossError(absl::StrCat(
        "malformed name id in the callgrind dump: (", value.substr(0, 40)));
  }
  absl::string_view name =
      absl::StripLeadingAsciiWhitespace(value.substr(close + 1));
  if (!name.empty()) {
    ids[id] = std::string(name);
    return std::string(name);
  }
  const auto it = ids.find(id);
  if (it == ids.end()) {
    return absl::DataLossError(absl::StrCat(
        "the callgrind dump refers to name (", id, ") before naming it"));
  }
  return it->second;
}

std::vector<int> CallgrindEventColumns(absl::string_view events) {
  std::vector<int> order;
  for (absl::string_view name :
       absl::StrSplit(events, ' ', absl::SkipEmpty())) {
    int index = -1;
    for (int e = 0; e < kSimEventCount; ++e) {
      if (kSimCallEventNames[e] == name) index = e;
    }
    order.push_back(index);
  }
  return order;
}

absl::StatusOr<SimCosts> BenchmarkCallCosts(absl::string_view dump) {
  std::vector<int> order;
  size_t positions = 1;  // "positions: line" unless said otherwise
  absl::flat_hash_map<int64_t, std::string> ids;
  std::string fn, cfn;
  bool cost_of_call = false;  // the line after `calls=`
  bool found = false;
  SimCosts in{}, out{};
  for (absl::string_view line : absl::StrSplit(dump, '\n')) {
    if (cost_of_call) {
      cost_of_call = false;
      const bool benchmark = IsBenchmarkCall(fn, cfn);
      const bool loop_call = IsGbenchLoopCall(cfn) && !IsGbenchLoopCall(fn);
      if (!benchmark && !loop_call) continue;
      found = found || benchmark;
      std::vector<absl::string_view> fields =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      for (size_t i = positions; i < fields.size(); ++i) {
        uint64_t v = 0;
        if (i - positions >= order.size() || !absl::SimpleAtoi(fields[i], &v)) {
          return absl::DataLossError(
              absl::StrCat("malformed call cost in the callgrind dump: ",
                           line.substr(0, 120)));
        }
        const int e = order[i - positions];
        if (e >= 0) (benchmark ? in : out)[e] += v;
      }
    } else if (absl::ConsumePrefix(&line, "events:")) {
      order = CallgrindEventColumns(line);
    } else if (absl::ConsumePrefix(&line, "positions:")) {
      positions = std::vector<absl::string_view>(
                      absl::StrSplit(line, ' ', absl::SkipEmpty()))
                      .size();
    } else if (absl::ConsumePrefix(&line, "fn=")) {
      absl::StatusOr<std::string> name = CallgrindName(line, ids);
      if (!name.ok()) return name.status();
      fn = WithoutCallers(*std::move(name));
    } else if (absl::ConsumePrefix(&line, "cfn=")) {
      absl::StatusOr<std::string> name = CallgrindName(line, ids);
      if (!name.ok()) return name.status();
      cfn = WithoutCallers(*std::move(name));
    } else if (absl::StartsWith(line, "calls=")) {
      cost_of_call = true;
    }
  }
  if (order.empty()) {
    return absl::DataLossError("the callgrind dump has no events: line");
  }
  if (!found) {
    return absl::NotFoundError(
        "the callgrind dump has no call of the benchmark by gbench "
        "(benchmark::internal::BenchmarkInstance::Run calling "
        "...::Run(benchmark::State&))");
  }
  for (int e = 0; e < kSimEventCount; ++e) {
    in[e] = in[e] >= out[e] ? in[e] - out[e] : 0;
  }
  return in;
}

}  // namespace perfcounters::benchmark_ext_internal
