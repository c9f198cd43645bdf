// gate_options.h: the gate options `compare` and `report` share
// (--fail-on, --alpha, --fail-on-missing, --allow-unchecked-gates), wired
// in one place, and running the gates they give.
#ifndef PERFCOUNTERS_TOOLS_GATE_OPTIONS_H_
#define PERFCOUNTERS_TOOLS_GATE_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "compare.h"
#include "compare_gates.h"

namespace CLI {
class App;
}  // namespace CLI

namespace perfcounters::tools {

// The gate options of a command line.
struct GateArgs {
  std::vector<std::string> gates;  // --fail-on texts
  GateOptions options;             // --alpha, --fail-on-missing, ...
  // --allow-env-diff: fingerprint fields whose difference may not refuse
  // a gate (env_diff.h).
  std::vector<std::string> allow_env_diff;
};

// Adds --fail-on (with `fail_on_help`), --alpha (with `alpha_help`),
// --fail-on-missing, --allow-unchecked-gates and --allow-env-diff to
// `command`, parsed into
// `args`, which must outlive the parse.
void AddGateOptions(CLI::App& command, GateArgs& args, const char* fail_on_help,
                    const char* alpha_help);

// The help text that lists the gate syntax (shown by `compare --help`).
extern const char kGateHelp[];

// Parses gate texts against the metrics of `comparison` (ParseGate) and
// evaluates them (EvaluateGates); nullopt after printing a bad gate's error
// as "perfcounters COMMAND: ...".
std::optional<std::vector<GateResult>> RunGates(
    const char* command, const std::vector<std::string>& texts,
    const Comparison& comparison, const GateOptions& options);

// Prints to stderr why each gate that is neither passed nor failed is so.
void PrintGateErrors(const char* command,
                     const std::vector<GateResult>& results);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_GATE_OPTIONS_H_
