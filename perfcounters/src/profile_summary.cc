// profile_summary.cc: SummarizeProfile and FoldedStacks (symbols.h).
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perfcounters/symbols.h"

namespace perfcounters {
namespace {

// A function is one name in one module, inlined or not (an inlined copy
// and the out-of-line code of a function are one entry); the addresses no
// symbol covers are one [unknown] entry per module (a build without frame
// pointers gives hundreds of distinct garbage return addresses, which would
// otherwise fill the list).
using FunctionKey = std::pair<std::string, std::string>;

struct Tally {
  FunctionShare share;
  // Samples per (file, line), for the most sampled one.
  absl::flat_hash_map<std::pair<std::string, int>, uint64_t> lines;
  // [unknown]: samples per offset (self and inclusive), for the most
  // sampled one.
  absl::flat_hash_map<uint64_t, uint64_t> offsets;
};

FunctionKey KeyOf(const Location& loc, const SourceFrame& f) {
  return {f.function, loc.module};
}

std::string FrameName(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

class Builder {
 public:
  explicit Builder(Symbolizer& s) : symbolizer_(s) {}

  // The location of `ip`; return addresses are looked up one byte back.
  const Location& Find(uint64_t ip, bool return_address) {
    return symbolizer_.Symbolize(return_address && ip > 0 ? ip - 1 : ip);
  }

  Tally& TallyFor(const Location& loc, const SourceFrame& f) {
    auto [it, inserted] = tallies_.try_emplace(KeyOf(loc, f));
    if (inserted) {
      it->second.share.name = f.function;
      it->second.share.module = loc.module;
    }
    it->second.share.inlined = it->second.share.inlined || f.inlined;
    return it->second;
  }

  void AddSelf(uint64_t ip, uint64_t n) {
    const Location& loc = Find(ip, false);
    const SourceFrame& f = loc.frames.front();
    Tally& t = TallyFor(loc, f);
    t.share.self += n;
    if (!f.file.empty()) t.lines[{f.file, f.line}] += n;
    if (f.function == kUnknownFunction) t.offsets[loc.offset] += n;
  }

  // Frames of `stack` (leaf first) outermost first, with every function
  // met counted once as inclusive.
  std::vector<std::string> AddStack(const std::vector<uint64_t>& stack,
                                    uint64_t n) {
    std::vector<std::string> names;
    absl::flat_hash_set<FunctionKey> seen;
    for (size_t i = stack.size(); i-- > 0;) {
      const Location& loc = Find(stack[i], i != 0);
      for (size_t j = loc.frames.size(); j-- > 0;) {
        const SourceFrame& f = loc.frames[j];
        names.push_back(FrameName(f.function));
        FunctionKey key = KeyOf(loc, f);
        if (seen.insert(key).second) TallyFor(loc, f).share.inclusive += n;
        // Offsets of callers count for the [unknown] entry's offset too;
        // the innermost frame's are AddSelf's.
        if (i != 0 && f.function == kUnknownFunction) {
          TallyFor(loc, f).offsets[loc.offset] += n;
        }
      }
    }
    return names;
  }

  std::vector<FunctionShare> Functions() {
    std::vector<FunctionShare> out;
    out.reserve(tallies_.size());
    for (auto& [key, t] : tallies_) {
      uint64_t best = 0;
      for (const auto& [fl, n] : t.lines) {
        if (n > best ||
            (n == best && fl < std::pair(t.share.file, t.share.line))) {
          best = n;
          t.share.file = fl.first;
          t.share.line = fl.second;
        }
      }
      best = 0;
      for (const auto& [offset, n] : t.offsets) {
        if (n > best ||
            (n == best && t.share.offset && offset < *t.share.offset)) {
          best = n;
          t.share.offset = offset;
        }
      }
      out.push_back(std::move(t.share));
    }
    std::sort(out.begin(), out.end(),
              [](const FunctionShare& a, const FunctionShare& b) {
                return std::tie(b.self, b.inclusive, a.name, a.module) <
                       std::tie(a.self, a.inclusive, b.name, b.module);
              });
    return out;
  }

 private:
  Symbolizer& symbolizer_;
  absl::flat_hash_map<FunctionKey, Tally> tallies_;
};

// More than half of the samples' chains broke at the sampled frame.
bool CallChainsBroken(uint64_t broken, uint64_t samples) {
  return samples > 0 && 2 * broken > samples;
}

}  // namespace

ProfileSummary SummarizeProfile(const Profile& profile,
                                Symbolizer& symbolizer) {
  ProfileSummary out;
  out.event = profile.event;
  out.period = profile.period;
  out.frequency = profile.frequency;
  out.callchains = profile.callchains;
  out.samples = profile.samples;
  out.lost = profile.lost;
  Builder b(symbolizer);
  absl::flat_hash_map<std::string, uint64_t> stacks;
  for (const auto& [ip, n] : profile.by_address) {
    b.AddSelf(ip, n);
    if (!profile.callchains) {
      stacks[FrameName(b.Find(ip, false).frames.front().function)] += n;
    }
  }
  for (const auto& [stack, n] : profile.stacks) {
    stacks[absl::StrJoin(b.AddStack(stack, n), ";")] += n;
    if (stack.size() < 2 || !b.Find(stack[1], true).known()) {
      out.callchains_broken += n;
    }
  }
  if (out.callchains &&
      CallChainsBroken(out.callchains_broken, profile.samples)) {
    out.callchains = false;
  }
  out.functions = b.Functions();
  out.stacks.reserve(stacks.size());
  for (auto& [s, n] : stacks) out.stacks.push_back({s, n});
  std::sort(out.stacks.begin(), out.stacks.end(),
            [](const StackShare& a, const StackShare& b) {
              return std::tie(b.samples, a.stack) <
                     std::tie(a.samples, b.stack);
            });
  return out;
}

std::string FoldedStacks(const ProfileSummary& summary) {
  std::string out;
  for (const StackShare& s : summary.stacks) {
    absl::StrAppend(&out, s.stack, " ", s.samples, "\n");
  }
  return out;
}

}  // namespace perfcounters
