// tools_compare_test.cc: `perfcounters compare` — the built command run on
// real files (golden outputs, gate exit codes, bad input). Its library:
// tools_compare_library_test.cc.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "gbench_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/tool_runner.h"

namespace perfcounters::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::ExpectGolden;
using testing::QuoteAll;
using testing::RunResult;
using testing::Slurp;

const std::string& kData = testing::kTestdata;

// Runs the command with `args` in `dir`.
RunResult RunTool(const std::vector<std::string>& args,
                  const std::string& dir = kData) {
  return testing::RunTool(QuoteAll(args), dir);
}

// ---- Golden outputs on hand-made files covering: repetitions, an
// aggregate-only file, us vs ns, a counter not counted in base
// ("cycles.not_counted": 1), error_occurred, skipped, one-side-only.

TEST(CompareGolden, Table) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  // IPC fell 8.18% on BM_sort/1024, but with 3 vs 3 repetitions (cycles
  // vary) the U test cannot go below p = 0.1: the gate holds it back and
  // says so.
  const RunResult r = RunTool({"compare", "base.json", "new.json", "--fail-on",
                               "IPC<-2%", "--color", "never"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("held: IPC<-2% (p=0.100, not significant; "
                               "these repetitions allow p >= 0.100)"));
  ExpectGolden(r.out, "compare_table.txt");
}

TEST(CompareGolden, Markdown) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult r =
      RunTool({"compare", "base.json", "new.json", "--format", "markdown",
               "--fail-on", "instructions>+0.5%", "--fail-on", "IPC<1.2"});
  EXPECT_EQ(r.code, 1) << r.err;
  ExpectGolden(r.out, "compare_markdown.md");
}

TEST(CompareGolden, Json) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult r =
      RunTool({"compare", "aggregates_only.json", "new.json", "--format",
               "json", "--fail-on", "cpu_time>1ms"});
  EXPECT_EQ(r.code, 1) << r.err;
  ExpectGolden(r.out, "compare_json.json");
}

TEST(CompareGolden, ColourOnlyWhenAsked) {
  PERFCOUNTERS_REQUIRE_TESTDATA();
  const RunResult plain = RunTool({"compare", "base.json", "new.json"});
  EXPECT_THAT(plain.out, Not(HasSubstr("\x1b[")));  // stdout is a file
  const RunResult colour =
      RunTool({"compare", "base.json", "new.json", "--color", "always"});
  EXPECT_THAT(colour.out, HasSubstr("\x1b[31m"));
}

TEST(CompareGolden, HelpShowsGateSyntaxWithIpc) {
  const RunResult r = RunTool({"compare", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("--fail-on 'IPC<-2%'"));
  EXPECT_THAT(r.out, HasSubstr("[FILTER:]METRIC OP VALUE"));
  EXPECT_THAT(r.out, HasSubstr("0 no gate violated, 1 a gate violated, 2"));
}

// ---- Gates: files written here with known medians.

struct Rep {
  double cpu_ns;
  double instructions;
  double cycles;
};

std::string GbenchJson(
    const std::vector<std::pair<std::string, std::vector<Rep>>>& runs) {
  std::string out = "{\"context\": {\"date\": \"now\"}, \"benchmarks\": [";
  bool first = true;
  for (const auto& [name, reps] : runs) {
    for (size_t i = 0; i < reps.size(); ++i) {
      absl::StrAppend(
          &out, first ? "" : ",", "{\"name\": \"", name, "\", \"run_name\": \"",
          name, "\", \"run_type\": \"iteration\", \"repetition_index\": ", i,
          ", \"iterations\": 100, \"real_time\": ", reps[i].cpu_ns + 1,
          ", \"cpu_time\": ", reps[i].cpu_ns,
          ", \"time_unit\": \"ns\", \"instructions\": ", reps[i].instructions,
          ", \"cycles\": ", reps[i].cycles, "}");
      first = false;
    }
  }
  return out + "]}";
}

class GateTest : public ::testing::Test {
 protected:
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  RunResult Compare(const std::vector<std::string>& gates) {
    std::vector<std::string> args = {"compare", "base.json", "new.json",
                                     "--color", "never"};
    for (const std::string& g : gates) {
      args.push_back("--fail-on");
      args.push_back(g);
    }
    return RunTool(args, dir_);
  }
  void SetUp() override {
    dir_ = testing::ScratchPath("gates");
    ASSERT_TRUE(testing::MakeDirectories(dir_));
    // Base: IPC exactly 2.0, instructions 6000, cpu 1000 ns (medians).
    Write("base.json",
          GbenchJson(
              {{"BM_sort/64",
                {{990, 6000, 3000}, {1000, 6000, 3000}, {1010, 6000, 3000}}},
               {"BM_hash",
                {{500, 2000, 1000}, {505, 2000, 1000}, {495, 2000, 1000}}}}));
  }
  std::string dir_;
};

TEST_F(GateTest, IpcDropFails) {
  // cycles +3.2%: IPC 6000/3100 = 1.9355, a 3.23% drop.
  Write("new.json",
        GbenchJson(
            {{"BM_sort/64",
              {{990, 6000, 3100}, {1000, 6000, 3100}, {1010, 6000, 3100}}},
             {"BM_hash",
              {{500, 2000, 1000}, {505, 2000, 1000}, {495, 2000, 1000}}}}));
  const RunResult r = Compare({"IPC<-2%"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("-3.23%"));
  EXPECT_THAT(r.out, HasSubstr("FAIL IPC<-2%"));
  EXPECT_THAT(r.out, HasSubstr("gate IPC<-2%: FAILED (2 checked, 1 violated, "
                               "violated by BM_sort/64)"));
  // A tighter filter that excludes the regressed benchmark passes.
  EXPECT_EQ(Compare({"BM_hash:IPC<-2%"}).code, 0);
  EXPECT_EQ(Compare({"BM_sort.*:IPC<-2%"}).code, 1);
  // An absolute limit: IPC 1.9355 < 1.95 fails, < 1.9 passes.
  EXPECT_EQ(Compare({"BM_sort:IPC<1.95"}).code, 1);
  EXPECT_EQ(Compare({"BM_sort:IPC<1.9"}).code, 0);
}

TEST_F(GateTest, InstructionIncreaseFails) {
  Write("new.json",
        GbenchJson(
            {{"BM_sort/64",
              {{990, 6060, 3000}, {1000, 6060, 3000}, {1010, 6060, 3000}}},
             {"BM_hash",
              {{500, 2000, 1000}, {505, 2000, 1000}, {495, 2000, 1000}}}}));
  const RunResult r = Compare({"instructions>+0.5%"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("+1.00%"));
  EXPECT_THAT(r.out, HasSubstr("FAIL instructions>+0.5%"));
  EXPECT_EQ(Compare({"instructions>+1.5%"}).code, 0);
  // The geometric mean over both benchmarks is sqrt(1.01) - 1 = +0.499%.
  EXPECT_EQ(Compare({"@geomean:instructions>+0.4%"}).code, 1);
  EXPECT_EQ(Compare({"@geomean:instructions>+0.5%"}).code, 0);
}

// A file counted by the simulator (benchmark_ext's
// --perf_counters_source=simulate) as its context says.
std::string Simulated(const std::string& json) {
  const std::string plain = "{\"context\": {\"date\": \"now\"}";
  return "{\"context\": {\"date\": \"now\", \"perfcounters.source\": "
         "\"simulate: valgrind-3.19.0 callgrind\"}" +
         json.substr(plain.size());
}

TEST_F(GateTest, SimulatedAndMeasuredAreNeverCompared) {
  const std::string base = Slurp(dir_ + "/base.json");
  Write("new.json", Simulated(base));
  const RunResult mixed = Compare({"instructions>+0.5%"});
  EXPECT_EQ(mixed.code, 2) << mixed.out << mixed.err;
  EXPECT_THAT(mixed.err,
              HasSubstr("base.json was counted by pmu (no "
                        "perfcounters.source) and new.json by simulate: "
                        "valgrind-3.19.0 callgrind"));
  EXPECT_THAT(mixed.err, HasSubstr("same --perf_counters_source"));
  EXPECT_THAT(mixed.out, Not(HasSubstr("instructions")));
  // Both simulated: compared as usual.
  Write("base.json", Simulated(base));
  const RunResult same = Compare({"instructions>+0.5%"});
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_THAT(same.out, HasSubstr("+0.00%"));
}

TEST_F(GateTest, NoChangePasses) {
  Write("new.json", Slurp(dir_ + "/base.json"));
  const RunResult r = Compare(
      {"IPC<-2%", "instructions>+0.5%", "cpu_time>+5%", "cycles>+0.1%"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("+0.00%"));
  EXPECT_THAT(r.out, Not(HasSubstr("FAIL")));
}

TEST_F(GateTest, NoiseBelowTheGatePasses) {
  // instructions +0.3%, cycles +1% (IPC -0.7%), time +/- 1%.
  Write("new.json",
        GbenchJson(
            {{"BM_sort/64",
              {{1000, 6018, 3030}, {1008, 6018, 3030}, {995, 6018, 3030}}},
             {"BM_hash",
              {{501, 2006, 1010}, {503, 2006, 1010}, {497, 2006, 1010}}}}));
  const RunResult r = Compare({"IPC<-2%", "instructions>+0.5%"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("+0.30%"));
}

TEST_F(GateTest, AbsoluteTimeLimits) {
  Write("new.json", Slurp(dir_ + "/base.json"));
  EXPECT_EQ(Compare({"cpu_time>999ns"}).code, 1);  // median 1000 ns
  EXPECT_EQ(Compare({"cpu_time>1us"}).code, 0);
  EXPECT_EQ(Compare({"cpu_time>=1us"}).code, 1);
  EXPECT_EQ(Compare({"real_time>0.0015ms"}).code, 0);
}

TEST_F(GateTest, MissingMetricIsSaidNotZero) {
  // The new file has no cycles: IPC cannot be evaluated (not a drop to 0).
  Write(
      "new.json",
      "{\"benchmarks\": [{\"name\": \"BM_sort/64\", \"run_type\": "
      "\"iteration\", \"real_time\": 1000, \"cpu_time\": 1000, "
      "\"time_unit\": \"ns\", \"instructions\": 6000, \"cycles.not_counted\": "
      "1}]}");
  // The gate checked nothing: an error (exit 2) naming what the data has,
  // not a silent pass.
  const RunResult r = Compare({"IPC<-2%"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("not counted"));
  EXPECT_THAT(r.err,
              HasSubstr("gate IPC<-2%: checked nothing: no benchmark it "
                        "applies to has IPC counted on both sides (BM_sort/64: "
                        "IPC not counted in new); metrics with values on both "
                        "sides: real_time, cpu_time, instructions"));
  EXPECT_THAT(r.out, HasSubstr("verdict: ERROR (exit 2)"));
  // Accepted explicitly: exit 0, and the output says nothing was checked.
  const RunResult allowed =
      RunTool({"compare", "base.json", "new.json", "--fail-on", "IPC<-2%",
               "--allow-unchecked-gates"},
              dir_);
  EXPECT_EQ(allowed.code, 0) << allowed.out << allowed.err;
  EXPECT_THAT(allowed.out, HasSubstr("not evaluated on 2"));
  EXPECT_THAT(allowed.out, HasSubstr("checked nothing (allowed by "
                                     "--allow-unchecked-gates)"));
  const RunResult strict =
      RunTool({"compare", "base.json", "new.json", "--fail-on", "IPC<-2%",
               "--fail-on-missing", "--allow-unchecked-gates"},
              dir_);
  EXPECT_EQ(strict.code, 1);
  EXPECT_THAT(strict.err, HasSubstr("not evaluated on 2 benchmark(s) ("));
  EXPECT_THAT(strict.err, HasSubstr("IPC not counted in new"));
  EXPECT_THAT(strict.err, HasSubstr("--fail-on-missing)"));
  EXPECT_THAT(strict.out, HasSubstr("verdict: FAILED (exit 1)"));
}

TEST_F(GateTest, BenchmarkExtIpcAndCoverageKeys) {
  // benchmark_ext writes derived IPC as "ipc" and multiplexing coverage as
  // "<label>.coverage" (docs/benchmark_ext.md): IPC is the file's value,
  // coverage is no metric; the multiplexed cycles and the IPC and cpi
  // resting on them are marked as estimates (~), instructions are not.
  auto file = [](double ipc) {
    std::string out = "{\"benchmarks\": [";
    for (int i = 0; i < 3; ++i) {
      absl::StrAppend(&out, i ? "," : "",
                      "{\"name\": \"BM_x\", \"run_type\": \"iteration\", "
                      "\"repetition_index\": ",
                      i,
                      ", \"real_time\": 10, \"cpu_time\": 10, "
                      "\"time_unit\": \"ns\", \"cycles\": 100, "
                      "\"cycles.coverage\": 0.5, \"instructions\": 150, "
                      "\"ipc\": ",
                      ipc, "}");
    }
    return out + "]}";
  };
  Write("base.json", file(1.5));
  Write("new.json", file(1.4));  // -6.67% (the file's ipc, not 150/100)
  const RunResult r = Compare({"IPC<-2%"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("-6.67%"));
  EXPECT_THAT(r.out, Not(HasSubstr("cycles.coverage")));
  EXPECT_THAT(r.out, HasSubstr("~100      ~100"));
  EXPECT_THAT(r.out, HasSubstr("~1.500    ~1.400"));
  EXPECT_THAT(r.out, HasSubstr("  150       150"));
}

// ---- Bad input: exit 2 and a message saying what and where.

class BadInputTest : public GateTest {
 protected:
  void SetUp() override {
    GateTest::SetUp();
    Write("new.json", Slurp(dir_ + "/base.json"));
  }
  void ExpectUsageError(const std::string& new_text,
                        const std::string& message) {
    Write("bad.json", new_text);
    const RunResult r = RunTool({"compare", "base.json", "bad.json"}, dir_);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_EQ(r.out, "");
  }
};

TEST_F(BadInputTest, MalformedAndTruncatedJson) {
  const std::string good = Slurp(dir_ + "/base.json");
  // Cut inside the second "run_type" key: the error is at the end of the
  // file (byte key + 4, 0-based), in an unterminated string.
  const size_t key = good.find("\"run_type\"", good.find("\"run_type\"") + 1);
  ASSERT_NE(key, std::string::npos);
  ExpectUsageError(good.substr(0, key + 4),
                   absl::StrCat("bad.json: malformed JSON at byte ", key + 4,
                                ": parse error at line 1, column ", key + 5,
                                ": syntax error while parsing object key - "
                                "invalid string: missing closing quote"));
  ExpectUsageError("{\"benchmarks\": [}", "malformed JSON at byte 16");
  ExpectUsageError("{\"benchmarks\": []} trailing",
                   "malformed JSON at byte 21");
}

TEST_F(BadInputTest, NotGbenchOutput) {
  ExpectUsageError("", "bad.json: the file is empty");
  ExpectUsageError("  \n", "bad.json: the file is empty");
  ExpectUsageError("{\"foo\": 1}", "no \"benchmarks\" array");
  ExpectUsageError("[1, 2]", "the top level is an array");
  ExpectUsageError("42", "the top level is a single value");
  ExpectUsageError("{\"benchmarks\": [42]}",
                   "benchmarks[0] is a number; expected an object");
  ExpectUsageError("{\"benchmarks\": [{\"real_time\": 1}]}",
                   "benchmarks[0] has no \"name\"");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": \"fast\"}]}",
      "benchmarks[0] (\"BM_a\").real_time is a string; expected a number");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"time_unit\": \"fortnight\"}]}",
      "benchmarks[0] (\"BM_a\").time_unit is \"fortnight\"; expected ns, us, "
      "ms or s");
}

TEST_F(BadInputTest, HugeAndNonFiniteNumbers) {
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1e400}]}",
      "malformed JSON at byte 50: number overflow parsing '1e400'");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": Infinity}]}",
      "benchmarks[0] (\"BM_a\").real_time is infinite; expected a finite "
      "number");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"cpu_time\": NaN}]}",
      "benchmarks[0] (\"BM_a\").cpu_time is NaN");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"time_unit\": \"s\", "
      "\"real_time\": 1e300}]}",
      "real_time (1e+300 s) overflows when converted to ns");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"cycles\": -Infinity}]}",
      "benchmarks[0] (\"BM_a\").cycles is infinite");
  // Found by fuzz/gbench_json_fuzzer: casting 3e72 to an integer index was
  // undefined behaviour.
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"repetition_index\": "
      "3.3e72}]}",
      "benchmarks[0] (\"BM_a\").repetition_index is 3.3e+72; expected a "
      "whole number below 1e15");
  ExpectUsageError(
      "{\"benchmarks\": [{\"name\": \"BM_a\", \"repetition_index\": "
      "1.5}]}",
      "repetition_index is 1.5; expected a whole number");
}

TEST_F(BadInputTest, UnreadableFiles) {
  RunResult r = RunTool({"compare", "base.json", "missing.json"}, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("missing.json: cannot open: No such file"));
  r = RunTool({"compare", "base.json", "."}, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr(".: is a directory, not a file"));
}

TEST_F(BadInputTest, BadGates) {
  auto gate_error = [&](const std::string& gate) {
    const RunResult r =
        RunTool({"compare", "base.json", "new.json", "--fail-on", gate}, dir_);
    EXPECT_EQ(r.code, 2) << gate;
    EXPECT_EQ(r.out, "");
    return r.err;
  };
  EXPECT_THAT(gate_error("IPX<-2%"),
              HasSubstr("unknown metric 'IPX' (did you mean 'IPC'?); metrics "
                        "in these files: "
                        "real_time, cpu_time, instructions, cycles, IPC"));
  EXPECT_THAT(gate_error("BM_a:bogus>1"), HasSubstr("unknown metric 'bogus'"));
  EXPECT_THAT(gate_error("IPC=2"), HasSubstr("no comparison < or >"));
  EXPECT_THAT(gate_error("IPC<"), HasSubstr("no value after the comparison"));
  EXPECT_THAT(gate_error("<2%"), HasSubstr("no metric before the comparison"));
  EXPECT_THAT(gate_error("IPC<two%"), HasSubstr("'two%' is not a finite"));
  EXPECT_THAT(gate_error("IPC<nan"), HasSubstr("is not a finite number"));
  EXPECT_THAT(gate_error("cpu_time>1.5"),
              HasSubstr("cpu_time needs a unit: ns, us, ms or s"));
  EXPECT_THAT(gate_error("cpu_time>1.5h"), HasSubstr("not 'h'"));
  EXPECT_THAT(gate_error("IPC<1.2ms"), HasSubstr("unit 'ms' given for IPC"));
  EXPECT_THAT(gate_error("BM_[:IPC<-2%"),
              HasSubstr("the benchmark filter 'BM_[' is not a valid regular "
                        "expression"));
  EXPECT_THAT(gate_error("@geomean:IPC<1.2"),
              HasSubstr("@geomean gates compare changes"));
}

TEST_F(BadInputTest, BadOptions) {
  RunResult r = RunTool({"compare", "base.json"}, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("NEW is required"));
  r = RunTool({"compare", "base.json", "new.json", "--format", "xml"}, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--format 'xml' is unknown"));
  r = RunTool({"compare", "base.json", "new.json", "--filter", "("}, dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--filter '(' is not a valid regular"));
  r = RunTool({"frobnicate"}, dir_);
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace perfcounters::tools
