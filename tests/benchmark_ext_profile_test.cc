// --perf_profile end to end: tests/e2e/profile_bench.cc run as a user would,
// its console, --benchmark_out JSON and --perf_profile_out files read back.
// cpu-clock samples of two functions doing 3:1 of the same work read 75/25
// within 5 points; the setup before the loop and the region between
// PauseTiming and ResumeTiming get no sample; an always-inline helper is an
// inlined frame; odd benchmark names give safe file names; bad flags are
// clear errors; an unprivileged user at paranoid 2 gets profiles, and a
// refused sampler (paranoid 3) only a warning. The profile member goes into
// every JSON output (--benchmark_out, --benchmark_format=json) and into
// nothing but iteration rows, whatever the benchmark's name; the hot: line
// tells unknown code apart by module and offset.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/symbols.h"
#include "profile_format.h"
#include "support/bench_runner.h"
#include "support/paranoid.h"
#include "support/sanitizers.h"

namespace perfcounters {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::RunBench;
using testing::RunOptions;
using testing::RunResult;

constexpr char kProfileBench[] = "perfcounters_profile_bench";

RunOptions Profiled(bool nobody = false) {
  RunOptions o;
  o.binary = kProfileBench;
  o.as_nobody = nobody;
  return o;
}

// Self samples of functions whose name starts with `prefix`.
uint64_t Self(const nlohmann::json& profile, const std::string& prefix) {
  uint64_t n = 0;
  for (const nlohmann::json& f : profile["functions"]) {
    if (f["name"].get<std::string>().rfind(prefix, 0) == 0) {
      n += f["samples"].get<uint64_t>();
    }
  }
  return n;
}

std::string TempDir() {
  char dir[] = "/tmp/pc_profile_XXXXXX";
  std::string d = mkdtemp(dir);
  chmod(d.c_str(), 0777);
  return d;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') out.push_back(e->d_name);
  }
  closedir(d);
  return out;
}

void RemoveAll(const std::string& dir) {
  for (const std::string& f : Files(dir)) unlink((dir + "/" + f).c_str());
  rmdir(dir.c_str());
}

// ThreeParts' share of the samples within 5 points of its share of the CPU
// time (the row's three_cpu_share, measured by the benchmark: 3x the trips
// of OnePart took 3.0 to 3.8x its time, by where the loops lie); SetupOnly
// and PausedOnly never sampled.
void ExpectThreeToOne(const nlohmann::json& row, const nlohmann::json& p) {
  EXPECT_EQ(p["event"], "cpu-clock");
  EXPECT_EQ(p["period"], 250000);
  EXPECT_EQ(p["lost"], 0);
  EXPECT_EQ(p["callchains"], true);
  const double three = Self(p, "profiled::ThreeParts");
  const double one = Self(p, "profiled::OnePart");
  ASSERT_GT(three + one, 300) << p.dump();
  ASSERT_TRUE(row.contains("three_cpu_share")) << row.dump();
  const double expected = row["three_cpu_share"].get<double>();
  // The same work 3:1, whatever the code's placement costs.
  EXPECT_NEAR(expected, 0.75, 0.1);
  // A cpu-clock sample arrives late on a VM, and one due at the end of
  // OnePart lands after PauseTiming stopped the sampler: OnePart may lose a
  // little. Under a sanitizer, whose instrumented loop is not what this test
  // is about, 0.1.
  const double tolerance = testing::kSanitizer != nullptr ? 0.1 : 0.05;
  EXPECT_NEAR(three / (three + one), expected, tolerance)
      << three << " / " << one;
  EXPECT_EQ(Self(p, "profiled::SetupOnly"), 0u) << p.dump();
  EXPECT_EQ(Self(p, "profiled::PausedOnly"), 0u) << p.dump();
}

#if defined(PERFCOUNTERS_TESTS_TSAN)
// Why the tests of which function took the samples skip under TSan.
constexpr char kTsanTakesTheSamples[] =
    "built with ThreadSanitizer: its runtime's functions (__tsan_read8, "
    "__tsan_write8), called from the loop, take most samples, so the loop's "
    "own shares say nothing; the plain suite (scripts/test) runs this test";
#endif

TEST(BenchmarkExtProfileTest,
     SharesFollowTheWorkAndOnlyTheTimedRegionIsSampled) {
#if defined(PERFCOUNTERS_TESTS_TSAN)
  GTEST_SKIP() << kTsanTakesTheSamples;
#endif
  const std::string dir = TempDir();
  Result r = RunBench({"--perf_profile=cpu-clock", "--perf_profile_out=" + dir,
                       "--benchmark_filter=^BM_(Plain)?ThreeToOne$",
                       "--benchmark_min_time=0.2"},
                      Profiled());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& row = r.Entry("BM_ThreeToOne");
  ASSERT_TRUE(row.contains("perfcounters_profile")) << r.json_text;
  const nlohmann::json& p = row["perfcounters_profile"];
  ExpectThreeToOne(row, p);
  EXPECT_THAT(r.out,
              ::testing::ContainsRegex(testing::kSanitizer != nullptr
                                           ? "  hot: ThreeParts "
                                           : "  hot: ThreeParts [0-9]+%"));
  // A benchmark with a profile gets no note that it has none (the profile
  // pass's --benchmark_out reporter once took its profile a second time).
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("BM_ThreeToOne: no profile")));
  // The same loop without Measure: sampled in gbench's extra run where the
  // linked gbench has one (1.9 and newer), else named in a note.
  const nlohmann::json& plain = r.Entry("BM_PlainThreeToOne");
  ASSERT_TRUE(plain.is_object()) << r.json_text;
  size_t expected_files = 1;
#ifdef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  ASSERT_TRUE(plain.contains("perfcounters_profile")) << r.json_text;
  ExpectThreeToOne(plain, plain["perfcounters_profile"]);
  expected_files = 2;
#else
  EXPECT_FALSE(plain.contains("perfcounters_profile"));
  const std::string note =
      "BM_PlainThreeToOne: no profile: it does not use perfcounters::Measure";
  const size_t first = r.err.find(note);
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(note, first + 1), std::string::npos) << "said twice:\n"
                                                            << r.err;
#endif
  // Its folded file: outermost first, the benchmark calling its workers.
  const std::vector<std::string> files = Files(dir);
  ASSERT_EQ(files.size(), expected_files);
  std::string name;
  for (const std::string& f : files) {
    if (f.rfind("BM_ThreeToOne.", 0) == 0) name = f;
  }
  ASSERT_FALSE(name.empty());
  const std::string text = testing::ReadFile(dir + "/" + name);
  EXPECT_THAT(text, HasSubstr("BM_ThreeToOne(benchmark::State&);profiled::"
                              "ThreeParts() "));
  uint64_t total = 0;
  for (const std::string& line : std::vector<std::string>(
           absl::StrSplit(text, '\n', absl::SkipEmpty()))) {
    total += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_EQ(total, p["samples"].get<uint64_t>());
  RemoveAll(dir);
}

TEST(BenchmarkExtProfileTest, InlinedHelperAndOddNames) {
  const std::string dir = TempDir();
  Result r = RunBench(
      {"--perf_profile=auto", "--perf_profile_out=" + dir,
       "--benchmark_filter=^BM_Inlined|odd", "--benchmark_min_time=0.2"},
      Profiled());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& p = r.Entry("BM_Inlined")["perfcounters_profile"];
  ASSERT_TRUE(p.is_object()) << r.json_text;
  bool inlined = false;
  for (const nlohmann::json& f : p["functions"]) {
    if (f["name"] == "profiled::InlinedHelper()") {
      inlined = f["inlined"].get<bool>();
      ASSERT_TRUE(f.contains("file")) << f.dump();
      EXPECT_THAT(f["file"].get<std::string>(), HasSubstr("profile_bench.cc"));
    }
  }
  // profile_bench is built with -g in every build type (and keeps its
  // debug sections in the emulated arm64 machine), so DWARF names it.
  EXPECT_TRUE(inlined) << p.dump();
  const std::string odd = "BM odd/<name> with spaces/threads:2";
  EXPECT_TRUE(r.Entry(odd).contains("perfcounters_profile"));
  const std::vector<std::string> files = Files(dir);
  EXPECT_EQ(files.size(), 2u);
  for (const std::string& f : files) {
    EXPECT_EQ(f.find_first_of("/ <>:"), std::string::npos) << f;
  }
  RemoveAll(dir);
}

// Code built without frame pointers (BM_NoFramePointers' worker) breaks
// every sample's call chain at the sampled frame: the profile says so
// (callchains false, the broken share, no inclusive shares) and a note says
// how to fix it; a benchmark with frame pointers in the same run is not
// named.
TEST(BenchmarkExtProfileTest, BrokenCallChainsAreSaid) {
  Result r = RunBench({"--perf_profile=cpu-clock",
                       "--benchmark_filter=^BM_(NoFramePointers|ThreeToOne)$",
                       "--benchmark_min_time=0.1"},
                      Profiled());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& p =
      r.Entry("BM_NoFramePointers")["perfcounters_profile"];
  ASSERT_TRUE(p.is_object()) << r.json_text;
  ASSERT_GT(p["samples"].get<uint64_t>(), 20u) << p.dump();
  EXPECT_EQ(p["callchains"], false) << p.dump();
  ASSERT_TRUE(p.contains("callchains_broken")) << p.dump();
  EXPECT_GT(p["callchains_broken"].get<double>(), 0.5);
  for (const nlohmann::json& f : p["functions"]) {
    EXPECT_FALSE(f.contains("inclusive")) << f.dump();
  }
#if !defined(PERFCOUNTERS_TESTS_TSAN)
  // Under ThreadSanitizer its runtime's functions, called from the worker,
  // take most samples (23 of 285 were the worker's own in CI's tsan run).
  EXPECT_GT(Self(p, "profiled::NoFramePointerWork"),
            p["samples"].get<uint64_t>() / 2);
#endif
  const nlohmann::json& ok = r.Entry("BM_ThreeToOne")["perfcounters_profile"];
  EXPECT_EQ(ok["callchains"], true);
  EXPECT_FALSE(ok.contains("callchains_broken"));
  const size_t note = r.err.find("call chains broken");
  ASSERT_NE(note, std::string::npos) << r.err;
  const std::string line =
      r.err.substr(r.err.rfind('\n', note) + 1,
                   r.err.find('\n', note) - r.err.rfind('\n', note) - 1);
  EXPECT_THAT(line, HasSubstr("BM_NoFramePointers ("));
  EXPECT_THAT(line, HasSubstr("-fno-omit-frame-pointer"));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("BM_ThreeToOne")));
}

// --benchmark_format=json: the rows on stdout carry the same profile member
// as the --benchmark_out file's, the odd name's too.
TEST(BenchmarkExtProfileTest, JsonOnStdoutCarriesTheProfiles) {
  Result r = RunBench(
      {"--perf_profile=cpu-clock", "--benchmark_format=json",
       "--benchmark_filter=^BM_Inlined|odd", "--benchmark_min_time=0.05"},
      Profiled());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(out.is_object()) << r.out;
  int profiled = 0;
  for (const nlohmann::json& row : out["benchmarks"]) {
    const nlohmann::json& file_row = r.Entry(row["name"].get<std::string>());
    ASSERT_TRUE(file_row.is_object()) << row.dump();
    EXPECT_EQ(row.contains("perfcounters_profile"),
              row["run_type"] == "iteration")
        << row.dump();
    if (!row.contains("perfcounters_profile")) continue;
    EXPECT_EQ(row["perfcounters_profile"], file_row["perfcounters_profile"]);
    ++profiled;
  }
  EXPECT_EQ(profiled, 2) << r.out;
}

// A plain Threads(2) loop is sampled in gbench's extra run (1.9 and newer),
// on its main thread alone: its profile holds thread 0's work only (no
// OnePart, which the other thread runs) and says so on the hot: line, in
// one note and in the JSON member. Measure's Threads(2) samples both
// threads and is said to be nothing of the kind.
TEST(BenchmarkExtProfileTest, PlainThreadsLoopIsSaidToBeProfiledOnOneThread) {
#if defined(PERFCOUNTERS_TESTS_TSAN)
  GTEST_SKIP() << kTsanTakesTheSamples;
#endif
  Result r = RunBench({"--perf_profile=cpu-clock",
                       "--benchmark_filter=^BM_(Plain|Measured)Threads/",
                       "--benchmark_min_time=0.1"},
                      Profiled());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& measured = r.Entry("BM_MeasuredThreads/threads:2");
  ASSERT_TRUE(measured.contains("perfcounters_profile")) << r.json_text;
  const nlohmann::json& mp = measured["perfcounters_profile"];
  EXPECT_GT(Self(mp, "profiled::ThreeParts"), 0u) << mp.dump();
  EXPECT_GT(Self(mp, "profiled::OnePart"), 0u) << mp.dump();
  EXPECT_FALSE(mp.contains("threads_sampled")) << mp.dump();
  EXPECT_THAT(r.err,
              ::testing::Not(HasSubstr("BM_MeasuredThreads/threads:2: profiled "
                                       "on one thread only")));
  const nlohmann::json& plain = r.Entry("BM_PlainThreads/threads:2");
  ASSERT_TRUE(plain.is_object()) << r.json_text;
  const std::string note =
      "perfcounters: note: BM_PlainThreads/threads:2: profiled on one thread "
      "only: ";
#ifdef PERFCOUNTERS_GBENCH_HAS_PROFILER_MANAGER
  ASSERT_TRUE(plain.contains("perfcounters_profile")) << r.json_text;
  const nlohmann::json& pp = plain["perfcounters_profile"];
  // What is said is true: the other thread's work has no sample.
  EXPECT_GT(Self(pp, "profiled::ThreeParts"), 0u) << pp.dump();
  EXPECT_EQ(Self(pp, "profiled::OnePart"), 0u) << pp.dump();
  EXPECT_EQ(pp.value("threads", 0), 2) << pp.dump();
  EXPECT_EQ(pp.value("threads_sampled", 0), 1) << pp.dump();
  const size_t first = r.err.find(note);
  EXPECT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(note, first + 1), std::string::npos) << r.err;
  // One hot: line says it: the plain row's.
  const std::string said = "(1 of 2 threads sampled)";
  const size_t hot = r.out.find(said);
  EXPECT_NE(hot, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("threads sampled", hot + said.size()), std::string::npos)
      << r.out;
#else
  EXPECT_FALSE(plain.contains("perfcounters_profile")) << r.json_text;
  EXPECT_THAT(r.err, HasSubstr("BM_PlainThreads/threads:2: no profile: it "
                               "does not use perfcounters::Measure"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr(note)));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("threads sampled")));
#endif
}

// The member goes after the last member of exactly the iteration rows named
// in the map, found by gbench's escaped name even when it holds braces,
// quotes and backslashes; aggregate rows and other text stay as they were.
TEST(ProfileMembers, GoIntoTheNamedIterationRowsOnly) {
  const std::string text =
      "    {\n"
      "      \"name\": \"BM_a/{x}\\\"q\\\\\",\n"
      "      \"run_type\": \"iteration\",\n"
      "      \"label\": \"}{\"\n"
      "    },\n"
      "    {\n"
      "      \"name\": \"BM_a/{x}\\\"q\\\\_mean\",\n"
      "      \"run_type\": \"aggregate\"\n"
      "    },\n"
      "    {\n"
      "      \"name\": \"BM_b\",\n"
      "      \"run_type\": \"iteration\"\n"
      "    }";
  const std::string got = benchmark_ext_internal::InsertProfileMembers(
      text, {{"BM_a/{x}\"q\\", "{\"samples\": 1}"}});
  const nlohmann::json rows =
      nlohmann::json::parse("[" + got + "]", nullptr, false);
  ASSERT_TRUE(rows.is_array()) << got;
  ASSERT_EQ(rows.size(), 3u) << got;
  EXPECT_EQ(rows[0]["name"], "BM_a/{x}\"q\\");
  EXPECT_EQ(rows[0]["label"], "}{");
  EXPECT_EQ(rows[0]["perfcounters_profile"]["samples"], 1) << got;
  EXPECT_FALSE(rows[1].contains("perfcounters_profile")) << got;
  EXPECT_FALSE(rows[2].contains("perfcounters_profile")) << got;
  EXPECT_EQ(benchmark_ext_internal::InsertProfileMembers(text, {}), text);
}

// The hot: line names code no symbol covers by its module and offset, so
// that two such entries can be told apart.
TEST(ProfileMembers, HotLineNamesUnknownCodeByModuleAndOffset) {
  ProfileSummary s;
  s.samples = 10;
  FunctionShare unknown;
  unknown.name = kUnknownFunction;
  unknown.module = "/usr/lib/libjit.so";
  unknown.offset = 0x1f40;
  unknown.self = 6;
  FunctionShare known;
  known.name = "ns::Parse(char const*)";
  known.module = "/bin/parse_bench";
  known.self = 4;
  s.functions = {unknown, known};
  EXPECT_EQ(benchmark_ext_internal::HotLine(s, 3),
            "hot: [unknown] libjit.so+0x1f40 60% \xC2\xB7 Parse 40%");
}

// Template arguments of 200+ characters make a hot: line no one reads: the
// console shortens long argument lists and cuts what is left; the JSON
// keeps the whole name.
TEST(ProfileMembers, HotLineShortensLongTemplateNames) {
  const std::string pair =
      "std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, "
      "std::allocator<char> > const, std::vector<unsigned long, "
      "std::allocator<unsigned long> > >";
  const std::string tokenize = "void tok::Tokenize<std::unordered_map<" + pair +
                               ", std::hash<" + pair + "> > >(" + pair +
                               " const&)";
  const std::string handler =
      "tok::TheLongestHandlerNameThatAnyoneEverWroteForTokenizingNumbers::"
      "HandleEverySingleNumberInTheInputAtOnce(char const*)";
  ASSERT_GT(tokenize.size(), 300u);
  ProfileSummary s;
  s.samples = 10;
  FunctionShare a;
  a.name = tokenize;
  a.module = "/bin/tok";
  a.self = 6;
  FunctionShare b;
  b.name = handler;
  b.module = "/bin/tok";
  b.self = 4;
  s.functions = {a, b};
  const std::string line = benchmark_ext_internal::HotLine(s, 3);
  EXPECT_EQ(line,
            "hot: Tokenize<\xE2\x80\xA6> 60% \xC2\xB7 "
            "HandleEverySingleNumberInTheInputAtOnce 40%");
  EXPECT_LE(
      benchmark_ext_internal::ConsoleFunctionName(std::string(200, 'x')).size(),
      benchmark_ext_internal::kConsoleNameMax);
  // Short template arguments stay; an operator< is not a template.
  EXPECT_EQ(benchmark_ext_internal::ConsoleFunctionName("ns::Sum<int>(int)"),
            "Sum<int>");
  EXPECT_EQ(benchmark_ext_internal::ConsoleFunctionName("ns::operator<(A, B)"),
            benchmark_ext_internal::ShortName("ns::operator<(A, B)"));
  const nlohmann::json j =
      nlohmann::json::parse(benchmark_ext_internal::ProfileJson(s));
  EXPECT_EQ(j["functions"][0]["name"], tokenize);
}

TEST(BenchmarkExtProfileTest, BadFlagsAreClearErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--perf_profile=cylces"}, "cylces"},
      {{"--perf_profile=cpu-clock", "--perf_profile_period=0"}, "out of range"},
      {{"--perf_profile=cpu-clock", "--perf_profile_freq=12x"},
       "not a whole number"},
      {{"--perf_profile_period=1000"}, "need --perf_profile"},
      {{"--perf_profile=cpu-clock", "--perf_profile_out=/proc/no/such"},
       "--perf_profile_out=/proc/no/such"},
      {{"--perf_profile=cpu-clock", "--perf_profile_top=0"}, "1 to 100"},
      {{"--perf_profile=cpu-clock", "--perf_profile_period=99999999999999"},
       "out of range"},
      {{"--perf_profile=cpu-clock", "--perf_profile_period=10",
        "--perf_profile_freq=10"},
       "not both"},
      {{"--perf_profile=cpu-clock", "--perf_profile_out=/etc/passwd"},
       "not a writable directory"},
      {{"--perf_profile=cpu-clock,task-clock"},
       "one event, not a list or a group"},
      {{"--perf_profile={cycles,instructions}"}, "not a list or a group"},
  };
  for (const Case& c : cases) {
    Result r = RunBench(c.args, Profiled());
    EXPECT_EQ(r.exit_code, 1) << c.args[0];
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("BM_")));
  }
}

TEST(BenchmarkExtProfileTest, UnprivilegedAtParanoid2AndRefusedAt3) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to set the sysctl";
  {
    testing::ScopedParanoid paranoid(2);
    ASSERT_TRUE(paranoid.ok())
        << "cannot write " << perfcounters::testing::kParanoid;
    Result r =
        RunBench({"--perf_profile=auto", "--benchmark_filter=BM_ThreeToOne",
                  "--benchmark_min_time=0.1"},
                 Profiled(/*nobody=*/true));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(r.Entry("BM_ThreeToOne")["perfcounters_profile"]["samples"]
                  .get<uint64_t>(),
              50u);
  }
  testing::ScopedParanoid paranoid(3);
  ASSERT_TRUE(paranoid.ok())
      << "cannot write " << perfcounters::testing::kParanoid;
  Result r =
      RunBench({"--perf_profile=auto", "--benchmark_filter=BM_ThreeToOne",
                "--benchmark_min_time=0.05"},
               Profiled(/*nobody=*/true));
  // Level 3 is a Debian/Android patch; upstream kernels treat it as 2.
  // Either way the benchmark runs; refused, it says why.
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.Entry("BM_ThreeToOne").is_object());
  if (!r.Entry("BM_ThreeToOne").contains("perfcounters_profile")) {
    EXPECT_THAT(r.err, HasSubstr("no profiles"));
    EXPECT_THAT(r.err, HasSubstr("perf_event_paranoid is 3"));
  }
}

// gbench's own reader of its JSON, tools/compare.py (from the Google
// Benchmark source snapshots CI has), reads files whose rows carry
// profiles: the member is one it ignores.
TEST(BenchmarkExtProfileTest, GbenchCompareReadsProfiledFiles) {
  std::string snapshots = PERFCOUNTERS_GBENCH_SNAPSHOTS;
  if (const char* env = std::getenv("PERFCOUNTERS_GBENCH_SNAPSHOTS")) {
    snapshots = env;
  }
  std::string archive;
  for (const char* v : {"v1.9.5", "v1.8.3"}) {
    const std::string a = snapshots + "/benchmark-" + v + ".tar.gz";
    if (access(a.c_str(), R_OK) == 0) {
      archive = a;
      break;
    }
  }
  if (archive.empty()) {
    GTEST_SKIP() << "needs Google Benchmark's tools/compare.py: no source "
                    "snapshot benchmark-v1.9.5.tar.gz in "
                 << snapshots << " (set PERFCOUNTERS_GBENCH_SNAPSHOTS)";
  }
  const std::string python =
      access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  const RunResult probe =
      testing::RunArgv({python, "-c", "import numpy, scipy"});
  if (probe.code != 0) {
    GTEST_SKIP() << "needs python3 with numpy and scipy (python3-scipy), "
                    "which compare.py imports: "
                 << probe.out << probe.err;
  }
  const std::string dir = TempDir();
  const RunResult untar =
      testing::RunArgv({"tar", "xzf", archive, "-C", dir,
                        "--strip-components=1", "--wildcards", "*/tools/*"});
  ASSERT_EQ(untar.code, 0) << untar.out << untar.err;
  std::vector<std::string> files;
  for (int i = 0; i < 2; ++i) {
    Result r = RunBench({"--perf_profile=cpu-clock",
                         "--benchmark_filter=^BM_(Inlined|ThreeToOne)$",
                         "--benchmark_min_time=0.05"},
                        Profiled());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(r.Entry("BM_Inlined").contains("perfcounters_profile"))
        << r.json_text;
    files.push_back(dir + "/run" + std::to_string(i) + ".json");
    FILE* f = std::fopen(files.back().c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fwrite(r.json_text.data(), 1, r.json_text.size(), f);
    std::fclose(f);
  }
  const RunResult cmp =
      testing::RunArgv({python, dir + "/tools/compare.py", "--no-color",
                        "benchmarks", files[0], files[1]});
  const std::string cmp_output = cmp.out + cmp.err;
  EXPECT_EQ(cmp.code, 0) << cmp_output;
  EXPECT_THAT(cmp_output, HasSubstr("BM_Inlined"));
  EXPECT_THAT(cmp_output, HasSubstr("BM_ThreeToOne"));
  EXPECT_THAT(cmp_output, ::testing::Not(HasSubstr("Traceback")));
  testing::RunArgv({"rm", "-rf", dir});
}

// A sampler the kernel refuses is a warning that says why; the benchmarks
// run and report as without --perf_profile.
TEST(BenchmarkExtProfileTest, RefusedSamplerNeverBreaksTheRun) {
  // cycles: ENOENT on a VM without a PMU (where it opens, it profiles).
  Result r =
      RunBench({"--perf_profile=cycles", "--benchmark_filter=^BM_Inlined$",
                "--benchmark_min_time=0.02"},
               Profiled());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.Entry("BM_Inlined").is_object()) << r.json_text;
  if (!r.Entry("BM_Inlined").contains("perfcounters_profile")) {
    EXPECT_THAT(r.err, HasSubstr("--perf_profile=cycles: no profiles: "));
  }
  // The ring beyond the locked-memory limits: perf_event_mlock_kb 0 and
  // RLIMIT_MEMLOCK 0 for a user without CAP_IPC_LOCK.
  // As nobody through support/as_nobody.h's helper (setresuid/setresgid,
  // then exec): no util-linux setpriv needed (the emulated arm64 machine
  // has busybox's, which cannot change ids).
  if (geteuid() != 0) GTEST_SKIP() << "needs root to set the sysctl";
  testing::ScopedParanoid paranoid(2);  // the user may sample at all
  ASSERT_TRUE(paranoid.ok())
      << "cannot write " << perfcounters::testing::kParanoid;
  const char kMlock[] = "/proc/sys/kernel/perf_event_mlock_kb";
  const std::string saved = testing::ReadFile(kMlock);
  ASSERT_FALSE(saved.empty());
  {
    FILE* f = std::fopen(kMlock, "w");
    ASSERT_NE(f, nullptr);
    std::fputs("0\n", f);
    std::fclose(f);
  }
  RunOptions o = Profiled(/*nobody=*/true);
  o.memlock = 0;
  Result refused =
      RunBench({"--perf_profile=cpu-clock", "--benchmark_filter=^BM_Inlined$",
                "--benchmark_min_time=0.02"},
               o);
  {
    FILE* f = std::fopen(kMlock, "w");
    ASSERT_NE(f, nullptr);
    std::fputs(saved.c_str(), f);
    std::fclose(f);
  }
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  ASSERT_TRUE(refused.Entry("BM_Inlined").is_object()) << refused.json_text;
  EXPECT_FALSE(refused.Entry("BM_Inlined").contains("perfcounters_profile"));
  EXPECT_THAT(refused.err, HasSubstr("no profiles"));
  EXPECT_THAT(refused.err, HasSubstr("perf_event_mlock_kb or RLIMIT_MEMLOCK"));
}

}  // namespace
}  // namespace perfcounters
