// output_file.h: the command's output files, written whole or not at all.
//
// Every file the `perfcounters` command writes (report HTML, compare and stat
// output) goes through WriteOutputFile: the contents go to a temporary file
// beside the target, are flushed to disk, and the temporary file is renamed
// over the target. A reader, a crash or a full disk never leaves a truncated
// file behind; a failed write leaves the old file as it was and says why.
#ifndef PERFCOUNTERS_TOOLS_OUTPUT_FILE_H_
#define PERFCOUNTERS_TOOLS_OUTPUT_FILE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace perfcounters::tools {

// internal::WriteFileWhole (perfcounters/internal/whole_file.h): `contents`
// written whole to `path` ("-": standard output), never over one of
// `inputs`; errors name the path and the reason.
absl::Status WriteOutputFile(const std::string& path,
                             absl::string_view contents,
                             absl::Span<const std::string> inputs = {});

// WriteOutputFile for a command: false after printing why not to stderr as
// "perfcounters COMMAND: ...".
bool WriteOutput(const char* command, const std::string& path,
                 const std::string& text,
                 const std::vector<std::string>& inputs);

// Output text in pieces: a producer calls its writer with each piece in
// order (the types of internal::WriteFileWholeFrom).
using OutputPieceWriter = std::function<void(absl::string_view piece)>;
using OutputProducer = std::function<void(const OutputPieceWriter& write)>;

// WriteOutput() of the text `produce` writes in pieces: each piece goes out
// as it comes (buffered), and the target is replaced after the last.
bool WriteOutputFrom(const char* command, const std::string& path,
                     const OutputProducer& produce,
                     const std::vector<std::string>& inputs);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_OUTPUT_FILE_H_
