// input_text.cc: reading an input with limits (regular files and pipes
// only, at most max_bytes; "-" is standard input), and input text made safe
// to print (see input_text.h).
#include "input_text.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::tools {
namespace {

absl::Status TooLong(const std::string& path, uint64_t max_bytes) {
  return absl::InvalidArgumentError(
      absl::StrCat(ShortForMessage(path), ": more than ", max_bytes,
                   " bytes (the limit, --max-input-mb) and still going; "
                   "expected Google Benchmark JSON output"));
}

}  // namespace

absl::StatusOr<FILE*> OpenInput(const std::string& path, uint64_t max_bytes,
                                struct stat* st) {
  // "-" is standard input (a duplicate, so that closing it leaves fd 0).
  FILE* f = nullptr;
  if (path == "-") {
    const int fd = dup(STDIN_FILENO);
    f = fd < 0 ? nullptr : fdopen(fd, "rb");
    if (f == nullptr && fd >= 0) close(fd);
  } else {
    f = std::fopen(path.c_str(), "rb");
  }
  if (f == nullptr) {
    const int err = errno;
    const std::string message = absl::StrCat(
        ShortForMessage(path), ": cannot open: ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    if (err == EACCES) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  if (fstat(fileno(f), st) != 0) {
    const int err = errno;
    std::fclose(f);
    return absl::InvalidArgumentError(absl::StrCat(
        ShortForMessage(path), ": cannot stat: ", std::strerror(err)));
  }
  const char* kind = nullptr;
  if (S_ISDIR(st->st_mode)) kind = "a directory";
  if (S_ISCHR(st->st_mode)) kind = "a character device";
  if (S_ISBLK(st->st_mode)) kind = "a block device";
  if (S_ISSOCK(st->st_mode)) kind = "a socket";
  if (kind != nullptr) {
    std::fclose(f);
    return absl::InvalidArgumentError(absl::StrCat(
        ShortForMessage(path), ": is ", kind,
        ", not a file; expected Google Benchmark JSON output (a regular file "
        "or a pipe)"));
  }
  if (S_ISREG(st->st_mode) && static_cast<uint64_t>(st->st_size) > max_bytes) {
    std::fclose(f);
    return absl::InvalidArgumentError(absl::StrCat(
        ShortForMessage(path), ": is ", st->st_size,
        " bytes, more than the limit of ", max_bytes, " (--max-input-mb)"));
  }
  return f;
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             uint64_t max_bytes) {
  struct stat st;
  ASSIGN_OR_RETURN(FILE * f, OpenInput(path, max_bytes, &st));
  std::string data;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    data.resize(static_cast<size_t>(st.st_size));
    data.resize(std::fread(data.data(), 1, data.size(), f));
  }
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
    data.append(buffer, n);
    if (data.size() > max_bytes) {
      std::fclose(f);
      return TooLong(path, max_bytes);
    }
  }
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) {
    return absl::InvalidArgumentError(absl::StrCat(
        ShortForMessage(path), ": cannot read: ", std::strerror(err)));
  }
  return data;
}

std::string EscapeControlBytes(absl::string_view text) {
  size_t special = 0;
  for (unsigned char c : text) special += (c < 0x20 || c == 0x7f);
  if (special == 0) return std::string(text);
  std::string out;
  out.reserve(text.size() + special * 3);
  for (unsigned char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string ShortForMessage(absl::string_view text, size_t max) {
  if (text.size() <= max) return EscapeControlBytes(text);
  // Never cut a UTF-8 character.
  auto boundary = [&](size_t i) {
    while (i > 0 && i < text.size() &&
           (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) {
      --i;
    }
    return i;
  };
  const size_t head = boundary(max * 2 / 3);
  const size_t tail = boundary(text.size() - max / 3);
  return absl::StrCat(EscapeControlBytes(text.substr(0, head)), "...(",
                      text.size(), " bytes)...",
                      EscapeControlBytes(text.substr(tail)));
}

}  // namespace perfcounters::tools
