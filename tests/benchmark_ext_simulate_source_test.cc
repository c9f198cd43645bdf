// benchmark_ext_simulate_source_test.cc: how the counting source is chosen
// and checked (--perf_counters_source, PERFCOUNTERS_SOURCE) where no
// benchmark needs to be simulated: a `valgrind` on PATH that is not
// Valgrind (a stub that exits 0 without running anything must fail the
// run, never pass for an empty one). Runs tests/e2e/simulate_bench.cc
// (perfcounters_simulate_bench) with a fake valgrind first on PATH.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/bench_runner.h"
#include "support/simulate_bench.h"

namespace {

using ::perfcounters::testing::Result;
using ::perfcounters::testing::WithEnv;
using ::perfcounters::testing::simulate::Simulate;
using ::testing::HasSubstr;
using ::testing::Not;

// A directory holding an executable `valgrind` with `script` as its body;
// removed with the object.
class FakeValgrind {
 public:
  explicit FakeValgrind(const std::string& script) {
    char dir_template[] = "/tmp/pc_fake_valgrind_XXXXXX";
    const char* made = mkdtemp(dir_template);
    dir_ = made != nullptr ? made : "";
    std::ofstream(path()) << "#!/bin/sh\n" << script << "\n";
    chmod(path().c_str(), 0755);
  }
  ~FakeValgrind() {
    std::remove(path().c_str());
    rmdir(dir_.c_str());
  }
  std::string path() const { return dir_ + "/valgrind"; }
  // PATH with the fake first.
  std::string search_path() const {
    const char* path = std::getenv("PATH");
    return dir_ + ":" + (path != nullptr ? path : "/usr/bin:/bin");
  }

 private:
  std::string dir_;
};

TEST(SimulateSource, AValgrindThatRunsNothingFailsTheRun) {
  // Answers --version as Valgrind does, then exits 0 for anything else.
  FakeValgrind fake(
      "if [ \"$1\" = --version ]; then echo valgrind-3.19.0; fi\nexit 0");
  Result r = Simulate({"--perf_counters=instructions",
                       "--benchmark_filter=BM_Nops37/iterations:10$"},
                      WithEnv({{"PATH", fake.search_path()}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(fake.path() +
                               " exited with status 0 without running the "
                               "benchmark"))
      << r.err;
  EXPECT_THAT(r.err, HasSubstr("no results were written"));
  EXPECT_FALSE(r.json.is_object()) << r.json_text;
}

TEST(SimulateSource, AnEmptyVersionAnswerSaysWhatHappened) {
  FakeValgrind fake("exit 0");
  Result r = Simulate({"--perf_counters=instructions",
                       "--benchmark_filter=BM_Nops37/iterations:10$"},
                      WithEnv({{"PATH", fake.search_path()}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("`valgrind --version` printed nothing"));
  EXPECT_THAT(r.err, HasSubstr(fake.path() + ") is not Valgrind"));
  EXPECT_THAT(r.err, Not(HasSubstr("exit status 0")));
  EXPECT_FALSE(r.json.is_object()) << r.json_text;
}

TEST(SimulateSource, AFailingVersionAnswerGivesItsStatus) {
  FakeValgrind fake("exit 5");
  Result r = Simulate({"--perf_counters=instructions"},
                      WithEnv({{"PATH", fake.search_path()}}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("`valgrind --version` failed (exit status 5)"));
}

}  // namespace
