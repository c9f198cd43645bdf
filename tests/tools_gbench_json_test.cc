// tools_gbench_json_test.cc: reading Google Benchmark JSON (gbench_json.h)
// as `compare` and `report` do: bounded memory and a clear error when it
// runs out, standard input as `-`, values of the wrong shape.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/sanitizers.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::Quote;
using testing::RunResult;

// A gbench file of `benchmarks` benchmarks x 3 repetitions.
std::string Generated(int benchmarks, double scale) {
  std::string out = "{\"context\": {\"date\": \"now\"}, \"benchmarks\": [\n";
  for (int b = 0; b < benchmarks; ++b) {
    for (int r = 0; r < 3; ++r) {
      absl::StrAppend(
          &out, b + r > 0 ? ",\n" : "", "{\"name\": \"BM_Generated/", b,
          "\", \"run_name\": \"BM_Generated/", b,
          "\", \"run_type\": \"iteration\", \"repetition_index\": ", r,
          ", \"iterations\": 1000, \"real_time\": ", (100 + b % 97 + r) * scale,
          ", \"cpu_time\": ", (99 + b % 97 + r) * scale,
          ", \"time_unit\": \"ns\", \"cycles\": ", 300 + b % 89 + r,
          ", \"instructions\": ", 600 + b % 7, "}");
    }
  }
  return out + "\n]}\n";
}

class GbenchJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchPath(
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(testing::MakeDirectories(dir_));
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  RunResult Run(const std::string& args) {
    return testing::RunTool(args, dir_);
  }
  std::string dir_;
};

// Under ever lower address-space limits (ulimit -v) the command either
// succeeds or says it ran out of memory and exits 2: never an abort. The
// first limit, 128 MB, is already too little for these two 10 MB files
// (reading them runs out); both formats need over 192 MB (json over
// 320 MB) to succeed, so the ladder starts where the command fails.
TEST_F(GbenchJsonTest, OutOfMemoryIsAClearErrorNotAnAbort) {
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(
      ::perfcounters::testing::kShadowReservation);
  Write("base.json", Generated(15000, 1.0));
  Write("new.json", Generated(15000, 1.01));
  bool out_of_memory_seen = false;
  for (const char* format : {"table", "json"}) {
    for (int mb : {128, 96, 64, 48, 32, 24}) {
      const RunResult r = testing::RunShell(
          absl::StrCat("cd ", Quote(dir_), " && ulimit -v ", mb * 1024,
                       " && exec ", Quote(testing::ToolPath()),
                       " compare base.json new.json -o out --format ", format));
      if (r.code == 127 || r.err.find("shared librar") != std::string::npos) {
        continue;  // too little to start at all
      }
      SCOPED_TRACE(absl::StrCat(format, " at ", mb, " MB: ", r.err));
      EXPECT_THAT(r.err, Not(HasSubstr("terminate")));
      EXPECT_THAT(r.err, Not(HasSubstr("bad_alloc")));
      if (r.code == 0) continue;
      EXPECT_EQ(r.code, 2);
      EXPECT_THAT(r.err, HasSubstr("out of memory"));
      EXPECT_LT(r.err.size(), 400u);
      out_of_memory_seen = true;
      break;  // lower limits only fail sooner
    }
  }
  EXPECT_TRUE(out_of_memory_seen) << "no limit made it run out of memory";
}

// "-" reads standard input in compare and report, as "-o -" writes
// standard output.
TEST_F(GbenchJsonTest, DashReadsStandardInput) {
  Write("base.json", Generated(20, 1.0));
  Write("new.json", Generated(20, 1.5));
  const RunResult files = Run("compare base.json new.json --color never");
  ASSERT_EQ(files.code, 0) << files.err;
  const RunResult piped = Run("compare - new.json --color never < base.json");
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_THAT(piped.out, HasSubstr("+50.0"));
  EXPECT_THAT(piped.out, HasSubstr("BM_Generated/19"));
  const RunResult next = Run("compare base.json - --format json < new.json");
  ASSERT_EQ(next.code, 0) << next.err;
  EXPECT_THAT(next.out, HasSubstr("\"new\": \"-\""));
  const RunResult report = Run("report base.json - -o - < new.json");
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("<svg"));
  const RunResult twice = Run("compare - - < base.json");
  EXPECT_EQ(twice.code, 2);
  EXPECT_THAT(twice.err, HasSubstr("both - (standard input)"));
  const RunResult twice_report = Run("report - - -o r.html < base.json");
  EXPECT_EQ(twice_report.code, 2);
  EXPECT_THAT(twice_report.err, HasSubstr("more than once"));
}

// However long an input (a path, a gate, a filter), the message that echoes
// it stays short.
TEST_F(GbenchJsonTest, EveryMessageStaysShortForAnyInput) {
  Write("base.json", Generated(3, 1.0));
  const std::string huge(5000, 'x');
  const std::string huge_path = "/nonexistent/" + huge;
  for (const std::string& args :
       {"compare " + Quote(huge_path) + " base.json",
        "compare base.json " + Quote(huge_path),
        "report " + Quote(huge_path) + " -o r.html",
        "compare base.json base.json --fail-on " + Quote(huge + "<1%"),
        "compare base.json base.json --fail-on " + Quote(huge + ":cpu_time<1%"),
        "compare base.json base.json --fail-on " + Quote("cpu_time<" + huge),
        "compare base.json base.json --filter " + Quote(huge),
        "compare base.json base.json --filter " + Quote("(" + huge),
        "compare base.json base.json --format " + Quote(huge),
        "report base.json base.json -o r.html --fail-on " + Quote(huge + "<1%"),
        "list " + Quote("[" + huge)}) {
    const RunResult r = Run(args);
    EXPECT_EQ(r.code, 2) << args.substr(0, 80);
    EXPECT_LT(r.err.size(), 600u) << args.substr(0, 80) << ": " << r.err;
  }
}

// A field Google Benchmark writes as one value, given as an array or an
// object, is bad input; a would-be counter so given is a warning (as a
// string counter is); metadata and perfcounters' profile object pass.
TEST(GbenchJsonShapes, ArraysAndObjectsWhereOneValueBelongs) {
  auto parse = [](const std::string& fields) {
    return ParseBenchmarkJson(
        absl::StrCat("{\"benchmarks\": [{\"name\": \"BM_a\", "
                     "\"real_time\": 5, \"cpu_time\": 4, ",
                     fields, "}]}"),
        "mem.json");
  };
  for (const auto& [fields, what] :
       std::vector<std::pair<std::string, std::string>>{
           {"\"iterations\": [1]",
            ".iterations is an array; expected a number"},
           {"\"run_name\": {\"a\": 1}",
            ".run_name is an object; expected a string"},
           {"\"error_occurred\": [true]",
            ".error_occurred is an array; expected true or false"}}) {
    absl::StatusOr<BenchmarkFile> f = parse(fields);
    ASSERT_FALSE(f.ok()) << fields;
    EXPECT_THAT(f.status().message(),
                HasSubstr("benchmarks[0] (\"BM_a\")" + what));
  }
  absl::StatusOr<BenchmarkFile> counter = parse("\"cycles\": [1234]");
  ASSERT_TRUE(counter.ok()) << counter.status();
  EXPECT_TRUE(counter->entries[0].counters.empty());
  ASSERT_EQ(counter->warning_count, 1u);
  EXPECT_THAT(counter->warnings[0],
              HasSubstr(".cycles is an array, not a number: not used"));
  absl::StatusOr<BenchmarkFile> quiet = parse(
      "\"perfcounters_profile\": {\"event\": \"cpu-clock\", \"functions\": "
      "[]}, \"label\": \"x\"");
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  EXPECT_EQ(quiet->warning_count, 0u);
}

// benchmark_ext's end-of-run facts (docs/environment.md) come after the
// benchmarks, in "context_end": read as context members, after the
// context's own.
TEST(GbenchJsonShapes, ContextEndMembersAreContext) {
  absl::StatusOr<BenchmarkFile> f = ParseBenchmarkJson(
      "{\"context\": {\"perfcounters.env.loadavg.start\": \"1.00 0.50 "
      "0.25\"}, \"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 5, "
      "\"cpu_time\": 4}], \"context_end\": "
      "{\"perfcounters.env.loadavg.end\": \"2.00 0.75 0.30\"}}",
      "mem.json");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(f->context,
              ::testing::ElementsAre(
                  std::pair<std::string, std::string>(
                      "perfcounters.env.loadavg.start", "1.00 0.50 0.25"),
                  std::pair<std::string, std::string>(
                      "perfcounters.env.loadavg.end", "2.00 0.75 0.30")));
  EXPECT_EQ(f->entries.size(), 1u);
}

}  // namespace
}  // namespace perfcounters::tools
