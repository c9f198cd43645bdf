// whole_file.h: output files written whole or not at all (temporary file
// beside the target, fsync, rename), for the command's outputs
// (tools/output_file.h) and benchmark_ext main's --benchmark_out file. A
// reader, a crash, an interrupt or a full disk never leaves a truncated file
// behind; a failed write leaves the old file as it was and says why.
#ifndef PERFCOUNTERS_INTERNAL_WHOLE_FILE_H_
#define PERFCOUNTERS_INTERNAL_WHOLE_FILE_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters::internal {

// Writes `contents` to `path`. "-" means standard output. A path that names
// an existing file which is not a regular file (a FIFO, /dev/null, a
// terminal) is written in place, since it cannot be renamed over. `inputs`
// are files the caller read: a `path` that is one of them (the same file,
// whatever the spelling) is refused, so an input is never replaced by the
// output. Errors name the path and the reason (errno).
absl::Status WriteFileWhole(const std::string& path, absl::string_view contents,
                            absl::Span<const std::string> inputs = {});

// The contents as pieces: a producer calls `write` with each piece in
// order (the whole text need never be in memory at once).
using PieceWriter = std::function<void(absl::string_view piece)>;
using ContentsProducer = std::function<void(const PieceWriter& write)>;

// WriteFileWhole() of the concatenation of the pieces `produce` writes,
// each written out as it comes (buffered): the target is replaced only
// after the last piece, as above.
absl::Status WriteFileWholeFrom(const std::string& path,
                                const ContentsProducer& produce,
                                absl::Span<const std::string> inputs = {});

// Whether WriteFileWhole(path, ...) could write `path` now: its directory
// takes a temporary file (created and removed again), or the existing
// non-regular file opens for writing. Checked before long work whose result
// goes there.
absl::Status CheckFileWritable(const std::string& path);

}  // namespace perfcounters::internal
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_WHOLE_FILE_H_
