// simulate_profile.cc: the simulated profile (simulate_profile.h).
//
// A dump with --dump-instr=yes --compress-pos=no --separate-callers=N has,
// per object (`ob=`) and function context (`fn=`: "f'caller'caller2...",
// innermost first, with callgrind's name compression), one line per
// instruction: `ADDRESS LINE COSTS...` (its self cost; the address in the
// object's own ELF address space), and per call (`calls=`) one line with
// the call's inclusive cost, which the stacks already hold and is skipped.
#include "simulate_profile.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "perfcounters/grammar.h"
#include "registry.h"
#include "simulate.h"

namespace perfcounters::benchmark_ext_internal {
namespace {

constexpr char kSimProfileEvents[] =
    "instructions, L1-dcache-loads, L1-dcache-stores, L1-dcache-load-misses, "
    "L1-dcache-store-misses, L1-icache-load-misses, LLC-load-misses, "
    "LLC-store-misses, cache-misses, branches, branch-misses";

SimSamplingRunState& SimSampling() {
  return Registry::Get().state().sim_sampling;
}

// Adds `dump`'s instruction costs into `into`.
absl::Status ParseSimProfileDump(absl::string_view dump,
                                 SimProfileCosts& into) {
  std::vector<int> order;
  size_t positions = 1;
  bool instr = false;
  absl::flat_hash_map<int64_t, std::string> objects, functions;
  std::string object, function;
  bool skip_next = false;  // the cost line after `calls=`
  for (absl::string_view line : absl::StrSplit(dump, '\n')) {
    if (line.empty()) continue;
    if (skip_next) {
      skip_next = false;
      continue;
    }
    const char c = line.front();
    const bool cost = (c >= '0' && c <= '9') || c == '+' || c == '-';
    if (cost) {
      std::vector<absl::string_view> f =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      uint64_t address = 0;
      if (instr && (f.empty() || !absl::SimpleHexAtoi(f[0], &address))) {
        return absl::DataLossError(absl::StrCat(
            "malformed cost line in the callgrind dump: ", line.substr(0, 80)));
      }
      SimCosts& costs = into[{object, function, address}];
      for (size_t i = positions; i < f.size(); ++i) {
        uint64_t v = 0;
        if (i - positions >= order.size() || !absl::SimpleAtoi(f[i], &v)) {
          return absl::DataLossError(
              absl::StrCat("malformed cost line in the callgrind dump: ",
                           line.substr(0, 80)));
        }
        if (order[i - positions] >= 0) costs[order[i - positions]] += v;
      }
    } else if (absl::ConsumePrefix(&line, "events:")) {
      order = CallgrindEventColumns(line);
    } else if (absl::ConsumePrefix(&line, "positions:")) {
      std::vector<absl::string_view> p =
          absl::StrSplit(line, ' ', absl::SkipEmpty());
      positions = p.size();
      instr = !p.empty() && p[0] == "instr";
    } else if (absl::ConsumePrefix(&line, "ob=") ||
               absl::ConsumePrefix(&line, "cob=")) {
      absl::StatusOr<std::string> name = CallgrindName(line, objects);
      if (!name.ok()) return name.status();
      if (c == 'o') object = *std::move(name);
    } else if (absl::ConsumePrefix(&line, "fn=") ||
               absl::ConsumePrefix(&line, "cfn=")) {
      absl::StatusOr<std::string> name = CallgrindName(line, functions);
      if (!name.ok()) return name.status();
      if (c == 'f') function = *std::move(name);
    } else if (absl::StartsWith(line, "calls=")) {
      skip_next = true;
    }
  }
  if (order.empty()) {
    return absl::DataLossError("the callgrind dump has no events: line");
  }
  return absl::OkStatus();
}

// A name as a frame of a folded stack (as SummarizeProfile writes them).
std::string SimProfileFrame(absl::string_view name) {
  return absl::StrReplaceAll(name, {{";", ":"}, {"\n", " "}});
}

struct SimFunctionTotals {
  FunctionShare share;
  uint64_t best = 0;  // the cost at the address that gave file/line
};

// A cost's frames, outermost first: the callers of `chain` (callgrind's
// names, innermost first), the function (callgrind's name) at `loc`'s
// place, the functions inlined into it at the address (`loc`: null or
// unknown where the address was not symbolized).
std::vector<SourceFrame> SimCostFrames(const std::vector<std::string>& chain,
                                       const Location* loc) {
  std::vector<SourceFrame> frames;
  for (size_t i = chain.size(); i-- > 1;) {
    frames.push_back(SourceFrame{chain[i], "", 0, false});
  }
  SourceFrame own{chain[0], "", 0, false};
  const bool known = loc != nullptr && loc->known();
  if (known) {
    own.file = loc->frames.back().file;
    own.line = loc->frames.back().line;
  }
  frames.push_back(own);
  if (!known) return frames;
  for (size_t i = loc->frames.size() - 1; i-- > 0;) {
    SourceFrame f = loc->frames[i];
    f.inlined = true;
    // The innermost inlined frame's place is the address's.
    if (i == 0) {
      f.file = loc->frames[0].file;
      f.line = loc->frames[0].line;
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

// Adds a cost `v` of `frames` (outermost first; in `object`) to the
// functions' totals: inclusive once per function on the stack, self to
// the innermost, whose place is that of its largest cost.
void AddSimCostToFunctions(
    const std::vector<SourceFrame>& frames, uint64_t v,
    const std::string& object,
    std::map<std::string, SimFunctionTotals>& functions) {
  std::vector<std::string> seen;
  for (size_t i = 0; i < frames.size(); ++i) {
    const SourceFrame& f = frames[i];
    SimFunctionTotals& t = functions[f.function];
    t.share.name = f.function;
    if (std::find(seen.begin(), seen.end(), f.function) == seen.end()) {
      seen.push_back(f.function);
      t.share.inclusive += v;
    }
    if (i + 1 == frames.size()) {
      t.share.self += v;
      t.share.module = object;
      t.share.inlined = t.share.inlined || f.inlined;
      if (v > t.best) {
        t.best = v;
        t.share.file = f.file;
        t.share.line = f.line;
      }
    }
  }
}

}  // namespace

std::vector<std::string> SimProfileOptions() {
  return {absl::StrCat("--separate-callers=", kSimProfileCallers),
          "--dump-instr=yes", "--compress-pos=no"};
}

absl::StatusOr<std::vector<SimEvent>> SimProfileInputs(
    const std::string& event) {
  if (event == "auto") return std::vector<SimEvent>{kIr};
  ParseOptions parse;
  parse.default_user_only = true;
  absl::StatusOr<EventSpec> spec = ParseEvent(event, parse);
  absl::StatusOr<std::vector<SimEvent>> inputs =
      spec.ok() ? SimulatedInputs(*spec) : spec.status();
  if (!inputs.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--perf_profile=", event, ": the simulator cannot profile it (",
        inputs.status().message(), "); it counts ", kSimProfileEvents,
        " (auto: instructions)"));
  }
  return inputs;
}

bool IsSimProfileBracket(absl::string_view function) {
  for (absl::string_view prefix :
       {// Measure's and the simulator's brackets; never a caller of the
        // region (as the main's own perfcounters::benchmark_ext_internal::
        // functions are).
        "perfcounters::benchmark_ext_internal::Sim", "perfcounters::Measure::",
        "perfcounters::benchmark_ext_internal::Profile",
        "perfcounters::PauseTiming<", "perfcounters::ResumeTiming<",
        "perfcounters::benchmark_ext_internal::ExtraRunFanOut::",
        "perfcounters::benchmark_ext_internal::(anonymous "
        "namespace)::SimulatedExtraRunCounter::",
        // gbench's loop functions and timers.
        "benchmark::State::", "benchmark::internal::ThreadTimer",
        "benchmark::internal::ThreadManager",
        "benchmark::internal::PerfCountersMeasurement"}) {
    if (absl::StartsWith(function, prefix)) return true;
  }
  return false;
}

void SimProfileStart() {
  SimSamplingRunState& sim = SimSampling();
  std::lock_guard<std::mutex> lock(sim.mu);
  sim.costs.clear();
  sim.error = absl::OkStatus();
  sim.added = false;
  sim.profiling.store(true);
}

void SimProfileStop() {
  SimSamplingRunState& sim = SimSampling();
  sim.profiling.store(false);
  std::lock_guard<std::mutex> lock(sim.mu);
  sim.costs.clear();
}

bool SimProfiling() {
  return SimSampling().profiling.load(std::memory_order_relaxed);
}

void SimProfileAdd(absl::string_view dump, bool from_extra_run) {
  SimProfileCosts costs;
  absl::Status st = ParseSimProfileDump(dump, costs);
  SimSamplingRunState& sim = SimSampling();
  std::lock_guard<std::mutex> lock(sim.mu);
  sim.added = true;
  sim.from_extra_run = sim.from_extra_run || from_extra_run;
  if (!st.ok()) {
    if (sim.error.ok()) sim.error = st;
    return;
  }
  for (const auto& [key, c] : costs) {
    SimCosts& to = sim.costs[key];
    for (int e = 0; e < kSimEventCount; ++e) to[e] += c[e];
  }
}

absl::StatusOr<SimProfileResult> TakeSimProfile(
    const std::string& event, const std::vector<SimEvent>& inputs) {
  SimProfileCosts costs;
  SimProfileResult out;
  {
    SimSamplingRunState& sim = SimSampling();
    std::lock_guard<std::mutex> lock(sim.mu);
    costs = std::exchange(sim.costs, {});
    out.empty = !std::exchange(sim.added, false);
    out.from_extra_run = std::exchange(sim.from_extra_run, false);
    absl::Status error = std::exchange(sim.error, absl::OkStatus());
    if (!error.ok()) return error;
  }
  ProfileSummary& s = out.summary;
  s.event = event;
  s.callchains = true;
  std::map<std::string, std::optional<Symbolizer>> symbolizers;
  std::map<std::string, SimFunctionTotals> functions;
  std::map<std::string, uint64_t> stacks;
  for (const auto& [key, c] : costs) {
    uint64_t v = 0;
    for (SimEvent e : inputs) v += c[e];
    if (v == 0) continue;
    const auto& [object, context, address] = key;
    // Innermost first: the function, then its callers.
    const std::vector<std::string> chain = absl::StrSplit(context, '\'');
    if (std::any_of(chain.begin(), chain.end(), [](const std::string& f) {
          return IsSimProfileBracket(f);
        })) {
      out.excluded += v;
      continue;
    }
    s.samples += v;
    const Location* loc = nullptr;
    if (address != 0 && !object.empty()) {
      auto it = symbolizers.find(object);
      if (it == symbolizers.end()) {
        absl::StatusOr<Symbolizer> sym = Symbolizer::ForFile(object);
        it = symbolizers
                 .emplace(object,
                          sym.ok() ? std::optional<Symbolizer>(std::move(*sym))
                                   : std::nullopt)
                 .first;
      }
      if (it->second.has_value()) loc = &it->second->Symbolize(address);
    }
    const std::vector<SourceFrame> frames = SimCostFrames(chain, loc);
    std::vector<std::string> names;
    for (const SourceFrame& f : frames) {
      names.push_back(SimProfileFrame(f.function));
    }
    stacks[absl::StrJoin(names, ";")] += v;
    AddSimCostToFunctions(frames, v, object, functions);
  }
  for (auto& [key, t] : functions) s.functions.push_back(std::move(t.share));
  std::sort(s.functions.begin(), s.functions.end(),
            [](const FunctionShare& a, const FunctionShare& b) {
              return std::tie(b.self, b.inclusive, a.name) <
                     std::tie(a.self, a.inclusive, b.name);
            });
  for (auto& [stack, n] : stacks) s.stacks.push_back(StackShare{stack, n});
  std::sort(s.stacks.begin(), s.stacks.end(),
            [](const StackShare& a, const StackShare& b) {
              return std::tie(b.samples, a.stack) <
                     std::tie(a.samples, b.stack);
            });
  return out;
}

}  // namespace perfcounters::benchmark_ext_internal
