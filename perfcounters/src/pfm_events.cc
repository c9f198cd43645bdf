// pfm_events.cc: vendor event names through libpfm4 (vendor_events.h).
// libpfm4's state is process-wide and not thread-safe, so every call holds
// one mutex. Built without libpfm4, every function says so.
#include "pfm_events.h"

#include <linux/perf_event.h>  // before libpfm's copy, which then steps aside

#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "grammar_internal.h"
#include "perfcounters/internal/edit_distance.h"
#include "perfcounters/vendor_events.h"
#include "text_util.h"

#if PERFCOUNTERS_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>

#include "perfcounters/internal/status_macros.h"
#endif

namespace perfcounters {

using internal::Cat;
using internal::IEquals;
using internal::Join;

namespace internal {

std::string NoLibpfmMessage() {
  return "this build lacks libpfm4, which resolves vendor event names "
         "(INST_RETIRED:ANY_P, inst_retired.any_p, RETIRED_INSTRUCTIONS); "
         "install libpfm4-dev and rebuild (CMake finds it), or write the "
         "event as a raw code (rNNNN) or cpu/event=0x..,umask=0x../";
}

std::string ToLibpfmName(std::string_view name) {
  std::string out(name);
  // The event part starts after an optional "table::" and ends at the first
  // ':' after it; perf's dots there separate event and umasks.
  const size_t qual = out.find("::");
  const size_t start = qual == std::string::npos ? 0 : qual + 2;
  size_t end = out.find(':', start);
  if (end == std::string::npos) end = out.size();
  for (size_t i = start; i < end; ++i) {
    if (out[i] == '.') out[i] = ':';
  }
  return out;
}

}  // namespace internal

#if !PERFCOUNTERS_HAVE_LIBPFM

bool HaveLibpfm() { return false; }

absl::StatusOr<VendorEncoding> EncodeVendorEvent(std::string_view name) {
  return absl::UnavailableError(Cat("cannot resolve ", internal::Quote(name),
                                    ": ", internal::NoLibpfmMessage()));
}
absl::StatusOr<std::vector<std::string>> VendorTables() {
  return absl::UnavailableError(internal::NoLibpfmMessage());
}
absl::StatusOr<std::vector<VendorEventInfo>> ListVendorEvents(
    std::string_view) {
  return absl::UnavailableError(internal::NoLibpfmMessage());
}
absl::Status UseVendorTable(std::string_view) {
  return absl::UnavailableError(internal::NoLibpfmMessage());
}
absl::StatusOr<std::vector<std::string>> AllVendorTables() {
  return absl::UnavailableError(internal::NoLibpfmMessage());
}

std::vector<std::string> internal::VendorEventAttrNames(std::string_view) {
  return {};
}

#else  // PERFCOUNTERS_HAVE_LIBPFM

namespace {

// A libpfm4 table (libpfm calls them PMUs).
struct Table {
  pfm_pmu_t id;
  std::string name;
  bool core;
};

struct State {
  std::mutex mu;
  bool initialized = false;
  int init_ret = PFM_SUCCESS;
  // The tables present at the first initialization (libpfm's detection, or
  // LIBPFM_FORCE_PMU from the environment), in libpfm's order. libpfm keeps
  // tables marked present across pfm_terminate(), so after
  // UseVendorTable() its own answer is stale: this list is the truth.
  std::vector<Table> detected;
  // Whether libpfm's generic "perf" table was present then.
  bool perf_generic = false;
  // Set by UseVendorTable().
  std::vector<Table> forced;
  bool is_forced = false;
  // LIBPFM_FORCE_PMU as the process started (restored on UseVendorTable("")).
  bool had_env = false;
  std::string env;
};

State& GetState() {
  static State* const state = new State;
  return *state;
}

std::vector<Table> PresentTables(bool& perf_generic) {
  std::vector<Table> tables;
  perf_generic = false;
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t info{};
    info.size = sizeof(info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) != PFM_SUCCESS ||
        !info.is_present) {
      continue;
    }
    if (p == PFM_PMU_PERF_EVENT) perf_generic = true;
    if (p == PFM_PMU_PERF_EVENT || p == PFM_PMU_PERF_EVENT_RAW) continue;
    tables.push_back(Table{static_cast<pfm_pmu_t>(p), info.name,
                           info.type == PFM_PMU_TYPE_CORE});
  }
  return tables;
}

// Initializes libpfm once. Requires state.mu.
absl::Status Ready(State& state) {
  if (!state.initialized) {
    if (const char* env = std::getenv("LIBPFM_FORCE_PMU")) {
      state.had_env = true;
      state.env = env;
    }
    state.init_ret = pfm_initialize();
    state.initialized = true;
    if (state.init_ret == PFM_SUCCESS) {
      state.detected = PresentTables(state.perf_generic);
    }
  }
  if (state.init_ret != PFM_SUCCESS) {
    return absl::UnavailableError(
        Cat("libpfm4 failed to initialize: ", pfm_strerror(state.init_ret)));
  }
  return absl::OkStatus();
}

const std::vector<Table>& InUse(const State& state) {
  return state.is_forced ? state.forced : state.detected;
}

std::string TableList(const State& state) {
  std::vector<std::string> names;
  for (const Table& t : InUse(state)) names.push_back(t.name);
  return names.empty() ? "none: libpfm4 knows no table for this CPU"
                       : Join(names, ", ");
}

// The events of one table, by libpfm's index.
std::vector<int> EventsOf(pfm_pmu_t table) {
  std::vector<int> out;
  pfm_pmu_info_t info{};
  info.size = sizeof(info);
  if (pfm_get_pmu_info(table, &info) != PFM_SUCCESS) return out;
  for (int idx = info.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
    out.push_back(idx);
  }
  return out;
}

absl::StatusOr<VendorEventInfo> EventInfo(int idx, const std::string& table) {
  pfm_event_info_t info{};
  info.size = sizeof(info);
  if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS) {
    return absl::InternalError(Cat("libpfm4 has no event ", idx));
  }
  VendorEventInfo out;
  out.table = table;
  out.name = info.name;
  out.description = info.desc != nullptr ? info.desc : "";
  out.code = info.code;
  for (int a = 0; a < info.nattrs; ++a) {
    pfm_event_attr_info_t attr{};
    attr.size = sizeof(attr);
    if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &attr) !=
        PFM_SUCCESS) {
      continue;
    }
    if (attr.type == PFM_ATTR_RAW_UMASK) continue;
    VendorUmask u;
    u.name = attr.name;
    u.description = attr.desc != nullptr ? attr.desc : "";
    u.is_modifier = attr.type != PFM_ATTR_UMASK;
    u.code = u.is_modifier ? 0 : attr.code;
    u.is_default = attr.is_dfl;
    out.umasks.push_back(std::move(u));
  }
  return out;
}

// The event `event_name` (no umasks) in `table`, or -1.
int FindEvent(const std::string& table, std::string_view event_name) {
  return pfm_find_event(Cat(table, "::", event_name).c_str());
}

struct Encoded {
  int ret = PFM_SUCCESS;
  VendorEncoding encoding;
};

Encoded Encode(const std::string& qualified, const Table* table) {
  Encoded out;
  perf_event_attr kernel{};
  // libpfm copies back only `size` bytes of the attr, and takes 0 as the
  // first ABI's 64 (which ends before config2).
  kernel.size = sizeof(kernel);
  char* fstr = nullptr;
  pfm_perf_encode_arg_t arg{};
  arg.attr = &kernel;
  arg.fstr = &fstr;
  arg.size = sizeof(arg);
  // All levels by default: the grammar applies :u/:k/:h and the user-only
  // default itself, exactly as for generic events.
  out.ret = pfm_get_os_event_encoding(qualified.c_str(),
                                      PFM_PLM0 | PFM_PLM3 | PFM_PLMH,
                                      PFM_OS_PERF_EVENT_EXT, &arg);
  if (out.ret != PFM_SUCCESS) return out;
  VendorEncoding& e = out.encoding;
  kernel.size = 0;
  e.attr = Attr::FromKernel(kernel);
  e.attr.size = 0;
  // libpfm excludes the guest unless told `mg=1`; generic events do not, and
  // perf's G/H modifiers say it. Keep libpfm's choice only when asked for.
  const std::string lower = absl::AsciiStrToLower(qualified);
  if (lower.find(":mg=") == std::string::npos &&
      lower.find(":mh=") == std::string::npos) {
    e.attr.exclude_guest = false;
    e.attr.exclude_host = false;
  }
  if (fstr != nullptr) {
    e.canonical = fstr;
    std::free(fstr);
  }
  if (table != nullptr) {
    e.table = table->name;
    e.core = table->core;
  } else {
    pfm_event_info_t info{};
    info.size = sizeof(info);
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof(pinfo);
    if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &info) ==
            PFM_SUCCESS &&
        pfm_get_pmu_info(info.pmu, &pinfo) == PFM_SUCCESS) {
      e.table = pinfo.name;
      e.core = pinfo.type != PFM_PMU_TYPE_UNCORE;
    }
  }
  // Canonical names libpfm writes with every default spelled out
  // (":e=0:i=0:c=0:...:u=1:k=1:..."): keep the event and its umasks.
  const size_t qual = e.canonical.find("::");
  if (qual != std::string::npos) {
    std::vector<std::string_view> parts =
        internal::Split(std::string_view(e.canonical).substr(qual + 2), ':');
    std::string kept = e.canonical.substr(0, qual + 2);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0 && parts[i].find('=') != std::string_view::npos) continue;
      absl::StrAppend(&kept, i > 0 ? ":" : "", internal::Sv(parts[i]));
    }
    e.canonical = kept;
  }
  return out;
}

// Why `name` (event `event_name` of `table`) did not encode, for libpfm's
// error `ret`, naming the event's umasks.
absl::Status EncodeError(int ret, std::string_view name,
                         const std::string& table,
                         std::string_view event_name) {
  const int idx = FindEvent(table, event_name);
  absl::StatusOr<VendorEventInfo> info = EventInfo(idx, table);
  std::vector<std::string> umasks;
  std::vector<std::string> modifiers;
  if (info.ok()) {
    for (const VendorUmask& u : info->umasks) {
      (u.is_modifier ? modifiers : umasks).push_back(u.name);
    }
  }
  const std::string what = Cat(table, "::", info.ok() ? info->name : "");
  std::string known;
  if (!umasks.empty()) {
    known = Cat("; its umasks: ", Join(umasks, ", "));
  }
  if (!modifiers.empty()) {
    absl::StrAppend(&known, "; its modifiers: ", Join(modifiers, ", "));
  }
  // The first part after the event that is none of them.
  std::string bad;
  const std::vector<std::string_view> parts = internal::Split(name, ':');
  const size_t qual = name.find("::");
  const size_t first = qual == std::string_view::npos ? 1 : 3;
  for (size_t i = first; i < parts.size() && bad.empty(); ++i) {
    const std::string_view key = parts[i].substr(0, parts[i].find('='));
    bool found = false;
    for (const std::string& u : umasks) found = found || IEquals(u, key);
    for (const std::string& m : modifiers) found = found || IEquals(m, key);
    if (!found) bad = std::string(key);
  }
  if ((ret == PFM_ERR_ATTR || ret == PFM_ERR_NOTFOUND) && !bad.empty()) {
    std::vector<std::string> candidates = umasks;
    candidates.insert(candidates.end(), modifiers.begin(), modifiers.end());
    const std::vector<std::string> close =
        internal::ClosestNames(bad, candidates, 3);
    return absl::InvalidArgumentError(
        Cat(internal::Quote(bad), " is not a umask or modifier of ", what,
            close.empty() ? "" : Cat("; did you mean ", Join(close, ", "), "?"),
            known));
  }
  if (ret == PFM_ERR_UMASK) {
    return absl::InvalidArgumentError(
        Cat(what, " needs a umask (or the ones given do not combine)", known,
            "; write it as ", info.ok() ? info->name : "EVENT", ":UMASK"));
  }
  // Every part is known: a value is missing or out of range, or the
  // modifiers do not combine.
  std::string why;
  if (ret == PFM_ERR_ATTR_VAL) {
    why = "; a modifier's value is missing or out of range (c=N, precise=0..3)";
  } else if (ret == PFM_ERR_ATTR) {
    why =
        "; the modifiers given do not combine (e.g. Intel's e, edge detect, "
        "needs a count mask c=N)";
  }
  return absl::InvalidArgumentError(Cat("libpfm4 cannot encode ",
                                        internal::Quote(name), " (", what,
                                        "): ", pfm_strerror(ret), why, known));
}

}  // namespace

bool HaveLibpfm() { return true; }

absl::StatusOr<VendorEncoding> EncodeVendorEvent(std::string_view name) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  RETURN_IF_ERROR(Ready(state));
  const std::string pfm_name = internal::ToLibpfmName(name);
  if (pfm_name.empty() || pfm_name[0] == ':') {
    return absl::InvalidArgumentError(
        Cat("no event name in ", internal::Quote(name),
            "; write EVENT[:UMASK] or "
            "table::EVENT[:UMASK], e.g. INST_RETIRED:ANY_P"));
  }
  const size_t qual = pfm_name.find("::");
  const std::string rest =
      qual == std::string::npos ? pfm_name : pfm_name.substr(qual + 2);
  const std::string event_name = rest.substr(0, rest.find(':'));

  // The tables to try, in libpfm's order: the named one, else every table
  // in use, then libpfm's generic names.
  std::vector<const Table*> tables;
  std::vector<std::string> generic;
  if (qual != std::string::npos) {
    const std::string table_name = pfm_name.substr(0, qual);
    for (const Table& t : InUse(state)) {
      if (IEquals(t.name, table_name)) tables.push_back(&t);
    }
    const bool is_generic =
        IEquals(table_name, "perf") || IEquals(table_name, "perf_raw");
    if (is_generic && state.perf_generic && !state.is_forced) {
      generic.push_back(table_name);
    } else if (tables.empty()) {
      return absl::NotFoundError(
          Cat("libpfm4 table ", internal::Quote(table_name), " in ",
              internal::Quote(name),
              " is not in use here (tables in use: ", TableList(state), ")"));
    }
  } else if (state.perf_generic && !state.is_forced) {
    generic.push_back("perf");
  }
  if (qual == std::string::npos) {
    for (const Table& t : InUse(state)) tables.push_back(&t);
  }
  for (const Table* t : tables) {
    if (FindEvent(t->name, event_name) < 0) continue;
    Encoded e = Encode(Cat(t->name, "::", rest), t);
    if (e.ret == PFM_SUCCESS) return e.encoding;
    return EncodeError(e.ret, rest, t->name, event_name);
  }
  for (const std::string& g : generic) {
    Encoded e = Encode(Cat(g, "::", rest), nullptr);
    if (e.ret == PFM_SUCCESS) return e.encoding;
  }
  // Unknown everywhere: suggest close event names of the tables in use.
  std::vector<std::string> names;
  for (const Table& t : InUse(state)) {
    for (int idx : EventsOf(t.id)) {
      pfm_event_info_t info{};
      info.size = sizeof(info);
      if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) ==
          PFM_SUCCESS) {
        names.push_back(info.name);
      }
    }
  }
  const std::vector<std::string> close =
      internal::ClosestNames(event_name, names, 3);
  return absl::NotFoundError(
      Cat("no vendor event ", internal::Quote(event_name),
          " in libpfm4's tables (", TableList(state), ")",
          close.empty() ? "" : Cat("; did you mean ", Join(close, ", "), "?")));
}

absl::StatusOr<std::vector<std::string>> VendorTables() {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  RETURN_IF_ERROR(Ready(state));
  std::vector<std::string> names;
  for (const Table& t : InUse(state)) names.push_back(t.name);
  return names;
}

absl::StatusOr<std::vector<VendorEventInfo>> ListVendorEvents(
    std::string_view table) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  RETURN_IF_ERROR(Ready(state));
  std::vector<VendorEventInfo> out;
  bool found = table.empty();
  for (const Table& t : InUse(state)) {
    if (!table.empty() && !IEquals(t.name, table)) continue;
    found = true;
    for (int idx : EventsOf(t.id)) {
      absl::StatusOr<VendorEventInfo> info = EventInfo(idx, t.name);
      if (info.ok()) out.push_back(*std::move(info));
    }
  }
  if (!found) {
    return absl::NotFoundError(
        Cat("libpfm4 table '", table,
            "' is not in use here (tables in use: ", TableList(state), ")"));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> AllVendorTables() {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  RETURN_IF_ERROR(Ready(state));
  std::vector<std::string> names;
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    if (p == PFM_PMU_PERF_EVENT || p == PFM_PMU_PERF_EVENT_RAW) continue;
    pfm_pmu_info_t info{};
    info.size = sizeof(info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) == PFM_SUCCESS) {
      names.push_back(info.name);
    }
  }
  return names;
}

absl::Status UseVendorTable(std::string_view table) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  RETURN_IF_ERROR(Ready(state));
  if (table.empty()) {
    if (!state.is_forced) return absl::OkStatus();
    // Re-initialize as at start-up: pfm_terminate() released what the
    // detected tables (and libpfm's generic one) had set up.
    pfm_terminate();
    state.init_ret = pfm_initialize();
    state.is_forced = false;
    state.forced.clear();
    return Ready(state);
  }
  // libpfm reads LIBPFM_FORCE_PMU in pfm_initialize(): re-initialize with
  // it set, then put the environment back as it was.
  pfm_terminate();
  setenv("LIBPFM_FORCE_PMU", std::string(table).c_str(), 1);
  const int ret = pfm_initialize();
  if (state.had_env) {
    setenv("LIBPFM_FORCE_PMU", state.env.c_str(), 1);
  } else {
    unsetenv("LIBPFM_FORCE_PMU");
  }
  std::vector<Table> forced;
  if (ret == PFM_SUCCESS) {
    bool unused = false;
    for (Table& t : PresentTables(unused)) {
      if (IEquals(t.name, table)) forced.push_back(std::move(t));
    }
  }
  if (forced.empty()) {
    // Back to the detected tables (libpfm still has them).
    pfm_terminate();
    state.init_ret = pfm_initialize();
    std::vector<std::string> all;
    for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
      pfm_pmu_info_t info{};
      info.size = sizeof(info);
      if (p != PFM_PMU_PERF_EVENT && p != PFM_PMU_PERF_EVENT_RAW &&
          pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) == PFM_SUCCESS &&
          info.type == PFM_PMU_TYPE_CORE) {
        all.push_back(info.name);
      }
    }
    return absl::NotFoundError(
        Cat("libpfm4 in this build has no table '", table,
            "' (tables are per architecture; this build's CPU tables: ",
            all.empty() ? "none" : Join(all, ", "), ")"));
  }
  state.init_ret = ret;
  state.forced = std::move(forced);
  state.is_forced = true;
  return absl::OkStatus();
}

std::vector<std::string> internal::VendorEventAttrNames(
    std::string_view event) {
  std::vector<std::string> out;
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (!Ready(state).ok()) return out;
  const std::string pfm_name = internal::ToLibpfmName(event);
  const size_t qual = pfm_name.find("::");
  const std::string rest =
      qual == std::string::npos ? pfm_name : pfm_name.substr(qual + 2);
  const std::string event_name = rest.substr(0, rest.find(':'));
  for (const Table& t : InUse(state)) {
    if (qual != std::string::npos &&
        !IEquals(t.name, pfm_name.substr(0, qual))) {
      continue;
    }
    const int idx = FindEvent(t.name, event_name);
    if (idx < 0) continue;
    absl::StatusOr<VendorEventInfo> info = EventInfo(idx, t.name);
    if (info.ok()) {
      for (const VendorUmask& u : info->umasks) out.push_back(u.name);
    }
    break;
  }
  return out;
}

#endif  // PERFCOUNTERS_HAVE_LIBPFM

}  // namespace perfcounters
