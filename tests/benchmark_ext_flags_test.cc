// benchmark_ext_flags_test.cc: --perf_counters, --benchmark_perf_counters,
// --perf_counters_strict, --perf_counters_read, --perf_counters_calibrate
// and PERFCOUNTERS_EVENTS are taken out of argv.
#include "perfcounters/benchmark_ext_flags.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

namespace perfcounters::benchmark_ext {
namespace {

using ::perfcounters::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Owns argv storage for a test.
struct Argv {
  explicit Argv(std::vector<std::string> args) : strings(std::move(args)) {
    for (std::string& s : strings) pointers.push_back(s.data());
    pointers.push_back(nullptr);
    argc = static_cast<int>(strings.size());
  }
  std::vector<std::string> Remaining() const {
    std::vector<std::string> out;
    for (int i = 0; i < argc; ++i) out.push_back(pointers[i]);
    return out;
  }
  std::vector<std::string> strings;
  std::vector<char*> pointers;
  int argc;
};

TEST(ExtractFlags, RemovesOurFlagsAndKeepsGbenchs) {
  Argv a({"bm", "--benchmark_filter=X", "--perf_counters=cycles,{a,b}",
          "--perf_counters_strict", "--benchmark_min_time=0.01"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->events, "cycles,{a,b}");
  EXPECT_EQ(f->events_source, "--perf_counters");
  EXPECT_TRUE(f->strict);
  EXPECT_THAT(a.Remaining(), ElementsAre("bm", "--benchmark_filter=X",
                                         "--benchmark_min_time=0.01"));
  EXPECT_EQ(a.pointers[a.argc], nullptr);
}

TEST(ExtractFlags, GbenchAliasAndLastOneWins) {
  Argv a({"bm", "--benchmark_perf_counters=cycles",
          "--benchmark_perf_counters=faults"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->events, "faults");
  EXPECT_EQ(f->events_source, "--benchmark_perf_counters");
  EXPECT_FALSE(f->strict);
  EXPECT_THAT(a.Remaining(), ElementsAre("bm"));
}

TEST(ExtractFlags, BothFlagNamesTogetherAreAnError) {
  for (const auto& [first, second] :
       {std::pair<std::string, std::string>("--perf_counters=cycles",
                                            "--benchmark_perf_counters=faults"),
        std::pair<std::string, std::string>("--benchmark_perf_counters=faults",
                                            "--perf_counters=cycles")}) {
    Argv a({"bm", first, second});
    absl::StatusOr<Flags> f =
        ExtractFlags(&a.argc, a.pointers.data(), "task-clock");
    ASSERT_FALSE(f.ok()) << first << " " << second;
    EXPECT_THAT(f.status().message(), HasSubstr(first));
    EXPECT_THAT(f.status().message(), HasSubstr(second));
    EXPECT_THAT(f.status().message(), HasSubstr("give only one of them"));
  }
}

// An empty list is bad input like a missing one, not "count nothing".
TEST(ExtractFlags, EmptyListIsAnError) {
  for (const char* flag :
       {"--perf_counters=", "--benchmark_perf_counters=", "--perf_counters"}) {
    Argv a({"bm", flag});
    absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
    ASSERT_FALSE(f.ok()) << flag;
    EXPECT_THAT(f.status().message(), HasSubstr("=LIST, e.g."));
  }
}

// A long list is echoed shortened: the message stays short.
TEST(ExtractFlags, LongListsMakeShortMessages) {
  const std::string huge = "--perf_counters=" + std::string(5000, 'x');
  Argv a({"bm", huge, "--benchmark_perf_counters=y"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_THAT(f, Not(IsOk()));
  EXPECT_LT(f.status().message().size(), 400u) << f.status();
  EXPECT_THAT(f.status().message(), HasSubstr("(5000 bytes)"));
}

TEST(ExtractFlags, EnvironmentIsUsedOnlyWithoutAFlag) {
  Argv a({"bm"});
  absl::StatusOr<Flags> f =
      ExtractFlags(&a.argc, a.pointers.data(), "task-clock");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->events, "task-clock");
  EXPECT_EQ(f->events_source, "PERFCOUNTERS_EVENTS");
  EXPECT_FALSE(f->overridden_env_events.has_value());

  Argv b({"bm", "-perf_counters=cycles"});
  f = ExtractFlags(&b.argc, b.pointers.data(), "task-clock");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->events, "cycles");
  // The override is said.
  EXPECT_EQ(f->overridden_env_events, "task-clock");

  Argv c({"bm", "-perf_counters=cycles"});
  f = ExtractFlags(&c.argc, c.pointers.data(), nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->overridden_env_events.has_value());
}

TEST(ExtractFlags, NothingRequested) {
  Argv a({"bm", "--perf_counters_strictly"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->events.has_value());
  EXPECT_FALSE(f->strict);
  // Not ours: left for gbench to reject.
  EXPECT_THAT(a.Remaining(), ElementsAre("bm", "--perf_counters_strictly"));
}

TEST(ExtractFlags, StrictTakesABoolean) {
  Argv a({"bm", "--perf_counters_strict=false"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->strict);

  Argv b({"bm", "--perf_counters_strict=maybe"});
  f = ExtractFlags(&b.argc, b.pointers.data(), nullptr);
  ASSERT_THAT(f, Not(IsOk()));
  EXPECT_THAT(f.status().message(), HasSubstr("maybe"));
  EXPECT_THAT(f.status().message(), HasSubstr("--perf_counters_strict=true"));
}

TEST(ExtractFlags, MissingValueIsAnError) {
  Argv a({"bm", "--perf_counters"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_THAT(f, Not(IsOk()));
  EXPECT_THAT(f.status().message(), HasSubstr("--perf_counters=LIST"));
}

TEST(ExtractFlags, ReadPathAndCalibration) {
  Argv a({"bm", "--perf_counters_read=user", "--benchmark_filter=X",
          "--perf_counters_calibrate=false"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->read_mode, ReadMode::kUser);
  EXPECT_FALSE(f->calibrate);
  EXPECT_THAT(a.Remaining(), ElementsAre("bm", "--benchmark_filter=X"));

  Argv b({"bm"});
  f = ExtractFlags(&b.argc, b.pointers.data(), nullptr);
  ASSERT_THAT(f, IsOk());
  EXPECT_EQ(f->read_mode, ReadMode::kAuto);
  EXPECT_TRUE(f->calibrate);

  Argv c({"bm", "--perf_counters_read=syscall", "--perf_counters_calibrate"});
  f = ExtractFlags(&c.argc, c.pointers.data(), nullptr);
  ASSERT_THAT(f, IsOk());
  EXPECT_EQ(f->read_mode, ReadMode::kSyscall);
  EXPECT_TRUE(f->calibrate);
}

TEST(ExtractFlags, BadReadPathOrCalibrationIsAnError) {
  Argv a({"bm", "--perf_counters_read"});
  absl::StatusOr<Flags> f = ExtractFlags(&a.argc, a.pointers.data(), nullptr);
  ASSERT_THAT(f, Not(IsOk()));
  EXPECT_THAT(std::string(f.status().message()),
              HasSubstr("--perf_counters_read=auto"));
  Argv b({"bm", "--perf_counters_read=fast"});
  f = ExtractFlags(&b.argc, b.pointers.data(), nullptr);
  ASSERT_THAT(f, Not(IsOk()));
  EXPECT_THAT(std::string(f.status().message()),
              HasSubstr("--perf_counters_read=fast"));
  Argv c({"bm", "--perf_counters_calibrate=maybe"});
  f = ExtractFlags(&c.argc, c.pointers.data(), nullptr);
  ASSERT_THAT(f, Not(IsOk()));
  EXPECT_THAT(std::string(f.status().message()),
              HasSubstr("--perf_counters_calibrate=false"));
}

TEST(FlagsHelp, DocumentsEveryFlag) {
  const std::string help = FlagsHelp();
  EXPECT_THAT(help, HasSubstr("--perf_counters=LIST"));
  EXPECT_THAT(help, HasSubstr("--benchmark_perf_counters=LIST"));
  EXPECT_THAT(help, HasSubstr("--perf_counters_strict"));
  EXPECT_THAT(help, HasSubstr("--perf_counters_read=auto|syscall|user"));
  EXPECT_THAT(help, HasSubstr("--perf_counters_calibrate[=true|false]"));
  EXPECT_THAT(help, HasSubstr("PERFCOUNTERS_EVENTS"));
}

}  // namespace
}  // namespace perfcounters::benchmark_ext
