// event_sources.h (internal): what the grammar and the tracepoint and hybrid
// rules ask of sysfs and tracefs, as one interface with two answers:
// LiveEventSources reads the trees afresh on every question (the default),
// an EventCatalog (event_catalog.h) answers from its snapshot. The rules that
// combine the answers (tracepoint ids and their "did you mean" hints, the
// hybrid rule, name suggestions) are written once against EventSources, so
// both give the same results and the same error messages.
#ifndef PERFCOUNTERS_SRC_EVENT_SOURCES_H_
#define PERFCOUNTERS_SRC_EVENT_SOURCES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/hybrid.h"
#include "perfcounters/paths.h"
#include "perfcounters/pmu.h"

namespace perfcounters {

class EventCatalog;

namespace internal {

// The questions. Each method says which read it stands for; an
// implementation must give exactly that read's result (value or error).
class EventSources {
 public:
  virtual ~EventSources() = default;

  // The roots the answers come from; error messages name paths under them.
  virtual const SystemPaths& paths() const = 0;

  // ListPmus(paths()).
  virtual absl::StatusOr<std::vector<std::string>> ListPmus() const = 0;
  // LoadPmu(name, paths()).
  virtual absl::StatusOr<std::shared_ptr<const Pmu>> LoadPmu(
      std::string_view name) const = 0;
  // Whether <EventSourceDevices>/<pmu>/cpus can be read (core PMUs of
  // hybrid and arm machines have one).
  virtual bool HasCpusFile(std::string_view pmu) const = 0;
  // HybridCorePmus(paths()).
  virtual std::vector<HybridPmu> HybridCorePmus() const = 0;

  // FindTracefs(paths()).
  virtual absl::StatusOr<std::string> FindTracefs() const = 0;
  // The entries of <tracefs>/events (ListDirectory), or FindTracefs's
  // error.
  virtual absl::StatusOr<std::vector<std::string>> ListTracefsEvents()
      const = 0;
  // Whether <tracefs>/events/<category> is a directory; false without
  // tracefs and for an empty name or one with '/'.
  virtual bool IsTracepointCategory(std::string_view category) const = 0;
  // The entries of <tracefs>/events/<category> (ListDirectory), or
  // FindTracefs's error.
  virtual absl::StatusOr<std::vector<std::string>> ListTracepointDirectory(
      std::string_view category) const = 0;
  // <tracefs>/events/<category>/<name>/id (ReadTextFile), or FindTracefs's
  // error.
  virtual absl::StatusOr<std::string> ReadTracepointId(
      std::string_view category, std::string_view name) const = 0;
};

// Every answer read afresh from the trees under `paths` (which must outlive
// it: it is made for one call).
class LiveEventSources final : public EventSources {
 public:
  explicit LiveEventSources(const SystemPaths& paths) : paths_(paths) {}

  const SystemPaths& paths() const override { return paths_; }
  absl::StatusOr<std::vector<std::string>> ListPmus() const override;
  absl::StatusOr<std::shared_ptr<const Pmu>> LoadPmu(
      std::string_view name) const override;
  bool HasCpusFile(std::string_view pmu) const override;
  std::vector<HybridPmu> HybridCorePmus() const override;
  absl::StatusOr<std::string> FindTracefs() const override;
  absl::StatusOr<std::vector<std::string>> ListTracefsEvents() const override;
  bool IsTracepointCategory(std::string_view category) const override;
  absl::StatusOr<std::vector<std::string>> ListTracepointDirectory(
      std::string_view category) const override;
  absl::StatusOr<std::string> ReadTracepointId(
      std::string_view category, std::string_view name) const override;

 private:
  const SystemPaths& paths_;
};

// The catalog's answers (event_catalog.cc).
const EventSources& SourcesOf(const EventCatalog& catalog);

// The rules, against either answer. The public functions of the same names
// (tracepoint.h, hybrid.h, grammar.h) call these with LiveEventSources.
absl::StatusOr<uint64_t> TracepointId(const EventSources& sources,
                                      std::string_view category,
                                      std::string_view name);
absl::StatusOr<std::vector<std::string>> ListTracepointCategories(
    const EventSources& sources);
absl::StatusOr<std::vector<std::string>> ListTracepoints(
    const EventSources& sources, std::string_view category);
absl::Status CheckGenericEventOnHybrid(const EventSpec& spec,
                                       const EventSources& sources);
std::vector<std::string> SuggestEventNames(std::string_view unknown,
                                           const EventSources& sources,
                                           size_t max);

// HybridCorePmus over the PMU names `names` (as ListPmus gave them).
std::vector<HybridPmu> HybridCorePmusAmong(
    const absl::StatusOr<std::vector<std::string>>& names,
    const SystemPaths& paths);

// LoadPmu's NotFoundError for `name` when there is no such PMU directory;
// `all` is what ListPmus returned.
absl::Status NoSuchPmuError(
    std::string_view name, const SystemPaths& paths,
    const absl::StatusOr<std::vector<std::string>>& all);

// True for a name a directory listing can hold (a PMU, a tracepoint
// category or tracepoint): non-empty, not "." or "..", no '/'.
bool IsDirectoryEntryName(std::string_view name);

}  // namespace internal
}  // namespace perfcounters

#endif  // PERFCOUNTERS_SRC_EVENT_SOURCES_H_
