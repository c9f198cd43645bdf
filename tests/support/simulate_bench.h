// simulate_bench.h: what the simulated source's tests share
// (benchmark_ext_simulate_test, benchmark_ext_simulate_extra_run_test): running
// tests/e2e/simulate_bench.cc (perfcounters_simulate_bench) under
// --perf_counters_source=simulate, its values, the loops' own instructions
// from the binary's disassembly (objdump), and plain callgrind's costs as
// the oracle.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_SIMULATE_BENCH_H_
#define PERFCOUNTERS_TESTS_SUPPORT_SIMULATE_BENCH_H_

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/bench_runner.h"
#include "support/sanitizers.h"

namespace perfcounters::testing::simulate {

inline constexpr char kSimBench[] = "perfcounters_simulate_bench";
inline constexpr int kNops = 37;

inline bool HaveValgrind() {
  return std::system("valgrind --version >/dev/null 2>&1") == 0;
}

// stdout of a shell command.
inline std::string Capture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

inline Result Simulate(std::vector<std::string> args, RunOptions options = {}) {
  args.insert(args.begin(), "--perf_counters_source=simulate");
  options.binary = kSimBench;
  return RunBench(std::move(args), options);
}

inline double Value(const Result& r, const std::string& name,
                    const std::string& key) {
  const nlohmann::json& e = r.Entry(name);
  if (!e.is_object() || !e.contains(key)) return NAN;
  return e[key].get<double>();
}

// The instructions of the innermost loop of `function` (a backward jump and
// every instruction from its target to it) that contains an instruction
// whose mnemonic is `marker` or whose operands contain it, read from objdump's
// disassembly of the benchmark binary; -1 when none is found.
inline int LoopInstructions(const std::string& function,
                            const std::string& marker) {
  const std::string dis = Capture("objdump -d --no-show-raw-insn -C '" +
                                  FindBench(kSimBench) + "' 2>/dev/null");
  const std::string header = "<(anonymous namespace)::" + function + ">:";
  size_t start = dis.find(header);
  if (start == std::string::npos) return -1;
  const size_t end = dis.find("\n\n", start);
  std::istringstream body(dis.substr(start, end - start));
  struct Insn {
    uint64_t addr;
    std::string text;
  };
  std::vector<Insn> insns;
  std::string line;
  std::getline(body, line);  // the header
  while (std::getline(body, line)) {
    const size_t colon = line.find(":\t");
    if (colon == std::string::npos) continue;
    insns.push_back({std::stoull(line.substr(0, colon), nullptr, 16),
                     line.substr(colon + 2)});
  }
  int best = -1;
  for (size_t b = 0; b < insns.size(); ++b) {
    const std::string& t = insns[b].text;
    if (t.empty() || t[0] != 'j') continue;
    const size_t space = t.find_first_of(" \t");
    if (space == std::string::npos) continue;
    const size_t hex = t.find_first_not_of(" \t", space);
    uint64_t target = 0;
    if (std::sscanf(t.c_str() + hex, "%lx", &target) != 1) continue;
    if (target >= insns[b].addr) continue;
    int count = 0;
    bool has_marker = false;
    for (const Insn& i : insns) {
      if (i.addr < target || i.addr > insns[b].addr) continue;
      ++count;
      // The mnemonic itself ("nop", not the alignment "nopl") or in the
      // operands (a call's target).
      const size_t end = i.text.find_first_of(" \t");
      has_marker = has_marker || i.text.substr(0, end) == marker ||
                   (end != std::string::npos &&
                    i.text.find(marker, end) != std::string::npos);
    }
    if (has_marker && (best < 0 || count < best)) best = count;
  }
  return best;
}

// Per batch: round(value x n) - n x per_iteration: the benchmark
// function's own instructions around its loop (the calibration's empty loop
// has none), a few.
inline int64_t Residual(double value, int64_t n, int64_t per_iteration) {
  return std::llround(value * static_cast<double>(n)) - n * per_iteration;
}

// Work()'s instructions per call from plain callgrind (no client requests:
// no --perf_counters, so Measure issues none): its self cost (a leaf) over
// its calls, from the callgrind file's fn=/cfn=/calls= lines.
inline double CallgrindPerCall(const std::string& out_file,
                               const std::string& fn) {
  std::ifstream in(out_file);
  std::string line;
  std::string id;  // "(N)" of fn
  bool in_fn = false;
  bool after_call = false;
  double self = 0;
  double calls = 0;
  while (std::getline(in, line)) {
    auto name_id = [&](const std::string& prefix) -> std::string {
      // "fn=(12) name" or "fn=(12)"
      std::string rest = line.substr(prefix.size());
      const size_t close = rest.find(')');
      if (rest.empty() || rest[0] != '(' || close == std::string::npos) {
        return "";
      }
      if (rest.find(fn) != std::string::npos) id = rest.substr(0, close + 1);
      return rest.substr(0, close + 1);
    };
    if (line.rfind("fn=", 0) == 0) {
      in_fn = name_id("fn=") == id && !id.empty();
      after_call = false;
    } else if (line.rfind("cfn=", 0) == 0) {
      after_call = name_id("cfn=") == id && !id.empty();
    } else if (line.rfind("calls=", 0) == 0) {
      if (after_call) calls += std::stod(line.substr(6));
    } else if (!line.empty() && (std::isdigit(line[0]) || line[0] == '+' ||
                                 line[0] == '-' || line[0] == '*')) {
      std::istringstream fields(line);
      std::string pos;
      double ir = 0;
      fields >> pos >> ir;
      // A cost line after calls= is the call's inclusive cost (the
      // caller's), not Work's self cost.
      if (in_fn && !after_call) self += ir;
      after_call = false;
    } else if (line.rfind("ob=", 0) == 0 || line.rfind("fl=", 0) == 0 ||
               line.rfind("fi=", 0) == 0 || line.rfind("fe=", 0) == 0) {
      // file changes keep the function
    }
  }
  return calls > 0 ? self / calls : NAN;
}

// Plain callgrind's (no client requests) self cost of `function` in one
// native run of the simulate bench with `filter`: NAN when not found.
inline double PlainCallgrindSelf(const std::string& function,
                                 const std::string& filter) {
  char dir_template[] = "/tmp/pc_sim_plain_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string out = dir + "/callgrind.out";
  const std::string cmd =
      "valgrind -q --tool=callgrind --callgrind-out-file=" + out + " '" +
      FindBench(kSimBench) + "' '--benchmark_filter=" + filter +
      "' >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  const double self = status == 0 ? CallgrindPerCall(out, function) : NAN;
  std::remove(out.c_str());
  rmdir(dir.c_str());
  return self;
}

}  // namespace perfcounters::testing::simulate

#define REQUIRE_VALGRIND()                                                  \
  PERFCOUNTERS_SKIP_UNDER_SANITIZER(::perfcounters::testing::kNoValgrind);  \
  if (!::perfcounters::testing::simulate::HaveValgrind()) {                 \
    GTEST_SKIP() << "valgrind is not installed (Debian package valgrind): " \
                    "the simulated source cannot run here";                 \
  }

#endif  // PERFCOUNTERS_TESTS_SUPPORT_SIMULATE_BENCH_H_
