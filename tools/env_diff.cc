// env_diff.cc: two runs' fingerprints compared, the decision table, and the
// gates a difference refuses.
#include "env_diff.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compare.h"
#include "compare_output.h"
#include "perfcounters/generic_events.h"

namespace perfcounters::tools {
namespace {

constexpr absl::string_view kPrefix = "perfcounters.env.";

// Metric classes as bits.
constexpr uint32_t kT = 1u << static_cast<int>(MetricClass::kTime);
constexpr uint32_t kI = 1u << static_cast<int>(MetricClass::kInstructions);
constexpr uint32_t kH = 1u << static_cast<int>(MetricClass::kHardware);
constexpr uint32_t kS = 1u << static_cast<int>(MetricClass::kSoftware);

// One row of the decision table (docs/environment.md): the metric classes
// a difference in the field can move. `kernel_instructions`: it moves
// instructions counted in kernel mode only (not ":u").
struct Rule {
  absl::string_view field;
  uint32_t moves;
  bool kernel_instructions = false;
};

constexpr Rule kRules[] = {
    // Another CPU: other timings and events; glibc picks other routines.
    {"cpu.vendor", kT | kH | kI},
    {"cpu.model_name", kT | kH | kI},
    {"cpu.family", kT | kH | kI},
    {"cpu.model", kT | kH | kI},
    {"cpu.stepping", kT | kH | kI},
    {"cpu.variant", kT | kH | kI},
    {"cpu.microcode", kT | kH},
    {"cpus.online", kT | kH | kS},
    {"cpus.affinity", kT | kH | kS},
    {"cpus.isolated", kT | kH | kS},
    {"cpus.nohz_full", kT | kH | kS},
    {"cpufreq.driver", kT | kH},
    {"cpufreq.governor", kT | kH},
    {"cpufreq.energy_perf_preference", kT | kH},
    {"cpufreq.boost", kT | kH},
    {"smt.active", kT | kH},
    {"smt.control", kT | kH},
    {"hypervisor", kT | kH},
    {"dmi.sys_vendor", kT | kH},
    {"dmi.product_name", kT | kH},
    {"kernel.release", kT | kH | kS, true},
    {"thp.enabled", kT | kH | kS},
    {"aslr", kT | kH},
    // How counters are counted: the counter budget (multiplexing) and what
    // an unprivileged run may count.
    {"nmi_watchdog", kH | kI},
    {"pmu.hardware", kH | kI},
    {"pmu.name", kH | kI},
    {"pmu.gp_counters", kH | kI},
    {"perf_event_paranoid", kH | kI | kS},
    {"perfcounters.version", kH | kI | kS},
    // Other code.
    {"glibc.version", kT | kH | kI},
    {"build.compiler", kT | kH | kI},
    {"build.optimized", kT | kH | kI},
    {"build.ndebug", kT | kH | kI},
    {"gbench.version", kT},
    {"gbench.build_type", kT},
};

// A field a later perfcounters adds: conservatively, times and events.
constexpr Rule kUnknownRule = {"", kT | kH};

const Rule& RuleOf(absl::string_view field) {
  for (const Rule& r : kRules) {
    if (r.field == field) return r;
  }
  return kUnknownRule;
}

// Fields that are never compared: the load averages (reported) and the
// binary's identity (what a comparison of two builds is for).
bool NotCompared(absl::string_view field) {
  return absl::StartsWith(field, "loadavg.") ||
         absl::StartsWith(field, "binary.");
}

constexpr char kBuildId[] = "binary.build_id";

// `name` without perf modifiers (":u", ":ku", ":ppp"), or `name`.
absl::string_view StripModifiers(absl::string_view name,
                                 absl::string_view* modifiers = nullptr) {
  const size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos || colon + 1 == name.size()) {
    return name;
  }
  const absl::string_view suffix = name.substr(colon + 1);
  for (char c : suffix) {
    if (!absl::StrContains("ukhIGHpPSDW", c)) return name;
  }
  if (modifiers != nullptr) *modifiers = suffix;
  return name.substr(0, colon);
}

// Whether `name` is one of the events of the requested list `events`.
bool Requested(absl::string_view name, absl::string_view events) {
  for (absl::string_view token :
       absl::StrSplit(events, absl::ByAnyChar(",{} \t"), absl::SkipEmpty())) {
    if (absl::EqualsIgnoreCase(StripModifiers(token), name)) return true;
  }
  return false;
}

std::optional<std::string> Lookup(const Fingerprint& f,
                                  const std::string& key) {
  auto it = f.find(key);
  if (it == f.end()) return std::nullopt;
  return it->second;
}

// The names of the metric classes a difference in `field` can move.
std::vector<std::string> MovedClasses(absl::string_view field) {
  std::vector<std::string> names;
  for (MetricClass c : {MetricClass::kTime, MetricClass::kHardware,
                        MetricClass::kInstructions, MetricClass::kSoftware}) {
    if (!FieldMoves(field, c, false)) continue;
    // What RefuseGates decides: a plain name counts user space only.
    names.push_back(c == MetricClass::kInstructions &&
                            RuleOf(field).kernel_instructions
                        ? "kernel-mode instructions (:k)"
                        : MetricClassName(c));
  }
  return names;
}

std::string Side(const std::optional<std::string>& v) {
  return v.has_value() ? EscapeControlBytes(*v) : "(not recorded)";
}

}  // namespace

Fingerprint FingerprintOf(const BenchmarkFile& file) {
  Fingerprint f;
  for (const auto& [key, value] : file.context) {
    if (absl::StartsWith(key, kPrefix) && !value.empty()) {
      f[key.substr(kPrefix.size())] = value;
    }
  }
  if (f.empty()) return f;
  for (const auto& [key, value] : file.context) {
    if (key == "library_build_type" && !value.empty()) {
      f.try_emplace("gbench.build_type", value);
    }
    if (key == "library_version" && !value.empty()) {
      f.try_emplace("gbench.version", value);
    }
  }
  return f;
}

std::string EventsOf(const BenchmarkFile& file) {
  for (const auto& [key, value] : file.context) {
    if (key == "perfcounters.events") return value;
  }
  return "";
}

SameBinary SameBinaryOf(const BenchmarkFile& base, const BenchmarkFile& next) {
  const std::optional<std::string> a = Lookup(FingerprintOf(base), kBuildId);
  const std::optional<std::string> b = Lookup(FingerprintOf(next), kBuildId);
  if (!a || !b) return SameBinary::kUnknown;
  return *a == *b ? SameBinary::kSame : SameBinary::kDifferent;
}

const char* SameBinaryName(SameBinary s) {
  switch (s) {
    case SameBinary::kSame:
      return "same";
    case SameBinary::kDifferent:
      return "different";
    case SameBinary::kUnknown:
      return "unknown";
  }
  return "?";
}

MetricClass ClassifyMetric(absl::string_view metric, absl::string_view events) {
  if (IsTimeValued(metric) || absl::EndsWith(metric, "_per_second")) {
    return MetricClass::kTime;
  }
  const absl::string_view base = StripModifiers(metric);
  const std::string lower = absl::AsciiStrToLower(base);
  if (lower == "instructions" || absl::StartsWith(lower, "inst_retired")) {
    return MetricClass::kInstructions;
  }
  if (const GenericEvent* g = FindGenericEvent(std::string(base))) {
    return g->type == 1 /* PERF_TYPE_SOFTWARE */ ? MetricClass::kSoftware
                                                 : MetricClass::kHardware;
  }
  // A tracepoint (category:name).
  if (absl::StrContains(base, ':')) return MetricClass::kSoftware;
  if (FindTableMetric(metric).metric != nullptr ||
      ParseHwCacheName(std::string(base)).ok() || Requested(base, events)) {
    return MetricClass::kHardware;
  }
  return MetricClass::kOther;
}

const char* MetricClassName(MetricClass c) {
  switch (c) {
    case MetricClass::kTime:
      return "times";
    case MetricClass::kInstructions:
      return "instructions";
    case MetricClass::kHardware:
      return "hardware events";
    case MetricClass::kSoftware:
      return "software events";
    case MetricClass::kOther:
      return "the benchmark's own counters";
  }
  return "?";
}

bool FieldMoves(absl::string_view field, MetricClass c, bool user_only) {
  if (NotCompared(field) || c == MetricClass::kOther) return false;
  const Rule& rule = RuleOf(field);
  if (c == MetricClass::kInstructions && rule.kernel_instructions) {
    return !user_only;
  }
  return (rule.moves >> static_cast<int>(c)) & 1;
}

EnvDiff DiffEnvironments(const BenchmarkFile& base, const BenchmarkFile& next) {
  EnvDiff diff;
  const Fingerprint a = FingerprintOf(base);
  const Fingerprint b = FingerprintOf(next);
  diff.base_has = !a.empty();
  diff.next_has = !b.empty();
  diff.base_load_start = Lookup(a, "loadavg.start");
  diff.base_load_end = Lookup(a, "loadavg.end");
  diff.next_load_start = Lookup(b, "loadavg.start");
  diff.next_load_end = Lookup(b, "loadavg.end");
  diff.base_binary = Lookup(a, kBuildId);
  diff.next_binary = Lookup(b, kBuildId);
  diff.binary = SameBinaryOf(base, next);
  if (!diff.base_has || !diff.next_has) return diff;
  std::vector<std::string> keys;
  for (const auto& [k, v] : a) keys.push_back(k);
  for (const auto& [k, v] : b) {
    if (!a.contains(k)) keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  for (const std::string& k : keys) {
    if (NotCompared(k)) continue;
    std::optional<std::string> x = Lookup(a, k);
    std::optional<std::string> y = Lookup(b, k);
    if (x != y) diff.fields.push_back({k, std::move(x), std::move(y)});
  }
  return diff;
}

std::vector<const FieldDiff*> MovingFields(
    const EnvDiff& diff, absl::string_view metric, absl::string_view events,
    const std::vector<std::string>& allowed) {
  absl::string_view modifiers;
  StripModifiers(metric, &modifiers);
  // Fingerprints come from benchmark runs, where a plain name counts user
  // space only (docs/counters.md, "Opening"): only a `k` counts the kernel.
  const bool user_only = !absl::StrContains(modifiers, 'k');
  const MetricClass c = ClassifyMetric(metric, events);
  std::vector<const FieldDiff*> out;
  for (const FieldDiff& f : diff.fields) {
    if (std::find(allowed.begin(), allowed.end(), f.field) != allowed.end()) {
      continue;
    }
    if (FieldMoves(f.field, c, user_only)) out.push_back(&f);
  }
  return out;
}

absl::Status CheckAllowedFields(
    const std::vector<std::string>& allowed,
    const std::vector<const BenchmarkFile*>& files) {
  for (const std::string& a : allowed) {
    if (&RuleOf(a) != &kUnknownRule) continue;
    // A field a later perfcounters records: allowed where a run has it.
    const bool recorded = std::any_of(files.begin(), files.end(),
                                      [&a](const BenchmarkFile* file) {
                                        return FingerprintOf(*file).contains(a);
                                      });
    if (recorded) continue;
    std::vector<absl::string_view> known;
    for (const Rule& r : kRules) known.push_back(r.field);
    return absl::InvalidArgumentError(
        absl::StrCat("--allow-env-diff '", ShortForMessage(a),
                     "' is not a fingerprint field; the fields are ",
                     absl::StrJoin(known, ", ")));
  }
  return absl::OkStatus();
}

void RefuseGates(const EnvDiff& diff, absl::string_view events,
                 const std::vector<std::string>& allowed,
                 std::vector<GateResult>* results) {
  if (!diff.Differs()) return;
  for (GateResult& g : *results) {
    if (g.status == GateStatus::kNoMatch) continue;
    const std::vector<const FieldDiff*> moving =
        MovingFields(diff, g.metric, events, allowed);
    if (moving.empty()) continue;
    std::vector<std::string> what, names;
    for (const FieldDiff* f : moving) {
      what.push_back(absl::StrCat(f->field, " (", Side(f->base), " -> ",
                                  Side(f->next), ")"));
      names.push_back(f->field);
    }
    g.status = GateStatus::kRefused;
    const std::string what_class =
        MetricClassName(ClassifyMetric(g.metric, events));
    g.message = absl::StrCat(
        "refused: the runs' environments differ in ", absl::StrJoin(what, ", "),
        ", which can move ",
        absl::EqualsIgnoreCase(what_class, StripModifiers(g.metric))
            ? g.metric
            : absl::StrCat(what_class, " such as ", g.metric),
        "; run both on one setup, or --allow-env-diff ",
        absl::StrJoin(names, " "), " to gate anyway");
  }
}

std::string EnvDiffText(const EnvDiff& diff, bool markdown, size_t max_fields) {
  const char* code = markdown ? "`" : "";
  const auto load = [](const std::optional<std::string>& start,
                       const std::optional<std::string>& end) {
    return absl::StrCat(start.value_or("?"), " at start, ", end.value_or("?"),
                        " at end");
  };
  if (!diff.base_has || !diff.next_has) {
    // Runs from before fingerprints: said once on stderr (NoFingerprint).
    if (!diff.base_has && !diff.next_has) return "";
    return absl::StrCat(
        markdown ? "Environment: " : "environment: ", "no fingerprint in the ",
        diff.base_has ? "new" : "base",
        " file: what differs cannot be told\n\n");
  }
  if (!diff.Differs()) return "";
  std::string out = absl::StrCat(
      markdown ? "**Environment differs** (" : "environment differs (",
      diff.fields.size(), " field", diff.fields.size() == 1 ? "" : "s", "):\n");
  size_t shown = 0;
  for (const FieldDiff& f : diff.fields) {
    if (shown++ == max_fields) break;
    absl::StrAppend(&out, markdown ? "- " : "  ", code, f.field, code, ": ",
                    Side(f.base), " -> ", Side(f.next), " (can move ",
                    absl::StrJoin(MovedClasses(f.field), ", "), ")\n");
  }
  if (diff.fields.size() > max_fields) {
    absl::StrAppend(&out, markdown ? "- " : "  ", "and ",
                    diff.fields.size() - max_fields,
                    " more (JSON output lists them all)\n");
  }
  absl::StrAppend(&out, markdown ? "- " : "  ", "load average (1 5 15 min): ",
                  load(diff.base_load_start, diff.base_load_end), " -> ",
                  load(diff.next_load_start, diff.next_load_end), "\n\n");
  return out;
}

nlohmann::ordered_json EnvDiffJson(const EnvDiff& diff) {
  using json = nlohmann::ordered_json;
  json j;
  j["base_fingerprint"] = diff.base_has;
  j["new_fingerprint"] = diff.next_has;
  j["differs"] = diff.Differs();
  json fields = json::array();
  for (const FieldDiff& f : diff.fields) {
    json x;
    x["field"] = f.field;
    x["base"] = f.base ? json(*f.base) : json(nullptr);
    x["new"] = f.next ? json(*f.next) : json(nullptr);
    x["can_move"] = MovedClasses(f.field);
    fields.push_back(std::move(x));
  }
  j["fields"] = std::move(fields);
  const auto opt = [](const std::optional<std::string>& v) {
    return v ? json(*v) : json(nullptr);
  };
  j["load_average"] = {{"base_start", opt(diff.base_load_start)},
                       {"base_end", opt(diff.base_load_end)},
                       {"new_start", opt(diff.next_load_start)},
                       {"new_end", opt(diff.next_load_end)}};
  j["binary"] = {{"base_build_id", opt(diff.base_binary)},
                 {"new_build_id", opt(diff.next_binary)},
                 {"same", SameBinaryName(diff.binary)}};
  return j;
}

}  // namespace perfcounters::tools
