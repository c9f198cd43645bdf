// benchmark_ext_environment_test.cc: the fingerprint in gbench's JSON
// (perfcounters.env.*, docs/environment.md): tests/e2e's benchmark writes
// what ReadEnvironment() says here, its build's facts and the load average
// at start (context) and end (context_end), in the --benchmark_out file and
// in --benchmark_format=json on stdout, also with a profile pass.
#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
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

// The GNU build-id of the ELF file `path`, read from its section headers
// (not from a loaded program, as the benchmark reads its own), as hex; ""
// where it has none.
std::string BuildIdOfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string f((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (f.size() < sizeof eh || f.compare(0, 4, ELFMAG) != 0 ||
      f[EI_CLASS] != ELFCLASS64) {
    return "";
  }
  std::memcpy(&eh, f.data(), sizeof eh);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    const size_t at = eh.e_shoff + i * eh.e_shentsize;
    if (at + sizeof sh > f.size()) return "";
    std::memcpy(&sh, f.data() + at, sizeof sh);
    if (sh.sh_type != SHT_NOTE || sh.sh_offset + sh.sh_size > f.size()) {
      continue;
    }
    const size_t align = sh.sh_addralign == 8 ? 8 : 4;
    const auto pad = [align](size_t n) {
      return (n + align - 1) / align * align;
    };
    for (size_t p = sh.sh_offset;
         p + sizeof(Elf64_Nhdr) <= sh.sh_offset + sh.sh_size;) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, f.data() + p, sizeof nh);
      const size_t desc = p + sizeof nh + pad(nh.n_namesz);
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          f.compare(p + sizeof nh, 4, std::string("GNU\0", 4)) == 0) {
        std::string hex;
        for (size_t b = 0; b < nh.n_descsz; ++b) {
          static constexpr char kDigits[] = "0123456789abcdef";
          const auto byte = static_cast<unsigned char>(f[desc + b]);
          hex += kDigits[byte >> 4];
          hex += kDigits[byte & 15];
        }
        return hex;
      }
      p = desc + pad(nh.n_descsz);
    }
  }
  return "";
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
        key.rfind("loadavg.", 0) == 0 || key.rfind("binary.", 0) == 0) {
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

// binary.build_id is the benchmark file's own build-id (the toolchain
// writes one: Debian's gcc and clang link with --build-id), and another
// binary has another.
TEST(BenchmarkEnvironment, BuildIdNamesTheBinary) {
  const std::string bench =
      perfcounters::testing::FindBench(perfcounters::testing::kBench);
  const std::string other =
      perfcounters::testing::FindBench(perfcounters::testing::kOwnMainBench);
  ASSERT_FALSE(bench.empty());
  const std::string expected = BuildIdOfFile(bench);
  if (expected.empty())
    GTEST_SKIP() << bench << " was linked without a build-id";
  const Result r = RunBench({kFilter, kMinTime});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Written(r.json)["binary.build_id"], expected);
  ASSERT_FALSE(other.empty());
  EXPECT_NE(BuildIdOfFile(other), expected);
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
