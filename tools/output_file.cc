// output_file.cc: the command's output files (see output_file.h).
#include "output_file.h"

#include <cstdio>
#include <string>
#include <vector>

#include "perfcounters/internal/whole_file.h"

namespace perfcounters::tools {

absl::Status WriteOutputFile(const std::string& path,
                             absl::string_view contents,
                             absl::Span<const std::string> inputs) {
  return internal::WriteFileWhole(path, contents, inputs);
}

bool WriteOutput(const char* command, const std::string& path,
                 const std::string& text,
                 const std::vector<std::string>& inputs) {
  return WriteOutputFrom(
      command, path, [&text](const OutputPieceWriter& write) { write(text); },
      inputs);
}

bool WriteOutputFrom(const char* command, const std::string& path,
                     const OutputProducer& produce,
                     const std::vector<std::string>& inputs) {
  const absl::Status written =
      internal::WriteFileWholeFrom(path, produce, inputs);
  if (!written.ok()) {
    std::fprintf(stderr, "perfcounters %s: %s\n", command,
                 std::string(written.message()).c_str());
  }
  return written.ok();
}

}  // namespace perfcounters::tools
