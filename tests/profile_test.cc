// Profiles against the real kernel and an independent symbolizer: cpu-clock
// samples of two functions spinning for a measured 3:1 ratio of CPU time,
// no samples while stopped, call chains through frame pointers, profiles of
// two threads merged, an unprivileged user at perf_event_paranoid 2; every
// sampled address symbolized as `addr2line -f -C -i` does (binutils' for
// GCC's debug info, LLVM's for clang's), inlined frames included, and stripped
// copies that give symbol-table names or [unknown], never another function's;
// bad input refused clearly.
#include "perfcounters/profile.h"

#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/symbols.h"
#include "support/as_nobody.h"
#include "support/event_helpers.h"
#include "support/paranoid.h"
#include "support/status_matchers.h"
#include "support/subprocess.h"

using ::perfcounters::testing::IsOk;

// The profiled functions have external linkage, so that their debug info
// carries linkage names: binutils' addr2line then names them exactly (for a
// function without one it may name an inlined frame after the symbol that
// encloses it, which llvm-symbolizer, elfutils and we do not).
namespace perfcounters::profiled {

// Spins in its own loop for `ns` of this thread's CPU time; the clock is
// read every 200000 additions, so almost every sample lands in the loop.
#define PERFCOUNTERS_SPINNER(Name, K)                       \
  __attribute__((noinline)) uint64_t Name(uint64_t ns) {    \
    const uint64_t start = testing::ThreadCpuNs();          \
    volatile uint64_t sink = 0;                             \
    uint64_t now = start;                                   \
    while (now - start < ns) {                              \
      for (int i = 0; i < 200000; ++i) sink = sink + i + K; \
      now = testing::ThreadCpuNs();                         \
    }                                                       \
    return now - start;                                     \
  }
PERFCOUNTERS_SPINNER(SpinThree, 3)
PERFCOUNTERS_SPINNER(SpinOne, 1)
PERFCOUNTERS_SPINNER(SpinStopped, 2)

// An always-inline helper: its samples belong to the caller's code.
__attribute__((always_inline)) inline uint64_t AddSquares(uint64_t n) {
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < n; ++i) sink = sink + i * i;
  return sink;
}

__attribute__((noinline)) uint64_t SpinInlined(uint64_t ns) {
  const uint64_t start = testing::ThreadCpuNs();
  uint64_t now = start;
  while (now - start < ns) {
    AddSquares(200000);
    now = testing::ThreadCpuNs();
  }
  return now - start;
}

__attribute__((noinline)) uint64_t Outer(uint64_t ns) {
  const uint64_t r = SpinOne(ns);
  asm volatile("" ::: "memory");  // keep the call a call, not a tail call
  return r;
}

// Internal linkage: GCC writes no linkage name for these, so their names
// come from the symbol table or the DWARF scopes. MixStatic spends its time
// in its own loop, in MixHelper inlined into it and in MixHelper's
// out-of-line copy (its address is taken).
__attribute__((always_inline)) static inline uint64_t MixHelper(uint64_t n) {
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < n; ++i) sink = sink + (i ^ 0x5bd1e995u);
  return sink;
}
static uint64_t (*volatile g_mix_helper)(uint64_t) = &MixHelper;

__attribute__((noinline)) static uint64_t MixStatic(uint64_t ns) {
  const uint64_t start = testing::ThreadCpuNs();
  uint64_t now = start;
  volatile uint64_t sink = 0;
  while (now - start < ns) {
    MixHelper(100000);
    g_mix_helper(100000);
    for (int i = 0; i < 100000; ++i) sink = sink + i;
    now = testing::ThreadCpuNs();
  }
  return now - start;
}

}  // namespace perfcounters::profiled

namespace perfcounters {
namespace {

using ::testing::HasSubstr;
using namespace ::perfcounters::profiled;

uint64_t SelfOf(const ProfileSummary& s, const std::string& prefix) {
  uint64_t n = 0;
  for (const FunctionShare& f : s.functions) {
    if (f.name.rfind(prefix, 0) == 0) n += f.self;
  }
  return n;
}

const FunctionShare* Find(const ProfileSummary& s, const std::string& prefix) {
  for (const FunctionShare& f : s.functions) {
    if (f.name.rfind(prefix, 0) == 0) return &f;
  }
  return nullptr;
}

Profile MustTake(Profiler& p) {
  absl::StatusOr<Profile> prof = p.Take();
  EXPECT_TRUE(prof.ok()) << prof.status();
  return prof.ok() ? *prof : Profile();
}

// The main executable's path as /proc/self/maps names it.
std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : std::string();
}

// The oracle: binutils' addr2line for GCC's debug info, LLVM's own
// llvm-addr2line (same flags, same output) for clang's: binutils 2.40 drops
// clang's inlined frames (inside ThreadCpuNs() inlined into SpinThree() it
// names SpinThree alone, though with ThreadCpuNs's file and line), where
// llvm-addr2line, elfutils and we name both.
#if defined(__clang__)
#define PERFCOUNTERS_STR2(x) #x
#define PERFCOUNTERS_STR(x) PERFCOUNTERS_STR2(x)
constexpr const char* kAddr2Line =
    "llvm-addr2line-" PERFCOUNTERS_STR(__clang_major__);
#else
constexpr const char* kAddr2Line = "addr2line";
#endif

// addr2line -f -C -i -a: for each offset, its function names, innermost
// first (inlined frames, then their callers).
std::map<uint64_t, std::vector<std::string>> Addr2Line(
    const std::string& module, const std::vector<uint64_t>& offsets) {
  testing::Command cmd;
  cmd.argv = {kAddr2Line, "-f", "-C", "-i", "-a", "-e", module};
  for (uint64_t o : offsets)
    cmd.argv.push_back(absl::StrCat("0x", absl::Hex(o)));
  const testing::RunResult run = testing::RunCommand(cmd);
  EXPECT_EQ(run.code, 0) << run.err;
  std::map<uint64_t, std::vector<std::string>> out;
  std::vector<std::string> lines = absl::StrSplit(run.out, '\n');
  uint64_t current = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("0x", 0) == 0) {
      current = std::strtoull(l.c_str(), nullptr, 16);
      out[current];
      continue;
    }
    if (l.empty()) continue;
    out[current].push_back(l);
    ++i;  // the file:line line
  }
  return out;
}

// The test's standard profile: 3:1 CPU time on two functions plus an
// inlined helper, with call chains.
struct Sampled {
  Profile profile;
  uint64_t three_ns = 0, one_ns = 0;
};

Sampled SampleThreeToOne(bool callchain) {
  ProfileOptions o;
  o.callchain = callchain;
  absl::StatusOr<Profiler> p = Profiler::Open(o);
  EXPECT_TRUE(p.ok()) << p.status();
  Sampled s;
  if (!p.ok()) return s;
  EXPECT_TRUE(p->Start().ok());
  for (int i = 0; i < 20; ++i) {
    s.three_ns += SpinThree(15'000'000);
    s.one_ns += SpinOne(5'000'000);
  }
  EXPECT_THAT(p->Stop(), IsOk());
  SpinStopped(50'000'000);
  EXPECT_TRUE(p->Start().ok());
  SpinInlined(20'000'000);
  s.one_ns += Outer(5'000'000);
  s.profile = MustTake(*p);
  return s;
}

TEST(ProfileTest, CpuClockSharesFollowCpuTimeAndStoppedRegionsGetNone) {
  Sampled s = SampleThreeToOne(false);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_TRUE(sym.ok()) << sym.status();
  const ProfileSummary sum = SummarizeProfile(s.profile, *sym);
  EXPECT_EQ(sum.event, "cpu-clock");
  EXPECT_EQ(sum.period, kDefaultClockPeriodNs);
  EXPECT_EQ(sum.lost, 0u);
  const double three = SelfOf(sum, "perfcounters::profiled::SpinThree");
  const double one = SelfOf(sum, "perfcounters::profiled::SpinOne");
  ASSERT_GT(three + one, 500) << "too few samples to judge";
  const double expected = static_cast<double>(s.three_ns) /
                          static_cast<double>(s.three_ns + s.one_ns);
  RecordProperty("share_three", absl::StrCat(three / (three + one)));
  EXPECT_NEAR(three / (three + one), expected, 0.05)
      << three << " vs " << one << " samples";
  EXPECT_EQ(SelfOf(sum, "perfcounters::profiled::SpinStopped"), 0u);
  // ~4 samples per ms of CPU sampled (0.5 s), within what a VM's steal allows.
  const double cpu_ms = (s.three_ns + s.one_ns + 20'000'000) / 1e6;
  EXPECT_GT(s.profile.samples, 0.8 * 4 * cpu_ms);
  EXPECT_LT(s.profile.samples, 1.5 * 4 * cpu_ms);
}

TEST(ProfileTest, AlwaysInlineHelperIsAnInlinedFrame) {
  Sampled s = SampleThreeToOne(false);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const ProfileSummary sum = SummarizeProfile(s.profile, *sym);
  const FunctionShare* helper = Find(sum, "perfcounters::profiled::AddSquares");
  ASSERT_NE(helper, nullptr) << "the inlined helper was never sampled";
  EXPECT_TRUE(helper->inlined);
  EXPECT_THAT(helper->file, HasSubstr("profile_test.cc"));
  EXPECT_GT(helper->line, 0);
}

TEST(ProfileTest, CallChainsThroughFramePointers) {
  Sampled s = SampleThreeToOne(true);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const ProfileSummary sum = SummarizeProfile(s.profile, *sym);
  EXPECT_TRUE(sum.callchains);
  uint64_t via_outer = 0, spin_one_after_outer = 0;
  for (const StackShare& st : sum.stacks) {
    if (st.stack.find("Outer(unsigned long);") == std::string::npos) continue;
    via_outer += st.samples;
    if (st.stack.find(
            "Outer(unsigned long);perfcounters::profiled::SpinOne(unsigned "
            "long)") != std::string::npos) {
      spin_one_after_outer += st.samples;
    }
  }
  const FunctionShare* outer = Find(sum, "perfcounters::profiled::Outer");
  ASSERT_NE(outer, nullptr);
  ASSERT_GT(outer->inclusive, 5u);
  EXPECT_EQ(outer->inclusive, via_outer);
  // Outer spends its time in SpinOne (and the clock it reads).
  EXPECT_GE(spin_one_after_outer, 0.8 * via_outer);
  const FunctionShare* test_body =
      Find(sum, "perfcounters::(anonymous namespace)::ProfileTest_CallChains");
  ASSERT_NE(test_body, nullptr);
  EXPECT_GE(test_body->inclusive, 0.9 * s.profile.samples);
}

TEST(ProfileTest, SymbolsAgreeWithAddr2Line) {
  if (testing::RunShellLine(absl::StrCat("command -v ", kAddr2Line)).code !=
      0) {
    GTEST_SKIP() << kAddr2Line << " is not installed (the oracle for this "
                 << "compiler's debug info)";
  }
  Sampled s = SampleThreeToOne(true);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const std::string exe = SelfExe();
  std::map<uint64_t, std::vector<std::string>> ours;
  auto add = [&](uint64_t ip) {
    const Location& loc = sym->Symbolize(ip);
    if (loc.module != exe || !loc.from_debug_info) return;
    std::vector<std::string> names;
    for (const SourceFrame& f : loc.frames) names.push_back(f.function);
    ours[loc.offset] = names;
  };
  for (const auto& [ip, n] : s.profile.by_address) add(ip);
  for (const auto& [stack, n] : s.profile.stacks) {
    for (size_t i = 1; i < stack.size(); ++i) add(stack[i] - 1);
  }
  ASSERT_GT(ours.size(), 5u);
  std::vector<uint64_t> offsets;
  for (const auto& [o, names] : ours) offsets.push_back(o);
  const auto theirs = Addr2Line(exe, offsets);
  size_t inlined = 0;
  for (const auto& [o, names] : ours) {
    auto it = theirs.find(o);
    ASSERT_NE(it, theirs.end())
        << "addr2line said nothing of 0x" << std::hex << o;
    EXPECT_EQ(names, it->second) << "at 0x" << std::hex << o;
    if (names.size() > 1) ++inlined;
  }
  EXPECT_GT(inlined, 0u) << "no sampled address had inlined frames";
}

// Strips `exe` into a temporary copy with objcopy's `flag` and checks every
// sampled address: the copy names it as the full binary's outermost function,
// or [unknown]. Returns how many it named.
size_t CheckStripped(const Profile& profile, const std::string& flag) {
  const std::string exe = SelfExe();
  const std::string copy =
      absl::StrCat(::testing::TempDir(), "/stripped_", getpid());
  const testing::RunResult objcopy =
      testing::RunArgv({"objcopy", flag, exe, copy});
  EXPECT_EQ(objcopy.code, 0) << objcopy.err;
  absl::StatusOr<Symbolizer> full = Symbolizer::ForThisProcess();
  absl::StatusOr<Symbolizer> stripped = Symbolizer::ForFile(copy);
  EXPECT_TRUE(full.ok() && stripped.ok()) << stripped.status();
  if (!full.ok() || !stripped.ok()) return 0;
  size_t named = 0;
  for (const auto& [ip, n] : profile.by_address) {
    const Location& f = full->Symbolize(ip);
    if (f.module != exe) continue;
    const std::string want = f.frames.back().function;
    const uint64_t offset = f.offset;
    const Location& s = stripped->Symbolize(offset);
    EXPECT_EQ(s.frames.size(), 1u);
    const std::string got = s.frames.front().function;
    if (got == kUnknownFunction) continue;
    EXPECT_EQ(got, want) << "at 0x" << std::hex << offset;
    ++named;
  }
  unlink(copy.c_str());
  return named;
}

TEST(ProfileTest, StrippedCopiesNeverNameAnotherFunction) {
  Sampled s = SampleThreeToOne(false);
  // strip -g keeps the symbol table: the spinners are named by it.
  EXPECT_GT(CheckStripped(s.profile, "--strip-debug"), 0u);
  // --strip-all leaves only the dynamic symbols: mostly [unknown].
  CheckStripped(s.profile, "--strip-all");
}

// clang emits no .debug_aranges (unless -gdwarf-aranges), by which libdw
// finds a compilation unit by address: a copy of this binary without them
// must be symbolized from its debug info exactly as the binary itself.
TEST(ProfileTest, DebugInfoWithoutArangesIsStillRead) {
  Sampled s = SampleThreeToOne(false);
  const std::string exe = SelfExe();
  const std::string copy =
      absl::StrCat(::testing::TempDir(), "/no_aranges_", getpid());
  const testing::RunResult objcopy = testing::RunArgv(
      {"objcopy", "--remove-section=.debug_aranges", exe, copy});
  ASSERT_EQ(objcopy.code, 0) << objcopy.err;
  absl::StatusOr<Symbolizer> full = Symbolizer::ForThisProcess();
  absl::StatusOr<Symbolizer> bare = Symbolizer::ForFile(copy);
  ASSERT_TRUE(full.ok() && bare.ok()) << bare.status();
  // The sampled addresses, and the profiled functions' entries: under TSan
  // most samples land in its runtime (the spinners' volatile accesses are
  // instrumented calls), which left as few as 4 distinct addresses here.
  std::vector<uint64_t> ips;
  for (const auto& [ip, n] : s.profile.by_address) ips.push_back(ip);
  for (uint64_t (*fn)(uint64_t) :
       {&SpinThree, &SpinOne, &SpinStopped, &SpinInlined, &Outer}) {
    ips.push_back(reinterpret_cast<uint64_t>(fn));
  }
  size_t compared = 0;
  for (const uint64_t ip : ips) {
    const Location& f = full->Symbolize(ip);
    if (f.module != exe || !f.from_debug_info) continue;
    const Location& b = bare->Symbolize(f.offset);
    EXPECT_TRUE(b.from_debug_info) << "at 0x" << std::hex << f.offset;
    ASSERT_EQ(b.frames.size(), f.frames.size())
        << "at 0x" << std::hex << f.offset;
    for (size_t i = 0; i < f.frames.size(); ++i) {
      EXPECT_EQ(b.frames[i].function, f.frames[i].function);
      EXPECT_EQ(b.frames[i].file, f.frames[i].file);
      EXPECT_EQ(b.frames[i].line, f.frames[i].line);
      EXPECT_EQ(b.frames[i].inlined, f.frames[i].inlined);
    }
    ++compared;
  }
  unlink(copy.c_str());
  // More than the 5 entries: sampled addresses were compared too.
  EXPECT_GT(compared, 5u) << "too few addresses with debug info";
}

// A build without frame pointers walks into garbage: every stack's callers
// are distinct addresses nothing covers. They are one [unknown] entry per
// module (its most sampled offset), so that they cannot fill the function
// list, and entries without self samples come after every entry with some.
TEST(ProfileTest, UnknownFramesAreOneEntryPerModule) {
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  Profile p;
  p.callchains = true;
  const uint64_t spin_one = reinterpret_cast<uint64_t>(&SpinOne) + 4;
  const uint64_t spin_three = reinterpret_cast<uint64_t>(&SpinThree) + 4;
  // Low addresses that no mapping covers (below mmap_min_addr).
  for (uint64_t i = 0; i < 300; ++i) {
    const uint64_t leaf = i % 3 == 0 ? spin_one : spin_three;
    p.by_address[leaf] += 1;
    p.stacks[{leaf, 0x1000 + 16 * i, 0x100 + 16 * (i % 7)}] += 1;
    ++p.samples;
  }
  const ProfileSummary sum = SummarizeProfile(p, *sym);
  std::map<std::string, int> unknown_per_module;
  bool seen_without_self = false;
  for (const FunctionShare& f : sum.functions) {
    if (f.self == 0) seen_without_self = true;
    EXPECT_FALSE(seen_without_self && f.self > 0) << f.name;
    if (f.name != kUnknownFunction) continue;
    ++unknown_per_module[f.module];
    EXPECT_EQ(f.inclusive, 300u);
    ASSERT_TRUE(f.offset.has_value());
    // The seven offsets below 0x200 are on every stack (the third frame),
    // each of the 300 above it on one.
    EXPECT_LT(*f.offset, 0x200u);
  }
  ASSERT_FALSE(unknown_per_module.empty());
  for (const auto& [module, n] : unknown_per_module) {
    EXPECT_EQ(n, 1) << "module '" << module << "'";
  }
  // Every sample's self is its leaf's, in the two spinners' code.
  const std::string one = sym->Symbolize(spin_one).frames.front().function;
  const std::string three = sym->Symbolize(spin_three).frames.front().function;
  ASSERT_NE(one, kUnknownFunction);
  if (one == three) {  // e.g. both entries begin with an inlined clock read
    EXPECT_EQ(SelfOf(sum, one), 300u);
  } else {
    EXPECT_EQ(SelfOf(sum, one), 100u);
    EXPECT_EQ(SelfOf(sum, three), 200u);
  }
}

// Call chains that end at the sampled frame, or whose first caller no
// symbol covers, are broken (code without frame pointers): past half of the
// samples the summary does not claim call chains; a real profile through
// frame pointers keeps them (CallChainsThroughFramePointers).
TEST(ProfileTest, BrokenCallChainsAreSaid) {
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const uint64_t leaf = reinterpret_cast<uint64_t>(&SpinOne) + 4;
  // A return address inside Outer: a caller a symbol covers.
  const uint64_t caller = reinterpret_cast<uint64_t>(&Outer) + 8;
  auto summary = [&](int broken, int whole) {
    Profile p;
    p.callchains = true;
    p.samples = broken + whole;
    p.by_address[leaf] = p.samples;
    if (broken > 1) p.stacks[{leaf}] = broken / 2;
    p.stacks[{leaf, 0x1230}] += broken - broken / 2;
    if (whole > 0) p.stacks[{leaf, caller}] = whole;
    return SummarizeProfile(p, *sym);
  };
  ProfileSummary s = summary(60, 40);
  EXPECT_FALSE(s.callchains);
  EXPECT_EQ(s.callchains_broken, 60u);
  s = summary(40, 60);
  EXPECT_TRUE(s.callchains);
  EXPECT_EQ(s.callchains_broken, 40u);
}

// An address outside every mapping (what a broken call chain gives) is
// [unknown] with no module, never the module nearest to it (libdwfl's
// lookup answered ld-linux-x86-64.so.2 with an offset of 0x455e...); an
// address in memory no file backs is named by its mapping.
TEST(ProfileTest, AnAddressIsNamedByTheMappingItLiesIn) {
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const Location far = sym->Symbolize(0x455ec39d5c88c44dull);
  EXPECT_EQ(far.module, "");
  EXPECT_FALSE(far.known());
  // Just above the highest user mapping (below the kernel's half).
  const Location top = sym->Symbolize(0x7ffffffff000ull - 8);
  EXPECT_FALSE(top.known());
  EXPECT_THAT(top.module, ::testing::AnyOf("", "[stack]"));
  // Anonymous memory, and a hole between two mappings.
  const long page = sysconf(_SC_PAGESIZE);
  char* three =
      static_cast<char*>(mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(three, MAP_FAILED);
  ASSERT_EQ(munmap(three + page, page), 0);
  const Location anon = sym->Symbolize(reinterpret_cast<uint64_t>(three + 8));
  EXPECT_EQ(anon.module, "[anon]");
  EXPECT_FALSE(anon.known());
  const Location hole =
      sym->Symbolize(reinterpret_cast<uint64_t>(three + page + 8));
  EXPECT_EQ(hole.module, "");
  EXPECT_FALSE(hole.known());
  munmap(three, page);
  munmap(three + 2 * page, page);
  // This (main) thread's stack.
  volatile int on_stack = 0;
  EXPECT_EQ(sym->Symbolize(reinterpret_cast<uint64_t>(&on_stack)).module,
            "[stack]");
  // The vdso, named as docs/profiles.md names it (libdwfl: "[vdso: PID]").
  const uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
  if (vdso != 0) {
    EXPECT_EQ(sym->Symbolize(vdso + 16).module, "[vdso]");
  }
  // And the code of this binary is still its own.
  EXPECT_EQ(sym->Symbolize(reinterpret_cast<uint64_t>(&SpinOne) + 4).module,
            SelfExe());
}

// One function, one name: a static function as a frame of its own and as
// the caller of a frame inlined into it (the symbol's
// "ns::MixStatic(unsigned long)" and DWARF's "MixStatic" were two entries),
// and a static helper inlined and out of line ("MixHelper" without its
// namespace, and the symbol's name), in the function list and the stacks.
TEST(ProfileTest, OneNamePerFunction) {
  ProfileOptions o;
  o.callchain = true;
  absl::StatusOr<Profiler> p = Profiler::Open(o);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->Start().ok());
  MixStatic(300'000'000);
  const Profile profile = MustTake(*p);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const ProfileSummary sum = SummarizeProfile(profile, *sym);
  std::map<std::string, std::set<std::string>> names;  // by short name
  std::map<std::string, int> entries;
  auto note = [&](const std::string& name) {
    for (const char* fn : {"MixStatic", "MixHelper"}) {
      if (name.find(fn) != std::string::npos) names[fn].insert(name);
    }
  };
  for (const FunctionShare& f : sum.functions) {
    note(f.name);
    ++entries[f.name];
  }
  for (const StackShare& st : sum.stacks) {
    for (absl::string_view frame : absl::StrSplit(st.stack, ';')) {
      note(std::string(frame));
    }
  }
  for (const char* fn : {"MixStatic", "MixHelper"}) {
    SCOPED_TRACE(fn);
    ASSERT_EQ(names[fn].size(), 1u) << ::testing::PrintToString(names[fn]);
    const std::string name = *names[fn].begin();
    EXPECT_EQ(name,
              absl::StrCat("perfcounters::profiled::", fn, "(unsigned long)"));
    EXPECT_EQ(entries[name], 1);
  }
  const FunctionShare* helper = Find(sum, "perfcounters::profiled::MixHelper");
  ASSERT_NE(helper, nullptr);
  EXPECT_TRUE(helper->inlined);
  EXPECT_GT(helper->inclusive, 0u);
}

TEST(ProfileTest, ThreadsMerge) {
  std::vector<Profile> profiles(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &profiles] {
      absl::StatusOr<Profiler> p = Profiler::Open({});
      ASSERT_TRUE(p.ok()) << p.status();
      ASSERT_TRUE(p->Start().ok());
      t == 0 ? SpinThree(60'000'000) : SpinOne(60'000'000);
      profiles[t] = MustTake(*p);
    });
  }
  for (std::thread& th : threads) th.join();
  Profile merged;
  ASSERT_THAT(merged.Merge(profiles[0]), IsOk());
  ASSERT_THAT(merged.Merge(profiles[1]), IsOk());
  EXPECT_EQ(merged.samples, profiles[0].samples + profiles[1].samples);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const ProfileSummary sum = SummarizeProfile(merged, *sym);
  EXPECT_GT(SelfOf(sum, "perfcounters::profiled::SpinThree"), 100u);
  EXPECT_GT(SelfOf(sum, "perfcounters::profiled::SpinOne"), 100u);
  Profile other = profiles[0];
  other.event = "instructions:u";
  EXPECT_FALSE(merged.Merge(other).ok());
}

TEST(ProfileTest, WorksAsNobodyAtParanoid2) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  testing::ScopedParanoid paranoid(2);
  ASSERT_TRUE(paranoid.ok());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out = "no";
    if (testing::DropToNobody().empty()) {
      absl::StatusOr<Profiler> p = Profiler::Open({});
      if (!p.ok()) {
        out = std::string(p.status().message());
      } else if (p->Start().ok()) {
        SpinThree(50'000'000);
        absl::StatusOr<Profile> prof = p->Take();
        out = prof.ok() ? absl::StrCat("samples ", prof->samples)
                        : std::string(prof.status().message());
      }
    }
    (void)!write(fds[1], out.data(), out.size());
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) got.append(buf, n);
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  ASSERT_THAT(got, HasSubstr("samples "));
  EXPECT_GT(std::stoi(got.substr(8)), 100);
}

TEST(ProfileTest, BadInputIsAClearError) {
  ProfileOptions o;
  o.event = "cylces";
  absl::StatusOr<Profiler> p = Profiler::Open(o);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("cylces"));
  EXPECT_THAT(p.status().message(), HasSubstr("cycles"));
  o.event = "cpu-clock";
  o.period = 0;
  p = Profiler::Open(o);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("out of range"));
  o.period = kMaxPeriod + 1;
  EXPECT_FALSE(Profiler::Open(o).ok());
  o.period = 1000;
  o.frequency = 100;
  EXPECT_THAT(Profiler::Open(o).status().message(), HasSubstr("not both"));
  o.period.reset();
  o.frequency = 1'000'000'000;
  EXPECT_THAT(Profiler::Open(o).status().message(),
              HasSubstr("perf_event_max_sample_rate"));
  o.frequency.reset();
  o.event = "sched:sched_switch";
  EXPECT_FALSE(Profiler::Open(o).ok());
  EXPECT_THAT(ParseSampleRate("12x", "period").status().message(),
              HasSubstr("not a whole number"));
  EXPECT_FALSE(ParseSampleRate("0", "period").ok());
  EXPECT_EQ(*ParseSampleRate("100000", "period"), 100000u);
  absl::StatusOr<Symbolizer> none = Symbolizer::ForFile("/nonexistent/x");
  EXPECT_FALSE(none.ok());
}

}  // namespace
}  // namespace perfcounters
