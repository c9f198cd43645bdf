// tracepoint.cc: finding tracefs and reading tracepoint ids.
#include "perfcounters/tracepoint.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "event_sources.h"
#include "perfcounters/internal/edit_distance.h"
#include "perfcounters/internal/status_macros.h"
#include "sysfs_file.h"
#include "text_util.h"

namespace perfcounters {

using internal::Cat;
using internal::Join;

absl::StatusOr<std::string> FindTracefs(const SystemPaths& paths) {
  for (const std::string& root : paths.tracefs) {
    if (internal::IsDirectory(root + "/events")) return root;
  }
  // Mounted but not readable by this user (mode 700, the default on many
  // distributions) is not "not mounted": say so, and perf's remedy.
  for (const std::string& root : paths.tracefs) {
    struct stat st;
    if (::stat((root + "/events").c_str(), &st) != 0 && errno == EACCES) {
      struct stat dir {};
      ::stat(root.c_str(), &dir);
      char mode[8];
      std::snprintf(mode, sizeof mode, "%o", dir.st_mode & 07777);
      return absl::PermissionDeniedError(
          Cat("no permission to read tracefs at ", root, " (mode ", mode,
              "): tracepoints need it; as root, let others read it with: "
              "mount -o remount,mode=755 ",
              root, " (or run as root)"));
    }
  }
  return absl::NotFoundError(Cat(
      "tracefs is not mounted: no events/ directory under ",
      paths.tracefs.empty() ? std::string("(no candidates configured)")
                            : Join(paths.tracefs, " or "),
      "; mount it (as root) with: mount -t tracefs nodev /sys/kernel/tracing"));
}

absl::StatusOr<uint64_t> internal::TracepointId(const EventSources& sources,
                                                std::string_view category,
                                                std::string_view name) {
  ASSIGN_OR_RETURN(std::string root, sources.FindTracefs());
  if (!IsDirectoryEntryName(category) || !IsDirectoryEntryName(name)) {
    return absl::InvalidArgumentError(
        Cat("'", category, ":", name,
            "' is not a tracepoint name; expected category:name "
            "such as sched:sched_switch"));
  }
  const std::string category_dir = Cat(root, "/events/", category);
  if (!sources.IsTracepointCategory(category)) {
    absl::StatusOr<std::vector<std::string>> all =
        ListTracepointCategories(sources);
    std::string hint;
    if (all.ok()) {
      const std::vector<std::string> close = ClosestNames(category, *all, 3);
      if (!close.empty()) {
        hint = Cat("; did you mean ", Join(close, ", "), "?");
      }
    }
    return absl::NotFoundError(Cat("no tracepoint category '", category,
                                   "' (no directory ", category_dir, ")",
                                   hint));
  }
  const std::string id_file = Cat(category_dir, "/", name, "/id");
  absl::StatusOr<std::string> text = sources.ReadTracepointId(category, name);
  if (absl::IsNotFound(text.status())) {
    absl::StatusOr<std::vector<std::string>> all =
        ListTracepoints(sources, category);
    std::string hint;
    if (all.ok()) {
      std::vector<std::string> close = ClosestNames(name, *all, 3);
      for (std::string& c : close) c = Cat(category, ":", c);
      if (!close.empty()) {
        hint = Cat("; did you mean ", Join(close, ", "), "?");
      }
    }
    return absl::NotFoundError(Cat("no tracepoint '", category, ":", name,
                                   "' (no file ", id_file, ")", hint));
  }
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        Cat("cannot read the id of tracepoint '", category, ":",
                            name, "': ", text.status().message(),
                            absl::IsPermissionDenied(text.status())
                                ? " (tracefs is usually readable by root only)"
                                : ""));
  }
  uint64_t id = 0;
  if (text->empty() ||
      !std::all_of(text->begin(), text->end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(*text, &id)) {
    return absl::InvalidArgumentError(
        Cat("malformed ", id_file, ": '", *text,
            "'; expected a decimal tracepoint id"));
  }
  return id;
}

absl::StatusOr<std::vector<std::string>> internal::ListTracepointCategories(
    const EventSources& sources) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, sources.ListTracefsEvents());
  std::vector<std::string> categories;
  for (std::string& name : names) {
    if (sources.IsTracepointCategory(name)) {
      categories.push_back(std::move(name));
    }
  }
  return categories;
}

absl::StatusOr<std::vector<std::string>> internal::ListTracepoints(
    const EventSources& sources, std::string_view category) {
  RETURN_IF_ERROR(sources.FindTracefs().status());
  if (!IsDirectoryEntryName(category)) {
    return absl::InvalidArgumentError(
        Cat("'", category, "' is not a tracepoint category name"));
  }
  ASSIGN_OR_RETURN(std::vector<std::string> names,
                   sources.ListTracepointDirectory(category));
  std::vector<std::string> events;
  for (std::string& name : names) {
    // Only a directory holds an id file.
    if (sources.ReadTracepointId(category, name).ok()) {
      events.push_back(std::move(name));
    }
  }
  return events;
}

absl::StatusOr<uint64_t> TracepointId(std::string_view category,
                                      std::string_view name,
                                      const SystemPaths& paths) {
  return internal::TracepointId(internal::LiveEventSources(paths), category,
                                name);
}

absl::StatusOr<std::vector<std::string>> ListTracepointCategories(
    const SystemPaths& paths) {
  return internal::ListTracepointCategories(internal::LiveEventSources(paths));
}

absl::StatusOr<std::vector<std::string>> ListTracepoints(
    std::string_view category, const SystemPaths& paths) {
  return internal::ListTracepoints(internal::LiveEventSources(paths), category);
}

}  // namespace perfcounters
