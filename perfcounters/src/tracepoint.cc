// tracepoint.cc: finding tracefs and reading tracepoint ids.
#include "perfcounters/tracepoint.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "edit_distance.h"
#include "sysfs_file.h"
#include "text_util.h"

namespace perfcounters {

using internal::Cat;
using internal::ClosestNames;
using internal::IEquals;
using internal::Join;
using internal::Sv;

namespace {

// A tracepoint category or event name: what tracefs directories are called.
bool IsTracefsName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos;
}

}  // namespace

absl::StatusOr<std::string> FindTracefs(const SystemPaths& paths) {
  for (const std::string& root : paths.tracefs) {
    if (internal::IsDirectory(root + "/events")) return root;
  }
  return absl::NotFoundError(Cat(
      "tracefs is not mounted: no events/ directory under ",
      paths.tracefs.empty() ? std::string("(no candidates configured)")
                            : Join(paths.tracefs, " or "),
      "; mount it (as root) with: mount -t tracefs nodev /sys/kernel/tracing"));
}

absl::StatusOr<uint64_t> TracepointId(std::string_view category,
                                      std::string_view name,
                                      const SystemPaths& paths) {
  absl::StatusOr<std::string> root = FindTracefs(paths);
  if (!root.ok()) return root.status();
  if (!IsTracefsName(category) || !IsTracefsName(name)) {
    return absl::InvalidArgumentError(
        Cat("'", category, ":", name,
            "' is not a tracepoint name; expected category:name "
            "such as sched:sched_switch"));
  }
  const std::string category_dir = Cat(*root, "/events/", category);
  if (!internal::IsDirectory(category_dir)) {
    absl::StatusOr<std::vector<std::string>> all =
        ListTracepointCategories(paths);
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
  absl::StatusOr<std::string> text = internal::ReadTextFile(id_file);
  if (absl::IsNotFound(text.status())) {
    absl::StatusOr<std::vector<std::string>> all =
        ListTracepoints(category, paths);
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

absl::StatusOr<std::vector<std::string>> ListTracepointCategories(
    const SystemPaths& paths) {
  absl::StatusOr<std::string> root = FindTracefs(paths);
  if (!root.ok()) return root.status();
  const std::string events = *root + "/events";
  absl::StatusOr<std::vector<std::string>> names =
      internal::ListDirectory(events);
  if (!names.ok()) return names.status();
  std::vector<std::string> categories;
  for (std::string& name : *names) {
    if (internal::IsDirectory(events + "/" + name)) {
      categories.push_back(std::move(name));
    }
  }
  return categories;
}

absl::StatusOr<std::vector<std::string>> ListTracepoints(
    std::string_view category, const SystemPaths& paths) {
  absl::StatusOr<std::string> root = FindTracefs(paths);
  if (!root.ok()) return root.status();
  if (!IsTracefsName(category)) {
    return absl::InvalidArgumentError(
        Cat("'", category, "' is not a tracepoint category name"));
  }
  const std::string dir = Cat(*root, "/events/", category);
  absl::StatusOr<std::vector<std::string>> names = internal::ListDirectory(dir);
  if (!names.ok()) return names.status();
  std::vector<std::string> events;
  for (std::string& name : *names) {
    if (internal::IsDirectory(Cat(dir, "/", name)) &&
        internal::ReadTextFile(Cat(dir, "/", name, "/id")).ok()) {
      events.push_back(std::move(name));
    }
  }
  return events;
}

}  // namespace perfcounters
