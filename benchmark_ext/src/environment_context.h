// environment_context.h (internal): the run's fingerprint in gbench's JSON
// context (`perfcounters.env.<key>`, docs/environment.md) — the machine's
// (perfcounters/environment.h), what built the benchmark as far as the
// binary can tell, and the load average at the end of the run, which the
// JSON reporter has written its context before: `EnvironmentEndReporter`
// holds a JSON reporter's text until the end and adds it then.
#ifndef PERFCOUNTERS_BENCHMARK_EXT_SRC_ENVIRONMENT_CONTEXT_H_
#define PERFCOUNTERS_BENCHMARK_EXT_SRC_ENVIRONMENT_CONTEXT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "perfcounters/environment.h"

namespace perfcounters::benchmark_ext_internal {

// The main program's GNU build-id (its NT_GNU_BUILD_ID note, found in its
// loaded segments by dl_iterate_phdr: no file is read) as lowercase hex;
// nullopt when it was linked without one.
std::optional<std::string> MainProgramBuildId();

// The fingerprint plus build.compiler, build.optimized, build.ndebug (of
// benchmark_ext's compile), gbench.version (where the build knows it) and
// binary.build_id (where the program has one).
Environment RunEnvironment();

// Adds RunEnvironment() to gbench's context as perfcounters.env.<key>.
void AddEnvironmentContext();

// The end of a JSON reporter's output (its Finalize: "  ]\n}\n") with a
// top-level "context_end" object after "benchmarks", holding `members`
// (already JSON text, '"key": "value"' each); unchanged when it has no
// closing brace.
std::string AppendContextEnd(const std::string& tail,
                             const std::vector<std::string>& members);

// `reporter` wrapped, when it is gbench's JSON reporter, so that its output
// ends with "context_end": {"perfcounters.env.loadavg.end": ...}, what the
// context (written before the first benchmark) cannot hold; other
// reporters unchanged. The reading tools take context_end's members as
// context members.
std::unique_ptr<benchmark::BenchmarkReporter> WithEnvironmentEnd(
    std::unique_ptr<benchmark::BenchmarkReporter> reporter);

}  // namespace perfcounters::benchmark_ext_internal

#endif  // PERFCOUNTERS_BENCHMARK_EXT_SRC_ENVIRONMENT_CONTEXT_H_
