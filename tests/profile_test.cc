// Profiles against the real kernel: cpu-clock samples of two functions
// spinning for a measured 3:1 ratio of CPU time, no samples while stopped,
// call chains through frame pointers, broken call chains and unknown frames
// said as such, addresses named by their mapping, profiles of two threads
// merged, an unprivileged user at perf_event_paranoid 2; bad input refused
// clearly. The symbolizer against DWARF, addr2line and objcopy:
// profile_symbols_test.cc. The profiled code: support/profiled_workloads.h.
#include "perfcounters/profile.h"

#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/symbols.h"
#include "support/as_nobody.h"
#include "support/event_helpers.h"
#include "support/paranoid.h"
#include "support/profiled_workloads.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::profiled::Find;
using ::perfcounters::profiled::MustTake;
using ::perfcounters::profiled::Outer;
using ::perfcounters::profiled::Sampled;
using ::perfcounters::profiled::SampleThreeToOne;
using ::perfcounters::profiled::SelfExe;
using ::perfcounters::profiled::SelfOf;
using ::perfcounters::profiled::SpinOne;
using ::perfcounters::profiled::SpinThree;
using ::testing::HasSubstr;

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

TEST(ProfileTest, ThreadsMerge) {
  std::vector<Profile> profiles(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &profiles] {
      absl::StatusOr<Profiler> p = Profiler::Open({});
      ASSERT_TRUE(p.ok()) << p.status();
      ASSERT_THAT(p->Start(), IsOk());
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
