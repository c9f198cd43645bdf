// output_file.h: the command's output files, written whole or not at all.
//
// Every file the `perfcounters` command writes (report HTML, compare and stat
// output) goes through WriteOutputFile: the contents go to a temporary file
// beside the target, are flushed to disk, and the temporary file is renamed
// over the target. A reader, a crash or a full disk never leaves a truncated
// file behind; a failed write leaves the old file as it was and says why.
#ifndef PERFCOUNTERS_TOOLS_OUTPUT_FILE_H_
#define PERFCOUNTERS_TOOLS_OUTPUT_FILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace perfcounters::tools {

// Writes `contents` to `path`. "-" means standard output. A path that names
// an existing file which is not a regular file (a FIFO, /dev/null, a
// terminal) is written in place, since it cannot be renamed over. `inputs`
// are the files the command read: a `path` that is one of them (the same
// file, whatever the spelling) is refused, so an input is never replaced by
// the output. Errors name the path and the reason (errno).
absl::Status WriteOutputFile(const std::string& path,
                             absl::string_view contents,
                             absl::Span<const std::string> inputs = {});

// WriteOutputFile for a command: false after printing why not to stderr as
// "perfcounters COMMAND: ...".
bool WriteOutput(const char* command, const std::string& path,
                 const std::string& text,
                 const std::vector<std::string>& inputs);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_OUTPUT_FILE_H_
