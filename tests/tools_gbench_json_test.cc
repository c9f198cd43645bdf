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
#include "testing/tool_runner.h"

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
    ASSERT_EQ(std::system(("mkdir -p " + Quote(dir_)).c_str()), 0);
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
// succeeds or says it ran out of memory and exits 2: never an abort.
TEST_F(GbenchJsonTest, OutOfMemoryIsAClearErrorNotAnAbort) {
  Write("base.json", Generated(40000, 1.0));
  Write("new.json", Generated(40000, 1.01));
  bool out_of_memory_seen = false;
  for (const char* format : {"table", "json"}) {
    for (int mb : {2048, 512, 256, 192, 160, 128, 96, 64, 48}) {
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
    }
  }
  EXPECT_TRUE(out_of_memory_seen) << "no limit made it run out of memory";
}

}  // namespace
}  // namespace perfcounters::tools
