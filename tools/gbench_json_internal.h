// gbench_json_internal.h: the parser entry point shared by gbench_json.cc
// (parsing) and gbench_json_load.cc (reading files into simdjson's padded
// buffer without a copy). Not part of the tools' interface.
#ifndef PERFCOUNTERS_TOOLS_GBENCH_JSON_INTERNAL_H_
#define PERFCOUNTERS_TOOLS_GBENCH_JSON_INTERNAL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gbench_json.h"
#include "simdjson.h"

namespace perfcounters::tools::gbench_json_internal {

// Parses `text`, which must have simdjson::SIMDJSON_PADDING bytes after its
// end (a padded_string has); rewrites NaN/Infinity tokens in place.
absl::StatusOr<BenchmarkFile> ParsePadded(simdjson::padded_string& text,
                                          absl::string_view source);

}  // namespace perfcounters::tools::gbench_json_internal

#endif  // PERFCOUNTERS_TOOLS_GBENCH_JSON_INTERNAL_H_
