// event_catalog.h: `EventCatalog`, a snapshot of the machine's event sources
// (the sysfs PMUs and the tracefs tracepoints) that many parses can share.
//
// By default the grammar (grammar.h) reads sysfs and tracefs afresh on every
// call: a PMU's type, format/ and events/ files, its cpumask, the tracepoint
// ids. That is what a long-running program wants when PMUs can appear later
// (hot-plugged devices, loaded modules), and it costs tens to hundreds of
// microseconds per parse. A program that parses many events against one
// machine (a fuzzer, a benchmark harness, a command that lists and checks
// hundreds of events) makes one catalog instead and puts it in
// ParseOptions::catalog:
//
//   perfcounters::ParseOptions options;
//   options.catalog = perfcounters::EventCatalog::Create();
//   for (const std::string& text : texts) {
//     absl::StatusOr<perfcounters::EventSpec> spec =
//         perfcounters::ParseEvent(text, options);
//     ...
//   }
//
// The results, and the error messages, are the ones the default reads give
// for the catalog's paths at the time the catalog read them.
//
// What is read when:
//   - Create() lists the PMUs (ListPmus), reads the hybrid core PMUs
//     (HybridCorePmus), finds tracefs (FindTracefs) and lists its
//     categories;
//   - a PMU's directory (LoadPmu: type, formats, aliases with .scale and
//     .unit, cpumask) is read the first time anything asks for that PMU;
//   - a tracepoint category's directory, and each tracepoint's id, the first
//     time anything asks for them.
// What was read, errors included, is kept for the catalog's lifetime. A PMU,
// tracefs mount or tracepoint category that appears after Create() is not
// seen, nor is a change to a file already read: make a new catalog to see
// them. Lookups of names that do not exist are answered from the listings
// and not stored, so a catalog does not grow with the text it is asked
// about.
//
// Thread-safety: every method is const and may be called from any number of
// threads at once, and one catalog may back parses on many threads. Loading
// on first use is guarded by an internal mutex (the first lookup of a PMU
// reads its directory while holding it; later lookups share it).
#ifndef PERFCOUNTERS_EVENT_CATALOG_H_
#define PERFCOUNTERS_EVENT_CATALOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/export.h"
#include "perfcounters/hybrid.h"
#include "perfcounters/paths.h"
#include "perfcounters/pmu.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

class EventCatalog;

namespace internal {
class EventSources;
class CatalogSources;
const EventSources& SourcesOf(const EventCatalog& catalog);
}  // namespace internal

// The PMUs and tracepoints under one SystemPaths, read once (see above).
class EventCatalog {
 public:
  // Takes the snapshot's first readings (the PMU list, the hybrid core PMUs,
  // tracefs and its categories). Never fails: what cannot be read is kept as
  // the error its lookups return, as the free functions would.
  static std::shared_ptr<const EventCatalog> Create(SystemPaths paths = {});

  EventCatalog(const EventCatalog&) = delete;
  EventCatalog& operator=(const EventCatalog&) = delete;
  ~EventCatalog();

  // The roots the catalog reads.
  const SystemPaths& paths() const;

  // As ListPmus(paths()) returned at Create().
  absl::StatusOr<std::vector<std::string>> ListPmus() const;
  // As LoadPmu(name, paths()) returned the first time `name` was asked for;
  // NotFoundError (listing the PMUs of the snapshot) for a PMU the snapshot
  // does not have.
  absl::StatusOr<std::shared_ptr<const Pmu>> LoadPmu(
      std::string_view name) const;
  // As HybridCorePmus(paths()) returned at Create().
  std::vector<HybridPmu> HybridCorePmus() const;

  // As FindTracefs(paths()) returned at Create().
  absl::StatusOr<std::string> FindTracefs() const;
  // As TracepointId(category, name, paths()), from the snapshot.
  absl::StatusOr<uint64_t> TracepointId(std::string_view category,
                                        std::string_view name) const;
  // As ListTracepointCategories(paths()), from the snapshot.
  absl::StatusOr<std::vector<std::string>> ListTracepointCategories() const;
  // As ListTracepoints(category, paths()), from the snapshot.
  absl::StatusOr<std::vector<std::string>> ListTracepoints(
      std::string_view category) const;

 private:
  explicit EventCatalog(SystemPaths paths);
  friend const internal::EventSources& internal::SourcesOf(
      const EventCatalog& catalog);

  std::unique_ptr<const internal::CatalogSources> sources_;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_EVENT_CATALOG_H_
