// event_catalog.cc: EventCatalog, the questions of event_sources.h answered
// from a snapshot read once (CatalogSources), and the catalog's public
// lookups.
//
// Only names that the listings hold are stored (PMUs, tracepoint categories,
// the entries of a category), so lookups of arbitrary text never grow the
// catalog: a name missing from a listing that was read gets the error a read
// would give (ENOENT), built without asking the kernel. Where a listing
// itself failed, or the name is not a plain directory entry, the question is
// passed on to a fresh read, uncached, which is what the default would do.
#include "perfcounters/event_catalog.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>

#include "event_sources.h"
#include "perfcounters/internal/status_macros.h"
#include "sysfs_file.h"
#include "text_util.h"

namespace perfcounters {
namespace internal {
namespace {

bool Listed(const absl::StatusOr<std::vector<std::string>>& listing,
            std::string_view name) {
  return listing.ok() &&
         std::binary_search(listing->begin(), listing->end(), name);
}

}  // namespace

class CatalogSources final : public EventSources {
 public:
  explicit CatalogSources(SystemPaths paths)
      : paths_(std::move(paths)),
        live_(paths_),
        pmus_(live_.ListPmus()),
        hybrid_(HybridCorePmusAmong(pmus_, paths_)),
        tracefs_(live_.FindTracefs()),
        tracefs_events_(live_.ListTracefsEvents()) {}

  const SystemPaths& paths() const override { return paths_; }

  absl::StatusOr<std::vector<std::string>> ListPmus() const override {
    return pmus_;
  }

  absl::StatusOr<std::shared_ptr<const Pmu>> LoadPmu(
      std::string_view name) const override {
    if (const PmuEntry* entry = FindPmu(name)) return entry->pmu;
    if (!pmus_.ok()) return live_.LoadPmu(name);
    return NoSuchPmuError(name, paths_, pmus_);
  }

  bool HasCpusFile(std::string_view pmu) const override {
    if (const PmuEntry* entry = FindPmu(pmu)) return entry->has_cpus_file;
    if (!pmus_.ok() || !IsDirectoryEntryName(pmu)) {
      return live_.HasCpusFile(pmu);
    }
    return false;  // no such PMU directory
  }

  std::vector<HybridPmu> HybridCorePmus() const override { return hybrid_; }

  absl::StatusOr<std::string> FindTracefs() const override { return tracefs_; }

  absl::StatusOr<std::vector<std::string>> ListTracefsEvents() const override {
    return tracefs_events_;
  }

  bool IsTracepointCategory(std::string_view category) const override {
    if (!tracefs_.ok() || category.empty() ||
        category.find('/') != std::string_view::npos) {
      return false;
    }
    if (!IsDirectoryEntryName(category) || !tracefs_events_.ok()) {
      return IsDirectory(CategoryDir(category));  // ".", "..", or no listing
    }
    if (!Listed(tracefs_events_, category)) return false;
    std::lock_guard lock(mu_);
    return CategoryLocked(category).is_directory;
  }

  absl::StatusOr<std::vector<std::string>> ListTracepointDirectory(
      std::string_view category) const override {
    RETURN_IF_ERROR(tracefs_.status());
    const std::string dir = CategoryDir(category);
    if (!IsDirectoryEntryName(category) || !tracefs_events_.ok()) {
      return ListDirectory(dir);
    }
    if (!Listed(tracefs_events_, category)) return ListDirectoryNotFound(dir);
    std::lock_guard lock(mu_);
    return EntriesLocked(CategoryLocked(category), dir);
  }

  absl::StatusOr<std::string> ReadTracepointId(
      std::string_view category, std::string_view name) const override {
    RETURN_IF_ERROR(tracefs_.status());
    const std::string dir = CategoryDir(category);
    const std::string file = Cat(dir, "/", name, "/id");
    if (!IsDirectoryEntryName(category) || !IsDirectoryEntryName(name) ||
        !tracefs_events_.ok()) {
      return ReadTextFile(file);
    }
    if (!Listed(tracefs_events_, category)) return ReadTextFileNotFound(file);
    std::lock_guard lock(mu_);
    Category& c = CategoryLocked(category);
    const absl::StatusOr<std::vector<std::string>>& entries =
        EntriesLocked(c, dir);
    if (!entries.ok()) return ReadTextFile(file);
    if (!Listed(entries, name)) return ReadTextFileNotFound(file);
    auto it = c.ids.find(name);
    if (it == c.ids.end()) {
      it = c.ids.emplace(std::string(name), ReadTextFile(file)).first;
    }
    return it->second;
  }

 private:
  // One PMU of the listing, read on first use; never changed afterwards.
  struct PmuEntry {
    absl::StatusOr<std::shared_ptr<const Pmu>> pmu;
    bool has_cpus_file = false;
  };
  // One tracepoint category of the listing, read piece by piece.
  struct Category {
    bool is_directory = false;
    // ListDirectory of the category, on first use.
    std::optional<absl::StatusOr<std::vector<std::string>>> entries;
    // ReadTextFile of <entry>/id, per entry of `entries`, on first use.
    std::map<std::string, absl::StatusOr<std::string>, std::less<>> ids;
  };

  std::string CategoryDir(std::string_view category) const {
    return Cat(*tracefs_, "/events/", category);
  }

  // The entry of a listed PMU (loading it on first use); nullptr for a name
  // the listing lacks. Entries are immutable once inserted and std::map
  // keeps them in place, so the pointer stays valid without the lock.
  const PmuEntry* FindPmu(std::string_view name) const {
    if (!Listed(pmus_, name)) return nullptr;
    {
      std::shared_lock lock(mu_);
      if (auto it = pmu_entries_.find(name); it != pmu_entries_.end()) {
        return &it->second;
      }
    }
    std::lock_guard lock(mu_);
    auto it = pmu_entries_.find(name);
    if (it == pmu_entries_.end()) {
      PmuEntry entry{live_.LoadPmu(name), live_.HasCpusFile(name)};
      it = pmu_entries_.emplace(std::string(name), std::move(entry)).first;
    }
    return &it->second;
  }

  // The entry of a listed category, made on first use. mu_ held.
  Category& CategoryLocked(std::string_view category) const {
    auto it = categories_.find(category);
    if (it == categories_.end()) {
      Category c;
      c.is_directory = IsDirectory(CategoryDir(category));
      it = categories_.emplace(std::string(category), std::move(c)).first;
    }
    return it->second;
  }

  // The category's entries, listed on first use. mu_ held.
  static const absl::StatusOr<std::vector<std::string>>& EntriesLocked(
      Category& c, const std::string& dir) {
    if (!c.entries) c.entries = ListDirectory(dir);
    return *c.entries;
  }

  const SystemPaths paths_;
  const LiveEventSources live_;  // reads paths_
  const absl::StatusOr<std::vector<std::string>> pmus_;
  const std::vector<HybridPmu> hybrid_;
  const absl::StatusOr<std::string> tracefs_;
  const absl::StatusOr<std::vector<std::string>> tracefs_events_;

  // Guards what follows. A std::shared_mutex rather than absl::Mutex: the
  // TSan build instruments this project only, and sees pthread locks but
  // not the synchronisation inside Debian's uninstrumented abseil.
  mutable std::shared_mutex mu_;
  mutable std::map<std::string, PmuEntry, std::less<>> pmu_entries_;
  mutable std::map<std::string, Category, std::less<>> categories_;
};

const EventSources& SourcesOf(const EventCatalog& catalog) {
  return *catalog.sources_;
}

}  // namespace internal

EventCatalog::EventCatalog(SystemPaths paths)
    : sources_(
          std::make_unique<const internal::CatalogSources>(std::move(paths))) {}

EventCatalog::~EventCatalog() = default;

std::shared_ptr<const EventCatalog> EventCatalog::Create(SystemPaths paths) {
  return std::shared_ptr<const EventCatalog>(
      new EventCatalog(std::move(paths)));
}

const SystemPaths& EventCatalog::paths() const { return sources_->paths(); }

absl::StatusOr<std::vector<std::string>> EventCatalog::ListPmus() const {
  return sources_->ListPmus();
}

absl::StatusOr<std::shared_ptr<const Pmu>> EventCatalog::LoadPmu(
    std::string_view name) const {
  return sources_->LoadPmu(name);
}

std::vector<HybridPmu> EventCatalog::HybridCorePmus() const {
  return sources_->HybridCorePmus();
}

absl::StatusOr<std::string> EventCatalog::FindTracefs() const {
  return sources_->FindTracefs();
}

absl::StatusOr<uint64_t> EventCatalog::TracepointId(
    std::string_view category, std::string_view name) const {
  return internal::TracepointId(*sources_, category, name);
}

absl::StatusOr<std::vector<std::string>>
EventCatalog::ListTracepointCategories() const {
  return internal::ListTracepointCategories(*sources_);
}

absl::StatusOr<std::vector<std::string>> EventCatalog::ListTracepoints(
    std::string_view category) const {
  return internal::ListTracepoints(*sources_, category);
}

}  // namespace perfcounters
