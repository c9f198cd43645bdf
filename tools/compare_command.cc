// compare_command.cc: `perfcounters compare BASE.json NEW.json`.
#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "commands.h"
#include "compare.h"
#include "compare_gates.h"
#include "compare_output.h"
#include "counting_source.h"
#include "gate_options.h"
#include "gbench_json.h"
#include "output_file.h"
#include "verdict_notes.h"

namespace perfcounters::tools {
namespace {

// Arguments of `perfcounters compare`.
struct CompareArgs {
  std::string base;
  std::string next;
  GateArgs gate;
  std::string filter;
  std::string format = "table";
  std::string color = "auto";
  bool only_changed = false;
  size_t max_rows = 0;
  // Empty: standard output.
  std::string output;
  double max_input_mb = 512;
};

// compare's output options from its flags; false (said on stderr) for an
// unknown --format or --color.
bool CompareRenderOptions(const CompareArgs& args, RenderOptions* render) {
  render->alpha = args.gate.options.alpha;
  render->only_changed = args.only_changed;
  render->max_rows = args.max_rows;
  if (args.format == "table") {
    render->format = Format::kTable;
  } else if (args.format == "markdown" || args.format == "md") {
    render->format = Format::kMarkdown;
  } else if (args.format == "json") {
    render->format = Format::kJson;
  } else {
    std::fprintf(stderr,
                 "perfcounters compare: --format '%s' is unknown; use table, "
                 "markdown or json\n",
                 ShortForMessage(args.format).c_str());
    return false;
  }
  const bool to_stdout = args.output.empty() || args.output == "-";
  if (args.color == "always") {
    render->color = true;
  } else if (args.color == "auto") {
    render->color = to_stdout && isatty(STDOUT_FILENO) &&
                    std::getenv("NO_COLOR") == nullptr;
  } else if (args.color != "never") {
    std::fprintf(stderr,
                 "perfcounters compare: --color '%s' is unknown; use auto, "
                 "always or never\n",
                 ShortForMessage(args.color).c_str());
    return false;
  }
  return true;
}

// Reads BASE and NEW, in parallel; false (said on stderr) when one cannot
// be read, has no benchmarks, or they mix simulated and measured counts.
bool LoadCompareInputs(const CompareArgs& args,
                       absl::StatusOr<BenchmarkFile>& base,
                       absl::StatusOr<BenchmarkFile>& next) {
  if (args.base == "-" && args.next == "-") {
    std::fprintf(stderr,
                 "perfcounters compare: BASE and NEW are both - (standard "
                 "input); at most one of them can be\n");
    return false;
  }
  // The two files are parsed in parallel.
  const auto max_bytes = static_cast<uint64_t>(args.max_input_mb * 1048576.0);
  // No exception may leave a thread (nor pass a joinable one).
  auto load =
      [max_bytes](const std::string& path) -> absl::StatusOr<BenchmarkFile> {
    try {
      return LoadBenchmarkJson(path, max_bytes);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(
          absl::StrCat(path, ": out of memory while reading it"));
    }
  };
  // One malloc arena for both loaders: what one file's reading frees (its
  // index of names, its buffers) is then reused by the comparison, rather
  // than kept in a second arena (about 17 MB for two 50 MB files of small
  // benchmarks), at no measurable cost in CPU time.
  mallopt(M_ARENA_MAX, 1);
  std::thread base_loader([&] { base = load(args.base); });
  next = load(args.next);
  base_loader.join();
  for (const auto* f : {&base, &next}) {
    if (!f->ok()) {
      std::fprintf(stderr, "perfcounters compare: %s\n",
                   EscapeControlBytes(f->status().message()).c_str());
      return false;
    }
  }
  // Nothing to compare is no comparison (an empty table, exit 0, read as
  // "no change"): a run that crashed, or selected no benchmark, writes an
  // empty "benchmarks" array.
  const bool base_empty = base->entries.empty(),
             next_empty = next->entries.empty();
  if (base_empty || next_empty) {
    const std::string which =
        base_empty && next_empty && args.base != args.next
            ? absl::StrCat("either file (", args.base, ", ", args.next, ")")
            : (base_empty ? args.base : args.next);
    std::fprintf(
        stderr,
        "perfcounters compare: no benchmarks in %s: the "
        "\"benchmarks\" array is empty (did the run fail, or select no "
        "benchmark?)\n",
        EscapeControlBytes(which).c_str());
    return false;
  }
  if (const std::string mixed = MixedSourcesError(*base, *next);
      !mixed.empty()) {
    std::fprintf(stderr, "perfcounters compare: %s\n",
                 EscapeControlBytes(mixed).c_str());
    return false;
  }
  return true;
}

int RunCompare(const CompareArgs& args) {
  CompareOptions options;
  if (!args.filter.empty()) {
    absl::StatusOr<NameFilter> filter = NameFilter::Create(args.filter);
    if (!filter.ok()) {
      std::fprintf(stderr, "perfcounters compare: --filter %s\n",
                   std::string(filter.status().message()).c_str());
      return kExitUsage;
    }
    options.filter = *std::move(filter);
  }
  RenderOptions render;
  if (!CompareRenderOptions(args, &render)) return kExitUsage;
  const bool to_stdout = args.output.empty() || args.output == "-";

  absl::StatusOr<BenchmarkFile> base, next;
  if (!LoadCompareInputs(args, base, next)) return kExitUsage;
  for (const auto* f : {&base, &next}) {
    PrintWarnings("compare", **f);
    for (std::string& w : WarningLines(**f)) {
      render.warnings.push_back(std::move(w));
    }
  }

  if (absl::Status st =
          CheckAllowedFields(args.gate.allow_env_diff, {&*base, &*next});
      !st.ok()) {
    std::fprintf(stderr, "perfcounters compare: %s\n",
                 std::string(st.message()).c_str());
    return kExitUsage;
  }
  Comparison comparison = Compare(*base, *next, options);
  const VerdictNotes notes =
      CheckVerdict(*base, *next, &comparison, args.gate.options.alpha);
  if (options.filter && comparison.benchmarks.empty()) {
    std::fprintf(stderr,
                 "perfcounters compare: --filter '%s' matches no benchmark in "
                 "either file\n",
                 ShortForMessage(args.filter).c_str());
    return kExitUsage;
  }
  std::optional<std::vector<GateResult>> results =
      RunGates("compare", args.gate.gates, comparison, args.gate.options);
  if (!results) return kExitUsage;
  ApplyToGates("compare", notes, args.gate.allow_env_diff, &*results);
  PrintNoFingerprint("compare", notes);
  // The inputs are no longer needed: their memory goes before the output's
  // (which is written as it is rendered).
  *base = BenchmarkFile();
  *next = BenchmarkFile();
  if (!WriteOutputFrom("compare", to_stdout ? "-" : args.output,
                       [&](const OutputPieceWriter& write) {
                         WithNotesWriter noted(render.format, notes, write);
                         RenderTo(comparison, *results, render,
                                  [&noted](absl::string_view piece) {
                                    noted(piece);
                                  });
                         noted.Finish();
                       },
                       {args.base, args.next})) {
    return kExitUsage;
  }
  PrintGateErrors("compare", *results);
  return ExitCode(*results);
}

}  // namespace

Command AddCompareCommand(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmp = app.add_subcommand(
      "compare",
      "Compare two Google Benchmark JSON files: times, every counter, "
      "derived metrics (IPC, cpi, miss rates, ...)");
  cmp->add_option("BASE", args->base, "baseline JSON file")->required();
  cmp->add_option("NEW", args->next, "new JSON file")->required();
  AddGateOptions(*cmp, args->gate,
                 "gate that fails the run, e.g. 'IPC<-2%' (repeatable)",
                 "significance level of the U test a relative gate's change "
                 "must also pass (with repetitions)");
  cmp->add_option("--filter", args->filter,
                  "only benchmarks whose name matches this regex (RE2 syntax)");
  cmp->add_option("--format", args->format, "table, markdown or json")
      ->capture_default_str();
  cmp->add_option("--color", args->color, "auto, always or never")
      ->capture_default_str();
  cmp->add_flag("--only-changed", args->only_changed,
                "table and markdown: only significant changes of >= 1 % "
                "(0.1 % for exact counters) and gate violations");
  cmp->add_option("--max-rows", args->max_rows,
                  "table and markdown: at most N rows (0: no limit)")
      ->capture_default_str();
  cmp->add_option("-o,--output", args->output,
                  "write the output to this file (replaced whole, never an "
                  "input; - is stdout)");
  cmp->add_option("--max-input-mb", args->max_input_mb,
                  "refuse input files larger than this")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1e6));
  cmp->footer(kGateHelp);
  return WhenGiven(cmp, [args] { return RunCompare(*args); });
}

}  // namespace perfcounters::tools
