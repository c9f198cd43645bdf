// gbench_json.cc: the driver of the Google Benchmark JSON reader (see
// gbench_json.h): one pass of nlohmann-json's SAX parser over the input in
// chunks, and what went wrong as a status.
#include "gbench_json.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gbench_json_internal.h"

namespace perfcounters::tools {
namespace gbench_json_internal {

absl::StatusOr<BenchmarkFile> ParseFrom(JsonSource& source,
                                        absl::string_view path,
                                        uint64_t max_bytes,
                                        uint64_t size_hint) {
  const std::string name = ShortForMessage(path);
  try {
    BenchmarkFile file;
    file.source = std::string(path);
    // Every entry takes well over 128 bytes of JSON: reserving by size
    // avoids regrowing (and copying) the vector; capacity never touched
    // costs no memory.
    if (size_hint > 0) file.entries.reserve(size_hint / 128 + 1);
    std::string error;
    bool saw_benchmarks = false;
    const bool ok = ParseSource(source, file, error, saw_benchmarks);
    if (source.too_long()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": more than ", max_bytes,
                       " bytes (the limit, --max-input-mb) and still going; "
                       "expected Google Benchmark JSON output"));
    }
    if (source.read_error() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": cannot read: ", std::strerror(source.read_error())));
    }
    if (source.only_whitespace()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name,
          ": the file is empty; expected Google Benchmark JSON output (run "
          "the benchmark with --benchmark_out=FILE or "
          "--benchmark_format=json)"));
    }
    if (!ok) return absl::InvalidArgumentError(absl::StrCat(name, ": ", error));
    if (!saw_benchmarks) {
      return absl::InvalidArgumentError(absl::StrCat(
          name,
          ": not Google Benchmark output: there is no \"benchmarks\" array at "
          "the top level"));
    }
    return file;
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(
        name, ": out of memory while reading it (", size_hint >> 20,
        " MB); free memory, raise the limit (ulimit -v) or compare fewer "
        "benchmarks"));
  } catch (const std::length_error&) {
    return absl::ResourceExhaustedError(
        absl::StrCat(name, ": out of memory while reading it"));
  }
}

}  // namespace gbench_json_internal

const RunEntryDetails& RunEntryDetailsPtr::get() const {
  static const RunEntryDetails* const kNone = new RunEntryDetails();
  return p_ ? *p_ : *kNone;
}

std::optional<double> NanosecondsPer(absl::string_view unit) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return std::nullopt;
}

absl::StatusOr<BenchmarkFile> ParseBenchmarkJson(absl::string_view text,
                                                 absl::string_view source) {
  size_t offset = 0;
  gbench_json_internal::JsonSource input(
      [&](char* data, size_t size, int*) {
        const size_t n = std::min(size, text.size() - offset);
        std::memcpy(data, text.data() + offset, n);
        offset += n;
        return n;
      },
      UINT64_MAX);
  return gbench_json_internal::ParseFrom(input, source, UINT64_MAX,
                                         text.size());
}

}  // namespace perfcounters::tools
