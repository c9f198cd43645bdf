// vendor_events.h: the CPU vendors' own event names, through libpfm4.
//
// perf's generic events (cycles, instructions, ...) exist on every CPU; the
// vendors' model-specific events (Intel's MEM_LOAD_RETIRED.L3_MISS, AMD's
// RETIRED_INSTRUCTIONS, Arm's STALL_BACKEND) are tables per CPU model.
// libpfm4 holds those tables, detects the model, and encodes a name into a
// perf_event_attr. The grammar (grammar.h) falls back to these functions
// for names that are none of perf's forms; they are also usable directly:
//
//   VendorEncoding: what a vendor name encodes to, and which table said so.
//   VendorEventInfo / VendorUmask: one table entry, for `perfcounters list`.
//   UseVendorTable(): choose the model's table, as LIBPFM_FORCE_PMU does.
//
// Names are libpfm's (`EVENT`, `EVENT:UMASK`, `table::EVENT:UMASK`, with
// libpfm's modifiers such as `c=2`, `e`, `i`, `precise=1`) or perf's dotted
// spellings (`inst_retired.any_p` is `INST_RETIRED:ANY_P`), all
// case-insensitive. Privilege levels are not part of an encoding: the
// grammar applies `:u`/`:k`/`:h` exactly as for generic events.
//
// Built without libpfm4 (HaveLibpfm() false), every function here returns
// UnavailableError saying that this build lacks libpfm4.
#ifndef PERFCOUNTERS_VENDOR_EVENTS_H_
#define PERFCOUNTERS_VENDOR_EVENTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/attr.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// True when this build resolves vendor names through libpfm4.
bool HaveLibpfm();

// A vendor name, encoded.
struct VendorEncoding {
  // type, config, config1, config2 and any libpfm modifiers (precise_ip,
  // pinned, exclusive, ...). Never exclude_* bits: levels are the grammar's.
  Attr attr;
  // The libpfm4 table that resolved the name, e.g. "skl", "icl",
  // "amd64_fam19h_zen3", "arm_ac57", or "perf" (libpfm's generic
  // names).
  std::string table;
  // libpfm's fully qualified spelling, e.g. "skl::INST_RETIRED:ANY_P".
  std::string canonical;
  // True for a core (CPU) PMU's event; false for uncore PMUs.
  bool core = true;
};

// Encodes `name` (no `:u`/`:k`/`:h`; see above). NotFoundError when no
// table in use knows the event (with close names), InvalidArgumentError for
// an unknown or missing umask or modifier (naming the event's umasks).
absl::StatusOr<VendorEncoding> EncodeVendorEvent(std::string_view name);

// One umask (or modifier) of a vendor event.
struct VendorUmask {
  std::string name;
  std::string description;
  // The umask's code in the table (for modifiers: 0).
  uint64_t code = 0;
  // The umask used when the name gives none.
  bool is_default = false;
  // True for a modifier (c=, e, i, ...), false for a umask.
  bool is_modifier = false;
};

// One event of a libpfm4 table.
struct VendorEventInfo {
  std::string table;
  std::string name;
  std::string description;
  // The event's code in the table (event select).
  uint64_t code = 0;
  std::vector<VendorUmask> umasks;
};

// The libpfm4 tables in use for this machine: the CPU model's (e.g. "icl")
// and any uncore tables libpfm detected, without libpfm's generic "perf"
// and "perf_raw" tables. Empty when libpfm knows no table for this CPU.
absl::StatusOr<std::vector<std::string>> VendorTables();

// Every event of the tables in use (or of `table` only, when non-empty), in
// table order.
absl::StatusOr<std::vector<VendorEventInfo>> ListVendorEvents(
    std::string_view table = "");

// Makes libpfm4 use `table` as this machine's (as LIBPFM_FORCE_PMU=table
// does at start-up): later encodings and listings use only that table.
// An empty `table` returns to detection. For showing or testing another
// model's encodings; it affects the whole process. NotFoundError (listing
// this build's tables) when libpfm4 has no such table here: the tables are
// per architecture, so an x86-64 build has no Arm tables and vice versa.
absl::Status UseVendorTable(std::string_view table);

// Every table this build of libpfm4 has (for error messages and tests).
absl::StatusOr<std::vector<std::string>> AllVendorTables();

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_VENDOR_EVENTS_H_
