// bench_runner.h: runs the benchmark binaries of tests/e2e (built next to
// the benchmark_ext tests) with arguments, environment, an optional soft
// RLIMIT_NOFILE and an optional unprivileged user, and reads back their
// exit status, stdout, stderr and --benchmark_out JSON (support/subprocess.h
// runs it).
//
// The benchmark binary is looked up in $PERFCOUNTERS_E2E_DIR, then next to
// the test binary (/proc/self/exe), then in its e2e/ subdirectory, then in
// the current directory.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_BENCH_RUNNER_H_
#define PERFCOUNTERS_TESTS_SUPPORT_BENCH_RUNNER_H_

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/subprocess.h"
#include "support/thread_clock.h"

namespace perfcounters::testing {

inline constexpr char kBench[] = "perfcounters_e2e_bench";
inline constexpr char kOwnMainBench[] = "perfcounters_own_main_bench";

// gbench's short runs: enough iterations, fast in the emulated machine.
inline constexpr char kMinTime[] = "--benchmark_min_time=0.05";

inline std::string FindBench(const std::string& binary) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("PERFCOUNTERS_E2E_DIR")) {
    dirs.push_back(env);
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, static_cast<size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/'));
    dirs.push_back(dir);
    dirs.push_back(dir + "/e2e");
  }
  dirs.push_back(".");
  for (const std::string& d : dirs) {
    if (access((d + "/" + binary).c_str(), X_OK) == 0) return d + "/" + binary;
  }
  return "";
}

// gbench writes a non-finite double as a bare NaN, -nan or Infinity (e.g.
// the cv aggregate of a counter whose mean is 0), which is not JSON: each
// such value becomes null (PerIteration reads it as NaN).
inline std::string NonFiniteToNull(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t colon = text.find(": ", i);
    if (colon == std::string::npos) break;
    out.append(text, i, colon + 2 - i);
    i = colon + 2;
    for (const char* token : {"-Infinity", "Infinity", "-NaN", "NaN", "-nan",
                              "nan", "-inf", "inf"}) {
      const std::string t(token);
      if (text.compare(i, t.size(), t) == 0) {
        out += "null";
        i += t.size();
        break;
      }
    }
  }
  out.append(text, i, std::string::npos);
  return out;
}

struct Result {
  int exit_code = -1;
  std::string out;        // stdout
  std::string err;        // stderr
  std::string json_text;  // --benchmark_out as written
  nlohmann::json json;    // parsed, null when none was written
  // The "benchmarks" entry with this name (null when absent).
  const nlohmann::json& Entry(const std::string& name) const {
    static const nlohmann::json kNull;
    if (!json.is_object()) return kNull;
    for (const nlohmann::json& b : json["benchmarks"]) {
      if (b["name"] == name) return b;
    }
    return kNull;
  }
};

// How to run the benchmark beyond its arguments.
struct RunOptions {
  // Added to (or replacing in) this process's environment; the inherited
  // PERFCOUNTERS_EVENTS is always dropped.
  std::map<std::string, std::string> env;
  std::string binary = kBench;
  // The soft RLIMIT_NOFILE the benchmark starts with.
  std::optional<rlim_t> nofile;
  // The soft RLIMIT_MEMLOCK the benchmark starts with.
  std::optional<rlim_t> memlock;
  // Run as nobody:nogroup without supplementary groups, so without
  // capabilities (perfcounters_as_nobody). Needs root.
  bool as_nobody = false;
};

// RunOptions with `env` added to the environment, for `binary`.
inline RunOptions WithEnv(std::map<std::string, std::string> env,
                          std::string binary = kBench) {
  RunOptions options;
  options.env = std::move(env);
  options.binary = std::move(binary);
  return options;
}

// Runs the benchmark binary with `args` plus --benchmark_out to a JSON file
// (JSON parse errors fail the calling test).
inline Result RunBench(std::vector<std::string> args,
                       const RunOptions& options = {}) {
  Result result;
  const std::string bench = FindBench(options.binary);
  EXPECT_FALSE(bench.empty())
      << options.binary << " not found: set PERFCOUNTERS_E2E_DIR or put it "
      << "next to the test binary";
  if (bench.empty()) return result;
  char dir_template[] = "/tmp/pc_e2e_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  // The benchmark may run as nobody: it must be able to write its JSON.
  chmod(dir.c_str(), 0777);
  const std::string json_path = dir + "/out.json";

  Command command;
  command.argv.push_back(bench);
  for (std::string& a : args) command.argv.push_back(std::move(a));
  command.argv.push_back("--benchmark_out=" + json_path);
  command.argv.push_back("--benchmark_out_format=json");
  command.env = options.env;
  command.unset_env = {"PERFCOUNTERS_EVENTS"};
  command.nofile = options.nofile;
  command.memlock = options.memlock;
  command.as_nobody = options.as_nobody;
  RunResult run = RunCommand(command);
  EXPECT_NE(run.code, -1) << run.err;
  result.exit_code = run.code;
  result.out = std::move(run.out);
  result.err = std::move(run.err);
  result.json_text = ReadFile(json_path);
  if (!result.json_text.empty()) {
    result.json =
        nlohmann::json::parse(NonFiniteToNull(result.json_text), nullptr,
                              /*allow_exceptions=*/false);
    // A run stopped by an error may leave gbench's JSON unfinished.
    if (result.exit_code == 0) {
      EXPECT_FALSE(result.json.is_discarded()) << "bad JSON:\n"
                                               << result.json_text;
    }
  }
  unlink(json_path.c_str());
  rmdir(dir.c_str());
  return result;
}

// The counter `key` of a JSON benchmark entry; NaN when absent or not a
// finite number in gbench's output (null: NonFiniteToNull).
inline double PerIteration(const nlohmann::json& entry,
                           const std::string& key) {
  if (!entry.is_object() || !entry.contains(key) || entry[key].is_null()) {
    return NAN;
  }
  return entry[key].get<double>();
}

// Expects the task-clock per iteration of a single-threaded entry to be
// its CPU time: at least gbench's `cpu_time` less `tolerance`, at most its
// `real_time` plus `tolerance`. The kernel's task-clock follows the perf
// clock while the task is on a CPU, which includes the time a hypervisor
// stole and interrupts took; the thread's CPU clock leaves those out (seen
// in CI on a VM: task-clock 16164 ns, cpu_time 13826 ns, real_time 16195
// ns). Use through EXPECT_TASK_CLOCK_IS_CPU_TIME.
inline ::testing::AssertionResult TaskClockIsCpuTime(
    const char* entry_text, const char* /*tolerance_text*/,
    const nlohmann::json& entry, double tolerance) {
  if (!entry.is_object() || !entry.contains("cpu_time") ||
      !entry.contains("real_time")) {
    return ::testing::AssertionFailure()
           << entry_text << " has no cpu_time and real_time: " << entry.dump();
  }
  const double task_clock = PerIteration(entry, "task-clock");
  const double cpu_ns = entry["cpu_time"].get<double>();
  const double real_ns = entry["real_time"].get<double>();
  return ClockWithin(
             (std::string("task-clock per iteration of ") + entry_text).c_str(),
             task_clock, cpu_ns, real_ns, tolerance)
         << " in " << entry.dump();
}

#define EXPECT_TASK_CLOCK_IS_CPU_TIME(entry, tolerance)                   \
  EXPECT_PRED_FORMAT2(::perfcounters::testing::TaskClockIsCpuTime, entry, \
                      tolerance)

// A key of the JSON context; empty when absent.
inline std::string Context(const Result& r, const std::string& key) {
  if (!r.json.is_object() || !r.json.contains("context") ||
      !r.json["context"].contains(key)) {
    return "";
  }
  return r.json["context"][key].get<std::string>();
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_BENCH_RUNNER_H_
