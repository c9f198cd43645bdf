// compare_memory_bench.cc: the peak memory (RSS) of `perfcounters compare`
// in each output format and of `perfcounters report`, on two generated
// Google Benchmark JSON files of --mb MB each (default 200) and of 15 MB
// each (about 4,000 benchmarks x 3 repetitions with aggregates), against
// the target: peak RSS at most 3x the two inputs' size. Each case runs the
// built command as a child and reads its peak RSS from wait4(2); the time is
// the child's wall time. The inputs are written under $TMPDIR and removed
// afterwards.
//
//   compare_memory_bench [--mb N] [--tool PATH] [gbench flags]
//
// --tool runs another build of the command (e.g. an older one, to compare).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "generated_json.h"

namespace {

struct Inputs {
  std::string base, next;
  uint64_t bytes = 0;  // both together
};
Inputs g_small, g_big;
std::string g_dir;
std::string g_tool = PERFCOUNTERS_TOOL;

// Runs the command with `args` (stdout and stderr to /dev/null); its exit
// status, peak RSS in bytes and wall seconds.
struct Child {
  int status = -1;
  uint64_t peak_rss = 0;
  double seconds = 0;
  double cpu_seconds = 0;  // user + system
};
Child RunTool(const std::vector<std::string>& args) {
  Child c;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(g_tool.data());
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(127);
    if (std::freopen("/dev/null", "w", stderr) == nullptr) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  struct rusage ru;
  int status = 0;
  if (wait4(pid, &status, 0, &ru) == pid) {
    c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    c.peak_rss = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
    c.cpu_seconds =
        static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
        static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  }
  c.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return c;
}

void Measure(benchmark::State& state, const Inputs& in,
             const std::vector<std::string>& args) {
  Child c;
  for (auto _ : state) {
    c = RunTool(args);
    state.SetIterationTime(c.seconds);
  }
  if (c.status != 0 && c.status != 1) {
    state.SkipWithError(
        absl::StrCat("the command exited with ", c.status).c_str());
    return;
  }
  state.counters["input_mb"] = static_cast<double>(in.bytes) / 1e6;
  // CPU time says more than wall time on a loaded machine.
  state.counters["cpu_s"] = c.cpu_seconds;
  state.counters["peak_rss_mb"] = static_cast<double>(c.peak_rss) / 1e6;
  // The target: <= 3.
  state.counters["rss_per_input"] =
      static_cast<double>(c.peak_rss) / static_cast<double>(in.bytes);
}

void BM_Compare(benchmark::State& state, const Inputs* in, const char* format) {
  Measure(state, *in,
          {"compare", in->base, in->next, "--format", format, "-o",
           absl::StrCat(g_dir, "/out.", format)});
}
void BM_Report(benchmark::State& state, const Inputs* in) {
  Measure(state, *in, {"report", in->base, in->next, "-o", g_dir + "/r.html"});
}

Inputs Make(const std::string& tag, uint64_t min_bytes, int benchmarks) {
  Inputs in;
  in.base = absl::StrCat(g_dir, "/", tag, "_base.json");
  in.next = absl::StrCat(g_dir, "/", tag, "_new.json");
  in.bytes = perfcounters::bench::GenerateGbenchJson(in.base, 1, 1.0,
                                                     benchmarks, min_bytes) +
             perfcounters::bench::GenerateGbenchJson(in.next, 2, 1.01,
                                                     benchmarks, min_bytes);
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t mb = 200;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mb") == 0 && i + 1 < argc) {
      mb = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--tool") == 0 && i + 1 < argc) {
      g_tool = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  const char* tmp = std::getenv("TMPDIR");
  g_dir =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/compare_memory.", getpid());
  if (std::system(absl::StrCat("mkdir -p '", g_dir, "'").c_str()) != 0)
    return 2;
  g_small = Make("small", 15000000, 0);
  g_big = Make("big", mb * 1000000, 0);
  for (const auto* in : {&g_small, &g_big}) {
    const std::string tag =
        in == &g_small ? "2x15MB" : absl::StrCat("2x", mb, "MB");
    for (const char* format : {"table", "markdown", "json"}) {
      benchmark::RegisterBenchmark(
          absl::StrCat("BM_Compare/", tag, "/", format).c_str(), BM_Compare, in,
          format)
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(absl::StrCat("BM_Report/", tag).c_str(),
                                 BM_Report, in)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::system(absl::StrCat("rm -rf '", g_dir, "'").c_str());
  return 0;
}
