// hybrid.cc: hybrid core PMUs and the rule for generic events on them.
#include "perfcounters/hybrid.h"

#include <linux/perf_event.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "event_sources.h"
#include "perfcounters/pmu.h"
#include "sysfs_file.h"

namespace perfcounters {

std::vector<HybridPmu> internal::HybridCorePmusAmong(
    const absl::StatusOr<std::vector<std::string>>& names,
    const SystemPaths& paths) {
  std::vector<HybridPmu> out;
  if (!names.ok()) return out;
  for (const std::string& name : *names) {
    if (name.rfind("cpu_", 0) != 0) continue;
    absl::StatusOr<std::string> text = internal::ReadTextFile(
        absl::StrCat(paths.EventSourceDevices(), "/", name, "/type"));
    uint32_t type = 0;
    if (!text.ok() ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &type)) {
      continue;
    }
    out.push_back({name, type});
  }
  std::sort(out.begin(), out.end(), [](const HybridPmu& a, const HybridPmu& b) {
    return a.name < b.name;
  });
  return out;
}

std::vector<HybridPmu> HybridCorePmus(const SystemPaths& paths) {
  return internal::HybridCorePmusAmong(ListPmus(paths), paths);
}

absl::Status internal::CheckGenericEventOnHybrid(const EventSpec& spec,
                                                 const EventSources& sources) {
  const Attr& attr = spec.attr;
  if (attr.type != PERF_TYPE_HARDWARE && attr.type != PERF_TYPE_HW_CACHE) {
    return absl::OkStatus();
  }
  if ((attr.config >> 32) != 0) return absl::OkStatus();  // PMU chosen
  const std::vector<HybridPmu> pmus = sources.HybridCorePmus();
  if (pmus.size() < 2) return absl::OkStatus();
  // "cycles:u" -> cpu_core/cycles/u (the label, else the text typed).
  const absl::string_view label = spec.label.empty() ? spec.text : spec.label;
  const size_t colon = label.find(':');
  const absl::string_view name = label.substr(0, colon);
  const absl::string_view mods =
      colon == absl::string_view::npos ? "" : label.substr(colon + 1);
  std::vector<std::string> alternatives;
  for (const HybridPmu& pmu : pmus) {
    alternatives.push_back(absl::StrCat(pmu.name, "/", name, "/", mods));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", name, "' names no PMU, but this is a hybrid CPU with core PMUs ",
      absl::StrJoin(pmus, ", ",
                    [](std::string* out, const HybridPmu& p) {
                      absl::StrAppend(out, p.name);
                    }),
      ": the kernel would count it on one kind of core only and a thread "
      "running on the others would go uncounted; write ",
      absl::StrJoin(alternatives, " or "),
      " (or all of them, as separate "
      "events)"));
}

absl::Status CheckGenericEventOnHybrid(const EventSpec& spec,
                                       const SystemPaths& paths) {
  return internal::CheckGenericEventOnHybrid(spec,
                                             internal::LiveEventSources(paths));
}

}  // namespace perfcounters
