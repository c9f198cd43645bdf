// input_text.h: the tools' inputs and the input text they echo: reading a
// file or pipe with a size limit (OpenInput, ReadFileToString), and input
// text made safe to print in a table or a message (EscapeControlBytes,
// ShortForMessage). Every layer of tools/ may use them; they know nothing
// of Google Benchmark's format.
#ifndef PERFCOUNTERS_TOOLS_INPUT_TEXT_H_
#define PERFCOUNTERS_TOOLS_INPUT_TEXT_H_

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perfcounters::tools {

// Inputs larger than this are refused by default (the largest gbench output
// seen, 10,000 benchmarks x 3 repetitions with aggregates, is 36 MB).
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t{512} << 20;

// Opens `path` for reading ("-" is standard input) and checks what it is: a
// regular file of at most `max_bytes`, or a pipe (whose size the reader
// checks), described in `*st`. Unreadable files are NotFound /
// PermissionDenied / InvalidArgument naming the path; a directory, a device
// or a socket is InvalidArgument, and so is a regular file larger than
// `max_bytes`. The caller closes the FILE.
absl::StatusOr<FILE*> OpenInput(const std::string& path, uint64_t max_bytes,
                                struct stat* st);

// Reads a whole regular file or pipe into memory, with OpenInput's checks;
// a pipe with more than `max_bytes` is InvalidArgument.
absl::StatusOr<std::string> ReadFileToString(
    const std::string& path, uint64_t max_bytes = kDefaultMaxInputBytes);

// `text` with control bytes (< 0x20, 0x7f) written as \n, \t, \xNN and
// backslashes doubled, so that a benchmark name cannot move the cursor,
// change colours or break a line of a table. Other bytes pass unchanged.
std::string EscapeControlBytes(absl::string_view text);

// `text` (an input echoed in a message: a path, a gate, a filter, a list)
// with control bytes escaped and, when longer than `max` bytes, only its
// start and end around "...(N bytes)...", so that no input makes a message
// longer than a few hundred bytes.
std::string ShortForMessage(absl::string_view text, size_t max = 100);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_INPUT_TEXT_H_
