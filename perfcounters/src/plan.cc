// plan.cc: parsing an event list and placing its events in groups.
#include "perfcounters/plan.h"

#include <linux/perf_event.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/group.h"
#include "perfcounters/internal/plan_internal.h"
#include "perfcounters/internal/status_macros.h"
#include "perfcounters/metrics.h"
#include "text_util.h"

namespace perfcounters {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-' || c == '.';
}

// Which plain events may share a group: events of the same PMU. Software
// clocks (cpu-clock, task-clock) have PMUs of their own and are never
// packed: measured on Linux 6.18, a group {task-clock,page-faults} of a
// two-thread process lost 5-10 % of the page faults, and task-clock read low
// as a member of {page-faults,task-clock}. Empty: never share.
std::string PackingClass(const EventSpec& e) {
  if (e.attr.type == PERF_TYPE_SOFTWARE) {
    if (e.attr.config == PERF_COUNT_SW_CPU_CLOCK ||
        e.attr.config == PERF_COUNT_SW_TASK_CLOCK) {
      return "";
    }
    return "software";
  }
  return absl::StrCat("type", e.attr.type);
}

std::vector<EventSpec> Specs(const std::vector<PlannedEvent>& events) {
  std::vector<EventSpec> specs;
  specs.reserve(events.size());
  for (const PlannedEvent& e : events) specs.push_back(e.spec);
  return specs;
}

std::string KeyList(const std::vector<PlannedEvent>& events) {
  return absl::StrJoin(
      events, ",",
      [](std::string* out, const PlannedEvent& e) { out->append(e.key); });
}

}  // namespace

std::vector<std::string> SplitTopLevel(std::string_view list) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  bool in_terms = false;  // between the slashes of pmu/term=v,.../
  for (char c : list) {
    if (in_terms) {
      if (c == '/') in_terms = false;
      current.push_back(c);
      continue;
    }
    if (c == '/') {
      // A slash right after a bare PMU name opens a term list; in
      // `mem:ADDR/LEN` the name part has a ':' and it does not.
      absl::string_view name = current;
      const size_t brace = name.find_last_of('{');
      if (brace != absl::string_view::npos) name.remove_prefix(brace + 1);
      name = absl::StripAsciiWhitespace(name);
      bool bare = !name.empty();
      for (char n : name) bare = bare && IsNameChar(n);
      in_terms = bare;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      --depth;
    } else if (c == ',' && depth <= 0) {
      items.push_back(std::string(absl::StripAsciiWhitespace(current)));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!absl::StripAsciiWhitespace(current).empty() || !items.empty()) {
    items.push_back(std::string(absl::StripAsciiWhitespace(current)));
  }
  return items;
}

namespace {

// What a counted label is as an input of a metric: its modifiers, its event
// name (canonical for generic and cache events: CYCLES, cpu-cycles ->
// cycles) for the table's plain inputs, and for sysfs inputs its PMU and
// event (cpu/slots/ -> "cpu", "slots"; no PMU for a bare name).
struct InputName {
  std::string modifiers;
  std::string event;
  std::string sysfs_pmu;
  std::string sysfs_event;
};
InputName InputNameOf(std::string_view label) {
  LabelParts parts = SplitLabel(label);
  InputName in{std::move(parts.modifiers), parts.event, "", parts.event};
  const std::string& e = parts.event;
  if (const size_t slash = e.find('/'); slash != std::string::npos &&
                                        slash > 0 && e.ends_with('/') &&
                                        e.size() >= slash + 3) {
    in.sysfs_pmu = e.substr(0, slash);
    in.sysfs_event = e.substr(slash + 1, e.size() - slash - 2);
  }
  if (const GenericEvent* g = FindGenericEvent(e); g != nullptr) {
    in.event = std::string(g->canonical);
  } else if (absl::StatusOr<HwCacheEvent> c = ParseHwCacheName(e); c.ok()) {
    in.event = c->CanonicalName();
  }
  return in;
}

}  // namespace

std::vector<DerivedMetric> MatchMetrics(
    const std::vector<std::string>& labels) {
  std::vector<DerivedMetric> out;
  absl::flat_hash_set<std::string> names;
  std::vector<InputName> inputs;
  inputs.reserve(labels.size());
  for (const std::string& label : labels) inputs.push_back(InputNameOf(label));
  // The event a label is as an input of `m`, and the PMU it must share.
  auto event = [](const Metric& m, const InputName& in) -> const std::string& {
    return m.sysfs_inputs ? in.sysfs_event : in.event;
  };
  auto pmu = [](const Metric& m, const InputName& in) -> const std::string& {
    static const std::string kNone;
    return m.sysfs_inputs ? in.sysfs_pmu : kNone;
  };
  for (const Metric& m : Metrics()) {
    for (size_t n = 0; n < labels.size(); ++n) {
      if (event(m, inputs[n]) != m.numerator) continue;
      for (size_t d = 0; d < labels.size(); ++d) {
        if (event(m, inputs[d]) != m.denominator ||
            inputs[d].modifiers != inputs[n].modifiers ||
            pmu(m, inputs[d]) != pmu(m, inputs[n])) {
          continue;
        }
        std::string name = MetricLabel(m, inputs[n].modifiers);
        if (names.insert(name).second) {
          out.push_back({std::move(name), labels[n], labels[d], &m});
        }
        break;
      }
    }
  }
  return out;
}

absl::StatusOr<Request> ParseRequest(std::string_view list,
                                     const ParseOptions& options) {
  Request request;
  request.text = std::string(list);
  std::vector<std::string> events;
  for (const std::string& item : SplitTopLevel(list)) {
    if (item.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("empty item in \"", request.text,
                       "\"; write event names separated by single commas, e.g. "
                       "cycles,instructions"));
    }
    const LabelParts parts = SplitLabel(item);
    if (IsMetricGroup(parts.event)) {
      request.metric_groups.push_back(item);
      for (const Metric& m : Metrics()) {
        if (internal::IEquals(m.group, parts.event)) {
          request.derived.push_back(
              {MetricLabel(m, parts.modifiers), "", "", &m});
        }
      }
    } else if (const Metric* m = FindMetric(parts.event); m != nullptr) {
      request.derived.push_back({MetricLabel(*m, parts.modifiers), "", "", m});
    } else {
      events.push_back(item);
    }
  }
  if (!events.empty()) {
    ASSIGN_OR_RETURN(std::vector<GroupSpec> groups,
                     ParseEventList(absl::StrJoin(events, ","), options));
    request.groups = std::move(groups);
  }
  // Bring in the inputs of derived metrics that are not requested already:
  // the missing inputs of each metric (or of each metric group, together)
  // as one `{}` group, so that they count over the same time.
  std::string topdown_pmu;
  for (DerivedMetric& d : request.derived) {
    if (!d.metric->sysfs_inputs || !topdown_pmu.empty()) continue;
    absl::StatusOr<std::string> pmu = TopdownPmu(
        options.catalog != nullptr ? options.catalog->paths() : options.paths);
    if (!pmu.ok()) {
      return absl::Status(pmu.status().code(),
                          absl::StrCat(d.name, ": ", pmu.status().message()));
    }
    topdown_pmu = *pmu;
  }
  std::vector<std::string> missing;
  std::string missing_for;
  auto add_missing = [&]() -> absl::Status {
    if (missing.empty()) return absl::OkStatus();
    const std::string text =
        missing.size() > 1 ? absl::StrCat("{", absl::StrJoin(missing, ","), "}")
                           : missing.front();
    absl::StatusOr<std::vector<GroupSpec>> inputs =
        ParseEventList(text, options);
    if (!inputs.ok()) {
      return absl::Status(inputs.status().code(),
                          absl::StrCat("the inputs of ", missing_for, " (",
                                       text, "): ", inputs.status().message()));
    }
    for (GroupSpec& g : *inputs) request.groups.push_back(std::move(g));
    missing.clear();
    return absl::OkStatus();
  };
  absl::flat_hash_set<std::string> labels;
  for (size_t i = 0; i < request.derived.size(); ++i) {
    const DerivedMetric& d = request.derived[i];
    const std::string mods = SplitLabel(d.name).modifiers;
    const std::string pmu = d.metric->sysfs_inputs ? topdown_pmu : "";
    for (const GroupSpec& g : request.groups) {
      for (const EventSpec& e : g.events) labels.insert(e.label);
    }
    // Topdown events need slots as their group's leader.
    const std::string_view first =
        d.metric->sysfs_inputs ? d.metric->denominator : d.metric->numerator;
    const std::string_view second =
        d.metric->sysfs_inputs ? d.metric->numerator : d.metric->denominator;
    for (std::string_view input : {first, second}) {
      std::string label = InputLabel(input, mods, pmu);
      if (labels.insert(label).second) missing.push_back(std::move(label));
    }
    // One group per metric, or per metric group.
    missing_for =
        d.metric->group.empty() ? d.name : std::string(d.metric->group);
    const bool same_group_next =
        i + 1 < request.derived.size() && !d.metric->group.empty() &&
        request.derived[i + 1].metric->group == d.metric->group &&
        SplitLabel(request.derived[i + 1].name).modifiers == mods;
    if (same_group_next) continue;
    RETURN_IF_ERROR(add_missing());
  }
  return request;
}

absl::Status OpenAndVerify(const std::vector<EventSpec>& events) {
  ASSIGN_OR_RETURN(Group group, Group::Open(events));
  return group.Verify();
}

size_t Plan::event_count() const {
  size_t n = 0;
  for (const PlannedGroup& g : groups) n += g.events.size();
  return n;
}

Plan MakePlan(const Request& request, const TryOpenFn& try_open) {
  Plan plan;
  plan.text = request.text;

  // Keys: the label, or label#N for repeats.
  absl::flat_hash_map<std::string, int> seen;
  std::vector<std::vector<PlannedEvent>> requested;
  for (const GroupSpec& g : request.groups) {
    std::vector<PlannedEvent>& events = requested.emplace_back();
    for (const EventSpec& e : g.events) {
      const int n = ++seen[e.label];
      std::string key = n == 1 ? e.label : absl::StrCat(e.label, "#", n);
      plan.requested_keys.push_back(key);
      events.push_back(PlannedEvent{e, std::move(key)});
    }
  }

  // The user's groups stay together. Members that cannot be counted even
  // alone are dropped (with their own reason) and the rest tried again.
  for (size_t i = 0; i < request.groups.size(); ++i) {
    if (!request.groups[i].user_group) continue;
    std::vector<PlannedEvent> events = requested[i];
    absl::Status status = try_open(Specs(events));
    if (!status.ok()) {
      std::vector<PlannedEvent> openable;
      for (PlannedEvent& e : events) {
        absl::Status alone = try_open({e.spec});
        if (alone.ok()) {
          openable.push_back(std::move(e));
        } else {
          plan.unavailable.push_back({e.key, std::string(alone.message())});
        }
      }
      events = std::move(openable);
      status = events.empty() ? absl::OkStatus() : try_open(Specs(events));
      if (!status.ok()) {
        for (const PlannedEvent& e : events) {
          plan.unavailable.push_back(
              {e.key, absl::StrCat("its group {", KeyList(events),
                                   "} cannot be scheduled together on the "
                                   "PMU: ",
                                   status.message())});
        }
        events.clear();
      }
    }
    if (!events.empty()) {
      plan.groups.push_back(PlannedGroup{std::move(events), true});
    }
  }

  // Plain events: first-fit into groups of the same PMU (see
  // PackingClass) that still open and count.
  const size_t first_bin = plan.groups.size();
  for (size_t i = 0; i < request.groups.size(); ++i) {
    if (request.groups[i].user_group) continue;
    for (const PlannedEvent& e : requested[i]) {
      absl::Status alone = try_open({e.spec});
      if (!alone.ok()) {
        plan.unavailable.push_back({e.key, std::string(alone.message())});
        continue;
      }
      bool placed = false;
      for (size_t b = first_bin; b < plan.groups.size() && !placed; ++b) {
        PlannedGroup& bin = plan.groups[b];
        const std::string kind = PackingClass(e.spec);
        if (kind.empty() || kind != PackingClass(bin.events.front().spec)) {
          continue;
        }
        std::vector<EventSpec> specs = Specs(bin.events);
        specs.push_back(e.spec);
        if (try_open(specs).ok()) {
          bin.events.push_back(e);
          placed = true;
        }
      }
      if (!placed) plan.groups.push_back(PlannedGroup{{e}, false});
    }
  }

  // Derived metrics whose inputs are both planned with the same
  // modifiers (a repeated label's later keys, label#N, take no part).
  absl::flat_hash_set<std::string> planned;
  for (const PlannedGroup& g : plan.groups) {
    for (const PlannedEvent& e : g.events) planned.insert(e.key);
  }
  std::vector<std::string> keys;
  for (const std::string& key : plan.requested_keys) {
    if (planned.contains(key)) keys.push_back(key);
  }
  plan.derived = MatchMetrics(keys);
  return plan;
}

}  // namespace perfcounters
