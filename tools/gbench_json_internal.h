// gbench_json_internal.h: the pieces of the Google Benchmark JSON reader
// (gbench_json.h), not part of the tools' interface.
//
// * JsonSource (gbench_json_tokens.cc): the input, read in chunks from a file,
//   a pipe or memory, with gbench's bare NaN / Infinity tokens rewritten on
//   the way into JSON strings of the same length.
// * ParseSource (gbench_json_handler.cc): nlohmann-json's SAX parser over a
//   JsonSource, building the BenchmarkFile as it goes (no document tree).
// The driver (gbench_json.cc) opens inputs, applies the limits and turns
// what went wrong into a status.
#ifndef PERFCOUNTERS_TOOLS_GBENCH_JSON_INTERNAL_H_
#define PERFCOUNTERS_TOOLS_GBENCH_JSON_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gbench_json.h"

namespace perfcounters::tools::gbench_json_internal {

// The markers the bare tokens become: strings as long as the token (byte
// offsets in errors stay right), inside the quotes.
inline constexpr absl::string_view kNanMarker = "N";           // NaN
inline constexpr absl::string_view kNegNanMarker = "-N";       // -NaN
inline constexpr absl::string_view kInfMarker = "+Infin";      // Infinity
inline constexpr absl::string_view kNegInfMarker = "-Infini";  // -Infinity

// A string value that is one of the markers above: NaN or an infinity.
enum class NonFinite { kNone, kNan, kInf };
inline NonFinite ClassifyMarker(absl::string_view s) {
  if (s == kNanMarker || s == kNegNanMarker) return NonFinite::kNan;
  if (s == kInfMarker || s == kNegInfMarker) return NonFinite::kInf;
  return NonFinite::kNone;
}

// Bytes of input, read as they are parsed (a bounded buffer, never the whole
// input). Bare NaN, -NaN, Infinity and -Infinity in value position, outside
// strings, come out as the markers above in quotes.
class JsonSource {
 public:
  // Fills up to `size` bytes; 0 at the end. Sets *error on a read error.
  using ReadFn = std::function<size_t(char* data, size_t size, int* error)>;

  JsonSource(ReadFn read, uint64_t max_bytes);
  JsonSource(const JsonSource&) = delete;
  JsonSource& operator=(const JsonSource&) = delete;

  // The next byte (0-255) without consuming it, or EOF.
  int Peek() {
    if (pos_ == ready_ && !Refill()) return EOF;
    return static_cast<unsigned char>(buffer_[pos_]);
  }
  void Advance() {
    if (pos_ < ready_ || Refill()) ++pos_;
  }

  // More than max_bytes: the input stopped there.
  bool too_long() const { return too_long_; }
  // errno of a failed read, or 0.
  int read_error() const { return read_error_; }
  // Nothing but whitespace so far.
  bool only_whitespace() const { return only_whitespace_; }

  // An input iterator over the bytes, for nlohmann-json's parser; a
  // default-constructed one is the end.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = char;

    Iterator() = default;
    explicit Iterator(JsonSource* source) : source_(source) {}
    char operator*() const { return static_cast<char>(source_->Peek()); }
    Iterator& operator++() {
      source_->Advance();
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      source_->Advance();
      return before;
    }
    bool operator==(const Iterator& other) const {
      return AtEnd() == other.AtEnd();
    }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    bool AtEnd() const { return source_ == nullptr || source_->Peek() == EOF; }
    JsonSource* source_ = nullptr;
  };

 private:
  // Makes at least one more byte ready; false at the end.
  bool Refill();
  // Rewrites tokens in [ready_, end_) and moves ready_ as far as it can
  // (a token that may continue in the next chunk waits for it).
  void Rewrite();

  ReadFn read_;
  uint64_t max_bytes_;
  uint64_t total_ = 0;
  std::unique_ptr<char[]> buffer_;
  size_t pos_ = 0;    // next byte to hand out
  size_t ready_ = 0;  // bytes before this are rewritten
  size_t end_ = 0;    // bytes before this are read
  bool eof_ = false;
  bool too_long_ = false;
  int read_error_ = 0;
  bool only_whitespace_ = true;
  // The rewriting's state.
  bool in_string_ = false;
  bool escape_ = false;
  char last_significant_ = 0;
};

// The whole read: parses `source`, the input `path`, and says what
// was wrong (malformed, not gbench output, empty, too long, unreadable, out
// of memory) as InvalidArgument or ResourceExhausted naming it. `size_hint`
// is the input's size when known (0 otherwise).
absl::StatusOr<BenchmarkFile> ParseFrom(JsonSource& source,
                                        absl::string_view path,
                                        uint64_t max_bytes, uint64_t size_hint);

// Parses `source` into `out` (whose `source` names it). On failure returns
// false with `error` saying what and where ("malformed JSON at byte N: ...",
// "benchmarks[3].real_time is a string; expected a number").
bool ParseSource(JsonSource& source, BenchmarkFile& out, std::string& error,
                 bool& saw_benchmarks);

// Fields of a benchmark entry that are neither times nor counters.
enum class Field {
  kCounter,
  kName,
  kRunName,
  kRunType,
  kAggregateName,
  kRepetitionIndex,
  kIterations,
  kRealTime,
  kCpuTime,
  kTimeUnit,
  kErrorOccurred,
  kErrorMessage,
  kSkipped,
  kSkipMessage,
  kProfile,  // "perfcounters_profile" (profile_data.h)
  kIgnored,  // metadata: family_index, threads, label, big_o, ...
};

// The field `key` names in a benchmark entry; kCounter for any other key
// (gbench_json_keys.cc).
Field ClassifyField(absl::string_view key);

// A string counter value that says the event was not counted ("<not
// counted>", "<not supported>", as perf writes them, with or without <>).
bool IsNotCountedText(absl::string_view s);

// benchmark_ext's side keys of a counted counter <label>
// (gbench_json_keys.cc):
// "<label>.coverage" (running / enabled) and "<label>.mux_intervals" (the
// rotations a short multiplexed batch spanned); neither is a counter.
enum class SideKey { kNone, kCoverage, kMuxIntervals };

// Which side key `key` is; `label` is set to its counter's label.
SideKey SplitSideKey(absl::string_view key, absl::string_view& label);

// Keeps a side key's value in `entry` (RunEntry::coverages / mux_intervals):
// a number, in [0, 1] for a coverage, above 0 for intervals; anything else
// is no such value and is left out.
void AddSideValue(SideKey key, uint32_t label, bool is_number, double number,
                  RunEntry& entry);

}  // namespace perfcounters::tools::gbench_json_internal

#endif  // PERFCOUNTERS_TOOLS_GBENCH_JSON_INTERNAL_H_
