// benchmark_ext_simulate_example_test: examples/branch_bench shows what it
// claims under the simulator: BM_Branchy really branches on its data
// (review-37 D9: gcc 12 -O2 had made it a conditional move), so callgrind's
// predictor misses about half of its 65536 data-dependent branches on
// random bytes and almost none on the same bytes sorted, and BM_Branchless
// misses almost nothing either way. One simulated run of the example
// (about 2 s of CPU); skipped without valgrind and under sanitizers.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/simulate_bench.h"

namespace {

constexpr double kDataBranches = 65536;  // one per byte of Data()

TEST(SimulateExample, BranchyMissesHalfItsBranchesOnRandomData) {
  // Skips without valgrind, and under a sanitizer (valgrind cannot run
  // an ASan binary), as the other simulated tests.
  REQUIRE_VALGRIND();
  char dir_template[] = "/tmp/pc_branch_example_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string out = dir + "/out.json";
  const std::string command =
      std::string("'") + PERFCOUNTERS_BRANCH_BENCH +
      "' --perf_counters=branches,branch-misses "
      "--perf_counters_source=simulate --benchmark_out='" +
      out + "' >'" + dir + "/stdout' 2>'" + dir + "/stderr'";
  const int status = std::system(command.c_str());
  std::ifstream err_file(dir + "/stderr");
  std::stringstream err;
  err << err_file.rdbuf();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << err.str();
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (std::system(("rm -rf '" + dir + "'").c_str()) != 0) {
    ADD_FAILURE() << "cannot remove " << dir;
  }
  ASSERT_TRUE(j.is_object() && j.contains("benchmarks")) << err.str();
  const auto value = [&](const std::string& name, const char* key) {
    for (const auto& b : j["benchmarks"]) {
      if (b["name"] == name && b.contains(key)) return b[key].get<double>();
    }
    ADD_FAILURE() << name << " has no " << key;
    return -1.0;
  };
  // Random bytes: about half the data branches miss (5 % either way);
  // the loop's own branch adds one predictable branch per byte.
  const double random = value("BM_Branchy/sorted:0", "branch-misses");
  EXPECT_GT(random, 0.45 * kDataBranches);
  EXPECT_LT(random, 0.55 * kDataBranches);
  EXPECT_GE(value("BM_Branchy/sorted:0", "branches"), 2 * kDataBranches);
  // Sorted: the branch changes direction once.
  EXPECT_LT(value("BM_Branchy/sorted:1", "branch-misses"),
            0.01 * kDataBranches);
  for (const char* name :
       {"BM_Branchless/sorted:0", "BM_Branchless/sorted:1"}) {
    EXPECT_LT(value(name, "branch-misses"), 0.01 * kDataBranches) << name;
  }
}

}  // namespace
