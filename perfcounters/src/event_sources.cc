// event_sources.cc: LiveEventSources, the questions of event_sources.h
// answered by fresh reads of sysfs and tracefs.
#include "event_sources.h"

#include "perfcounters/internal/status_macros.h"
#include "perfcounters/tracepoint.h"
#include "sysfs_file.h"
#include "text_util.h"

namespace perfcounters::internal {

bool IsDirectoryEntryName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos;
}

absl::StatusOr<std::vector<std::string>> LiveEventSources::ListPmus() const {
  return perfcounters::ListPmus(paths_);
}

absl::StatusOr<std::shared_ptr<const Pmu>> LiveEventSources::LoadPmu(
    std::string_view name) const {
  ASSIGN_OR_RETURN(Pmu pmu, perfcounters::LoadPmu(name, paths_));
  return std::make_shared<const Pmu>(std::move(pmu));
}

bool LiveEventSources::HasCpusFile(std::string_view pmu) const {
  return ReadTextFile(Cat(paths_.EventSourceDevices(), "/", pmu, "/cpus")).ok();
}

std::vector<HybridPmu> LiveEventSources::HybridCorePmus() const {
  return perfcounters::HybridCorePmus(paths_);
}

absl::StatusOr<std::string> LiveEventSources::FindTracefs() const {
  return perfcounters::FindTracefs(paths_);
}

absl::StatusOr<std::vector<std::string>> LiveEventSources::ListTracefsEvents()
    const {
  ASSIGN_OR_RETURN(std::string root, FindTracefs());
  return ListDirectory(root + "/events");
}

bool LiveEventSources::IsTracepointCategory(std::string_view category) const {
  if (category.empty() || category.find('/') != std::string_view::npos) {
    return false;
  }
  absl::StatusOr<std::string> root = FindTracefs();
  return root.ok() && IsDirectory(Cat(*root, "/events/", category));
}

absl::StatusOr<std::vector<std::string>>
LiveEventSources::ListTracepointDirectory(std::string_view category) const {
  ASSIGN_OR_RETURN(std::string root, FindTracefs());
  return ListDirectory(Cat(root, "/events/", category));
}

absl::StatusOr<std::string> LiveEventSources::ReadTracepointId(
    std::string_view category, std::string_view name) const {
  ASSIGN_OR_RETURN(std::string root, FindTracefs());
  return ReadTextFile(Cat(root, "/events/", category, "/", name, "/id"));
}

}  // namespace perfcounters::internal
