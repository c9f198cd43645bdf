// The symbolizer against independent oracles, on profiles of this binary's
// own code (support/profiled_workloads.h): every sampled address symbolized
// as `addr2line -f -C -i` does (binutils' for GCC's debug info, LLVM's for
// clang's), inlined frames included, one name per function, debug info
// without .debug_aranges read as with it, and stripped copies that give
// symbol-table names or [unknown], never another function's. Natively only:
// the emulated arm64 machine gets its programs without debug sections and
// has no binutils. The profiles themselves: profile_test.cc.
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/profile.h"
#include "perfcounters/symbols.h"
#include "support/event_helpers.h"
#include "support/profiled_workloads.h"
#include "support/status_matchers.h"
#include "support/subprocess.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::profiled::Find;
using ::perfcounters::profiled::MixStatic;
using ::perfcounters::profiled::MustTake;
using ::perfcounters::profiled::Outer;
using ::perfcounters::profiled::Sampled;
using ::perfcounters::profiled::SampleThreeToOne;
using ::perfcounters::profiled::SelfExe;
using ::perfcounters::profiled::SpinInlined;
using ::perfcounters::profiled::SpinOne;
using ::perfcounters::profiled::SpinStopped;
using ::perfcounters::profiled::SpinThree;
using ::testing::HasSubstr;

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

TEST(ProfileTest, AlwaysInlineHelperIsAnInlinedFrame) {
  Sampled s = SampleThreeToOne(false);
  absl::StatusOr<Symbolizer> sym = Symbolizer::ForThisProcess();
  ASSERT_THAT(sym, IsOk());
  const ProfileSummary sum = SummarizeProfile(s.profile, *sym);
  const FunctionShare* helper = Find(sum, "perfcounters::profiled::AddSquares");
  ASSERT_NE(helper, nullptr) << "the inlined helper was never sampled";
  EXPECT_TRUE(helper->inlined);
  EXPECT_THAT(helper->file, HasSubstr("profiled_workloads.h"));
  EXPECT_GT(helper->line, 0);
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
  ASSERT_THAT(p->Start(), IsOk());
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

}  // namespace
}  // namespace perfcounters
