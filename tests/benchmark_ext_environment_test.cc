// benchmark_ext_environment_test.cc: the fingerprint in gbench's JSON
// (perfcounters.env.*, docs/environment.md): tests/e2e's benchmark writes
// what ReadEnvironment() says here, its build's facts and the load average
// at start (context) and end (context_end), in the --benchmark_out file and
// in --benchmark_format=json on stdout, also with a profile pass.
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "perfcounters/environment.h"
#include "support/bench_runner.h"

namespace {

using ::perfcounters::testing::kMinTime;
using ::perfcounters::testing::Result;
using ::perfcounters::testing::RunBench;
using ::testing::StartsWith;

constexpr char kFilter[] = "--benchmark_filter=BM_TouchPages/4/threads:1$";
const std::regex kLoad(R"([0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2} [0-9]+\.[0-9]{2})");

// The fingerprint a JSON output carries, "perfcounters.env." taken off.
perfcounters::Environment Written(const nlohmann::json& json) {
  perfcounters::Environment env;
  for (const char* part : {"context", "context_end"}) {
    if (!json.contains(part)) continue;
    for (const auto& [key, value] : json[part].items()) {
      const std::string prefix = "perfcounters.env.";
      if (key.rfind(prefix, 0) == 0 && value.is_string()) {
        env[key.substr(prefix.size())] = value.get<std::string>();
      }
    }
  }
  return env;
}

// Every machine field but the load is what this process reads; the build's
// and the load's are there, each one non-empty.
void ExpectFingerprint(const nlohmann::json& json) {
  perfcounters::Environment written = Written(json);
  perfcounters::Environment here = perfcounters::ReadEnvironment();
  for (const auto& [key, value] : here) {
    if (key.rfind("loadavg.", 0) == 0) continue;
    ASSERT_TRUE(written.contains(key)) << key << " not written";
    EXPECT_EQ(written[key], value) << key;
  }
  for (const auto& [key, value] : written) {
    EXPECT_FALSE(value.empty()) << key;
    if (key.rfind("build.", 0) == 0 || key.rfind("gbench.", 0) == 0 ||
        key.rfind("loadavg.", 0) == 0) {
      continue;
    }
    EXPECT_TRUE(here.contains(key)) << key << " written, not read here";
  }
  // The same compiler built this test and benchmark_ext.
#if defined(__clang__)
  EXPECT_EQ(written["build.compiler"], "clang " __clang_version__);
#else
  EXPECT_EQ(written["build.compiler"], "gcc " __VERSION__);
#endif
  EXPECT_THAT(written["build.optimized"], ::testing::AnyOf("yes", "no"));
  EXPECT_THAT(written["build.ndebug"], ::testing::AnyOf("yes", "no"));
  EXPECT_TRUE(std::regex_match(written["loadavg.start"], kLoad))
      << written["loadavg.start"];
  ASSERT_TRUE(json.contains("context_end")) << json.dump();
  EXPECT_TRUE(std::regex_match(written["loadavg.end"], kLoad))
      << written["loadavg.end"];
}

TEST(BenchmarkEnvironment, OutFileCarriesTheFingerprint) {
  const Result r = RunBench({kFilter, kMinTime, "--perf_counters=task-clock"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectFingerprint(r.json);
  // Not on the console.
  EXPECT_EQ(r.err.find("perfcounters.env."), std::string::npos) << r.err;
}

TEST(BenchmarkEnvironment, StdoutJsonCarriesTheFingerprint) {
  const Result r = RunBench({kFilter, kMinTime, "--benchmark_format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json out = nlohmann::json::parse(
      perfcounters::testing::NonFiniteToNull(r.out), nullptr, false);
  ASSERT_FALSE(out.is_discarded()) << r.out;
  ExpectFingerprint(out);
  ExpectFingerprint(r.json);
}

TEST(BenchmarkEnvironment, ProfilePassKeepsTheFileWhole) {
  const Result r = RunBench({kFilter, kMinTime, "--perf_profile=cpu-clock"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectFingerprint(r.json);
  ASSERT_TRUE(r.json.contains("benchmarks"));
  EXPECT_FALSE(r.json["benchmarks"].empty());
}

}  // namespace
