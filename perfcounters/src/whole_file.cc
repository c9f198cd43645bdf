// whole_file.cc: temporary file + fsync + rename (see whole_file.h).
#include "perfcounters/internal/whole_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace perfcounters::internal {
namespace {

absl::Status ErrnoStatus(int err, absl::string_view what) {
  std::string text = absl::StrCat(what, ": ", std::strerror(err));
  if (err == ENOENT || err == ENOTDIR || err == EISDIR) {
    return absl::NotFoundError(text);
  }
  if (err == EACCES || err == EPERM || err == EROFS) {
    return absl::PermissionDeniedError(text);
  }
  if (err == ENOSPC || err == EDQUOT) return absl::ResourceExhaustedError(text);
  return absl::UnavailableError(text);
}

// Writes all of `contents` to `fd`, retrying short writes and EINTR.
int WriteAll(int fd, absl::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

// "dir/.name.tmp.XXXXXX" for "dir/name": beside the target, so that the
// rename stays within one file system.
std::string TemporaryPathFor(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return absl::StrCat(".", path, ".tmp.XXXXXX");
  return absl::StrCat(path.substr(0, slash + 1), ".", path.substr(slash + 1),
                      ".tmp.XXXXXX");
}

// Collects pieces into a buffer and writes it to `fd` when full; the first
// error stops the writing (later pieces are dropped).
class BufferedFd {
 public:
  explicit BufferedFd(int fd) : fd_(fd) { buffer_.reserve(kSize); }
  void Write(absl::string_view piece) {
    if (error_ != 0) return;
    if (buffer_.size() + piece.size() > kSize) Flush();
    if (piece.size() >= kSize) {
      if (error_ == 0) error_ = WriteAll(fd_, piece);
      return;
    }
    buffer_.append(piece.data(), piece.size());
  }
  // errno of the first failed write, or 0.
  int Finish() {
    Flush();
    return error_;
  }

 private:
  static constexpr size_t kSize = 1 << 20;
  void Flush() {
    if (error_ == 0 && !buffer_.empty()) error_ = WriteAll(fd_, buffer_);
    buffer_.clear();
  }
  int fd_;
  int error_ = 0;
  std::string buffer_;
};

int WriteAllFrom(int fd, const ContentsProducer& produce) {
  BufferedFd out(fd);
  produce([&out](absl::string_view piece) { out.Write(piece); });
  return out.Finish();
}

}  // namespace

absl::Status WriteFileWhole(const std::string& path, absl::string_view contents,
                            absl::Span<const std::string> inputs) {
  return WriteFileWholeFrom(
      path, [contents](const PieceWriter& write) { write(contents); }, inputs);
}

absl::Status WriteFileWholeFrom(const std::string& path,
                                const ContentsProducer& produce,
                                absl::Span<const std::string> inputs) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "empty output path (give a file name, or - for standard output)");
  }
  if (path == "-") {
    std::fflush(stdout);
    if (const int err = WriteAllFrom(STDOUT_FILENO, produce); err != 0) {
      return ErrnoStatus(err, "cannot write standard output");
    }
    return absl::OkStatus();
  }
  struct stat target;
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (exists) {
    for (const std::string& input : inputs) {
      struct stat in;
      if (::stat(input.c_str(), &in) == 0 && in.st_dev == target.st_dev &&
          in.st_ino == target.st_ino) {
        return absl::InvalidArgumentError(
            absl::StrCat("refusing to write ", path, ": it is the input file ",
                         input, " (choose another output path)"));
      }
    }
    if (S_ISDIR(target.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot write ", path, ": it is a directory"));
    }
    if (!S_ISREG(target.st_mode)) {
      // A FIFO, a device or a terminal: write in place.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open ", path));
      const int err = WriteAllFrom(fd, produce);
      ::close(fd);
      if (err != 0)
        return ErrnoStatus(err, absl::StrCat("cannot write ", path));
      return absl::OkStatus();
    }
  }
  std::string temp = TemporaryPathFor(path);
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return ErrnoStatus(
        errno, absl::StrCat("cannot write ", path,
                            " (creating the temporary file ", temp, ")"));
  }
  // mkstemp creates 0600: give the file the mode the target has, or the mode
  // a new file would get (0666 less the umask).
  mode_t mode = 0;
  if (exists) {
    mode = target.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  int err = 0;
  try {
    err = WriteAllFrom(fd, produce);
  } catch (...) {
    // The producer failed (out of memory): no file is left behind.
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (err == 0 && ::fchmod(fd, mode) != 0) err = errno;
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(temp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    return ErrnoStatus(
        err, absl::StrCat("cannot write ", path,
                          exists ? " (the old file is unchanged)" : ""));
  }
  return absl::OkStatus();
}

absl::Status CheckFileWritable(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty output path");
  if (path == "-") return absl::OkStatus();
  struct stat target;
  if (::stat(path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot write ", path, ": it is a directory"));
    }
    if (!S_ISREG(target.st_mode)) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0 && errno != ENXIO) {  // ENXIO: a FIFO with no reader yet
        return ErrnoStatus(errno, absl::StrCat("cannot open ", path));
      }
      if (fd >= 0) ::close(fd);
      return absl::OkStatus();
    }
  }
  std::string temp = TemporaryPathFor(path);
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot write ", path));
  }
  ::close(fd);
  ::unlink(temp.c_str());
  return absl::OkStatus();
}

}  // namespace perfcounters::internal
