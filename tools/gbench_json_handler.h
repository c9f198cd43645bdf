// gbench_json_handler.h: the SAX handler of the Google Benchmark JSON
// reader (see gbench_json_internal.h), not part of the tools' interface:
// nlohmann-json's events, one entry of the "benchmarks" array at a time,
// into a BenchmarkFile. The document's structure (objects, arrays, captured
// members) is in gbench_json_handler.cc, an entry's fields in
// gbench_json_entry.cc.
#ifndef PERFCOUNTERS_TOOLS_GBENCH_JSON_HANDLER_H_
#define PERFCOUNTERS_TOOLS_GBENCH_JSON_HANDLER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "gbench_json.h"
#include "gbench_json_internal.h"
#include "nlohmann/json.hpp"
#include "oom_safe_map.h"
#include "profile_data.h"

namespace perfcounters::tools::gbench_json_internal {

// The SAX handler. Depth 1 is the top-level object, depth 2 the "context"
// object or "benchmarks" array, depth 3 the fields of one entry.
class Handler {
 public:
  explicit Handler(BenchmarkFile& out) : out_(out) {}

  bool Null();
  bool Bool(bool b);
  bool Number(double v);
  bool String(absl::string_view s);

  bool StartObject();
  bool EndObject();
  bool StartArray();
  bool EndArray();
  bool Key(absl::string_view k);
  // `position` counts the bytes nlohmann's lexer read; the error is
  // reported at the last of them (0-based; the file size for a truncated
  // file).
  bool SyntaxError(size_t position, std::string what);

  bool saw_benchmarks() const { return saw_benchmarks_; }
  const std::string& error() const { return error_; }

 private:
  enum class Kind { kNull, kBool, kNumber, kString };

  // The value of an entry's "perfcounters_profile" member is collected
  // whole and read by ReadProfile() when it ends.
  // So is a member of the context that is an array or an object (gbench's
  // "caches", "load_avg"), kept as its JSON text.
  bool StartCapture();
  bool CaptureValue(nlohmann::json v);
  bool CaptureEnd();
  bool FinishCapture();

  bool Fail(std::string message);

  std::string EntryPath() const;

  static const char* KindName(Kind kind);

  // An array or object as the value of an entry's field: bad input for
  // the fields Google Benchmark writes as one value, a warning (like a
  // string) for a would-be counter; metadata is skipped.
  bool NestedValue(const char* kind);

  bool WrongKind(Kind kind, const char* expected);

  bool Scalar(Kind kind, double number, absl::string_view text, bool flag);

  // Sets a text field of the entry's details; an empty text makes none.
  void SetDetail(std::string RunEntryDetails::*field, absl::string_view text);

  // A field Google Benchmark writes as a string.
  bool StringField(Field field, Kind kind, absl::string_view text,
                   NonFinite non_finite);

  // A field Google Benchmark writes as a number.
  bool NumberField(Field field, Kind kind, double number, NonFinite non_finite);

  // A counter, a not-counted mark or a side key of one.
  bool CounterField(Kind kind, double number, absl::string_view text,
                    NonFinite non_finite);

  // The field a key names. Entries repeat the same few keys, so the last
  // keys seen are remembered (no hashing on the common path).
  Field ClassifyKey();

  uint32_t Intern(absl::string_view name);

  void Warn(const std::string& message);

  static std::string Shorten(absl::string_view text);

  // Warnings about a complete entry: no times, or a repeated name.
  void CheckEntry();

  bool FinishEntry();

  BenchmarkFile& out_;
  int depth_ = 0;
  std::string key_;
  bool in_context_ = false;
  bool in_benchmarks_ = false;
  bool in_entry_ = false;
  bool saw_benchmarks_ = false;
  RunEntry entry_;
  size_t counters_hint_ = 0;
  std::optional<double> raw_real_, raw_cpu_;
  std::string time_unit_ = "ns";
  OomSafeMap<std::string, uint32_t> names_;
  std::vector<std::pair<std::string, Field>> recent_keys_;
  // (run_name, repetition or aggregate) -> index of its first entry. Its
  // nodes and keys live in an arena of their own, released whole after
  // parsing: allocated between the entries' strings, they would leave
  // holes of about 100 bytes an entry that the comparison cannot reuse.
  std::pmr::monotonic_buffer_resource seen_arena_;
  std::pmr::unordered_map<std::pmr::string, size_t,
                          oom_safe_internal::StringHash, std::equal_to<>>
      seen_{&seen_arena_};
  std::optional<JsonValueBuilder> capture_;
  // The context member being captured, if it is one.
  std::optional<std::string> context_key_;
  std::string error_;
};

}  // namespace perfcounters::tools::gbench_json_internal

#endif  // PERFCOUNTERS_TOOLS_GBENCH_JSON_HANDLER_H_
