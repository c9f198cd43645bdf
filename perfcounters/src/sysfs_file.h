// sysfs_file.h (internal): reading the small text files and directories of
// sysfs and tracefs, with errors that name the path and the errno.
#ifndef PERFCOUNTERS_SRC_SYSFS_FILE_H_
#define PERFCOUNTERS_SRC_SYSFS_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace perfcounters::internal {

// The whole file, with trailing whitespace (the newline) removed. The status
// code follows errno (NotFound, PermissionDenied, ...), the message names
// the path. Here and below, a path with a NUL byte (from user text) names
// no file: NotFound, not the part of the path before the NUL.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// Names of the entries of a directory (no "." or ".."), sorted.
absl::StatusOr<std::vector<std::string>> ListDirectory(const std::string& path);

// True when `path` is a directory (following symlinks).
bool IsDirectory(const std::string& path);

// What ReadTextFile and ListDirectory return for a path that does not exist
// (ENOENT), for callers that know so without asking the kernel (a snapshot
// whose listing of the parent lacks the name).
absl::Status ReadTextFileNotFound(const std::string& path);
absl::Status ListDirectoryNotFound(const std::string& path);

}  // namespace perfcounters::internal

#endif  // PERFCOUNTERS_SRC_SYSFS_FILE_H_
