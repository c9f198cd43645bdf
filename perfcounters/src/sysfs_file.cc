// sysfs_file.cc: small-file and directory reads for sysfs and tracefs.
#include "sysfs_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "absl/status/status.h"
#include "text_util.h"

namespace perfcounters::internal {
namespace {

absl::Status PathError(int err, std::string_view what,
                       const std::string& path) {
  return absl::ErrnoToStatus(err, Cat("cannot ", what, " ", path));
}

// A path with a NUL byte names no file: the kernel would see only the part
// before it (a parent directory of what was meant).
bool HasNul(const std::string& path) {
  return path.find('\0') != std::string::npos;
}

}  // namespace

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  if (HasNul(path)) return PathError(ENOENT, "open", path);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PathError(errno, "open", path);
  std::string text;
  char buf[4096];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      return PathError(err, "read", path);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  text.erase(std::find_if_not(text.rbegin(), text.rend(),
                              [](unsigned char c) { return std::isspace(c); })
                 .base(),
             text.end());
  return text;
}

absl::StatusOr<std::vector<std::string>> ListDirectory(
    const std::string& path) {
  if (HasNul(path)) return PathError(ENOENT, "list directory", path);
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return PathError(errno, "list directory", path);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  const int err = errno;
  closedir(dir);
  if (err != 0) return PathError(err, "list directory", path);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status ReadTextFileNotFound(const std::string& path) {
  return PathError(ENOENT, "open", path);
}

absl::Status ListDirectoryNotFound(const std::string& path) {
  return PathError(ENOENT, "list directory", path);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return !HasNul(path) && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace perfcounters::internal
