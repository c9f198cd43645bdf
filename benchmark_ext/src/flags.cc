// flags.cc: --perf_counters, --benchmark_perf_counters,
// --perf_counters_strict and PERFCOUNTERS_EVENTS.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "console.h"
#include "perfcounters/benchmark_ext_flags.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::benchmark_ext {
namespace {

// If `arg` is `--name=value` (or `-name=value`), sets *value and returns
// true. `--name` alone sets *value to nullopt and returns true.
bool MatchFlag(absl::string_view arg, absl::string_view name,
               std::optional<absl::string_view>* value) {
  if (absl::StartsWith(arg, "--")) {
    arg.remove_prefix(2);
  } else if (absl::StartsWith(arg, "-")) {
    arg.remove_prefix(1);
  } else {
    return false;
  }
  if (!absl::StartsWith(arg, name)) return false;
  arg.remove_prefix(name.size());
  if (arg.empty()) {
    *value = std::nullopt;
    return true;
  }
  if (arg.front() != '=') return false;
  arg.remove_prefix(1);
  *value = arg;
  return true;
}

absl::StatusOr<bool> ParseBool(absl::string_view flag, absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") {
    return true;
  }
  if (lower == "false" || lower == "0" || lower == "no" || lower == "off") {
    return false;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", text, ": not a boolean; write --", flag,
                   " or --", flag, "=true / --", flag, "=false"));
}

}  // namespace

absl::StatusOr<Flags> ExtractFlags(int* argc, char** argv,
                                   const char* env_events) {
  Flags flags;
  if (env_events != nullptr) {
    flags.events = std::string(env_events);
    flags.events_source = kEventsEnvVar;
  }
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const absl::string_view arg = argv[i];
    std::optional<absl::string_view> value;
    bool ours = false;
    for (absl::string_view name :
         {absl::string_view("perf_counters"),
          absl::string_view("benchmark_perf_counters")}) {
      if (!MatchFlag(arg, name, &value)) continue;
      if (!value.has_value() || value->empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--", name, value.has_value() ? "= is empty" : " needs a value",
            ": write --", name, "=LIST, e.g. --", name,
            "=cycles,instructions (or leave the flag out)"));
      }
      const std::string source = absl::StrCat("--", name);
      if (flags.events.has_value() && flags.events_source != source &&
          flags.events_source != kEventsEnvVar) {
        return absl::InvalidArgumentError(absl::StrCat(
            flags.events_source, "=",
            benchmark_ext_internal::ShortForMessage(*flags.events), " and ",
            source, "=", benchmark_ext_internal::ShortForMessage(*value),
            " both give the event list (they are the same setting under two "
            "names); give only one of them"));
      }
      if (flags.events_source == kEventsEnvVar) {
        flags.overridden_env_events = flags.events;
      }
      flags.events = std::string(*value);
      flags.events_source = source;
      ours = true;
      break;
    }
    for (auto [name, target] :
         {std::pair<absl::string_view, bool*>("perf_counters_strict",
                                              &flags.strict),
          std::pair<absl::string_view, bool*>("perf_counters_calibrate",
                                              &flags.calibrate),
          std::pair<absl::string_view, bool*>("perf_counters_verbose",
                                              &flags.verbose)}) {
      if (ours || !MatchFlag(arg, name, &value)) continue;
      if (value.has_value()) {
        ASSIGN_OR_RETURN(bool b, ParseBool(name, *value));
        *target = b;
      } else {
        *target = true;
      }
      ours = true;
    }
    if (!ours && MatchFlag(arg, "perf_counters_read", &value)) {
      if (!value.has_value()) {
        return absl::InvalidArgumentError(
            "--perf_counters_read needs a value: write "
            "--perf_counters_read=auto, --perf_counters_read=syscall or "
            "--perf_counters_read=user");
      }
      absl::StatusOr<ReadMode> mode =
          ParseReadMode(std::string_view(value->data(), value->size()));
      if (!mode.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--perf_counters_read=", *value,
            ": unknown read path; write --perf_counters_read=auto, "
            "--perf_counters_read=syscall or --perf_counters_read=user"));
      }
      flags.read_mode = *mode;
      ours = true;
    }
    if (!ours) argv[out++] = argv[i];
  }
  if (*argc > 0) {
    argv[out] = nullptr;
    *argc = out;
  }
  return flags;
}

std::string FlagsHelp() {
  return R"(perfcounters: hardware and software counters per iteration
  --perf_counters=LIST
        Events to count in every benchmark that uses perfcounters::Measure:
        a comma-separated list in perf's grammar, e.g.
        cycles,instructions,task-clock,page-faults; {a,b} keeps events in
        one group; a derived metric's name (ipc, cpi, branch-miss-rate,
        the other miss rates and stall ratios, topdown; with modifiers:
        ipc:u; see docs/counters.md) brings in its inputs. A name without
        modifiers counts user space only; add :k, :uk, ... to change that.
        Values are per iteration, scaled for multiplexing; <name>.coverage
        is shown when an event was multiplexed, and <name>.not_counted=1
        (JSON/CSV; the console warns instead) when it was not counted at
        all (the value is then absent, not 0).
  --benchmark_perf_counters=LIST
        The same as --perf_counters (giving both is an error; a flag given
        twice: the last one wins).
  --perf_counters_strict[=true|false]
        Exit with status 1 if any requested counter cannot be counted
        (checked before running) or was not counted in some run.
  --perf_counters_read=auto|syscall|user
        How the counters are read at the start and the end of every batch.
        auto (default): from user space (rdpmc on x86-64, mrs on arm64,
        through the event's mmap'd page) when the kernel allows it for
        every event of a group, else one read(2) per group; a snapshot in
        which some event is not on a counter (multiplexed out) falls back
        to read(2). syscall: always read(2). user: as auto, but refuse to
        run when some group cannot be read from user space at all. The
        path in use is shown in the context (perfcounters.read_path).
  --perf_counters_calibrate[=true|false]
        Measure the counts of the measurement itself (empty start/stop
        pairs, the minimum over 33, per thread) and subtract them once per
        batch and pause (default true; never below 0). Recorded in the
        JSON context (perfcounters.calibration.<name>). A batch that counts
        less than the measurement itself, or than 10x its spread, gets a
        warning naming the benchmark.
  --perf_counters_verbose[=true|false]
        Show on the console what the JSON/CSV output always has: every
        perfcounters.* context line (calibration, per-group read paths,
        unavailable events), the read path with its reasons, and the
        table's <name>.not_counted columns and counters at full precision.
        Without it the console keeps the events and the read path.
  PERFCOUNTERS_EVENTS=LIST (environment)
        Used when neither flag is given; a flag overrides it, and the main
        says so on stderr.

)";
}

}  // namespace perfcounters::benchmark_ext
