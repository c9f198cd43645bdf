// gbench_json_tokens.cc: JsonSource, the chunked input of the Google
// Benchmark JSON reader with its NaN/Infinity fix-up (see
// gbench_json_internal.h).
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "gbench_json_internal.h"

namespace perfcounters::tools::gbench_json_internal {
namespace {

// The buffer: big enough that refills are rare, small against any input.
constexpr size_t kBufferSize = size_t{1} << 20;
// The longest bare token ("-Infinity").
constexpr size_t kLongestToken = 9;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

JsonSource::JsonSource(ReadFn read, uint64_t max_bytes)
    : read_(std::move(read)),
      max_bytes_(max_bytes),
      buffer_(new char[kBufferSize]) {}

bool JsonSource::Refill() {
  if (pos_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + pos_, end_ - pos_);
    ready_ -= pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  while (ready_ == pos_) {
    if (eof_) return false;
    int error = 0;
    const size_t n = read_(buffer_.get() + end_, kBufferSize - end_, &error);
    if (error != 0) {
      read_error_ = error;
      eof_ = true;
      return false;
    }
    if (n == 0) eof_ = true;
    end_ += n;
    total_ += n;
    if (total_ > max_bytes_) {
      too_long_ = true;
      eof_ = true;
      ready_ = end_ = pos_;
      return false;
    }
    Rewrite();
  }
  return true;
}

void JsonSource::Rewrite() {
  char* data = buffer_.get();
  while (ready_ < end_) {
    const char c = data[ready_];
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        last_significant_ = '"';
      }
      ++ready_;
      continue;
    }
    if (IsSpace(c)) {
      ++ready_;
      continue;
    }
    only_whitespace_ = false;
    if (c == '"') {
      in_string_ = true;
      ++ready_;
      continue;
    }
    const bool value_position = last_significant_ == ':' ||
                                last_significant_ == ',' ||
                                last_significant_ == '[';
    if (value_position && (c == 'N' || c == 'I' || c == '-')) {
      if (end_ - ready_ < kLongestToken && !eof_) return;  // wait for more
      const absl::string_view rest(data + ready_, end_ - ready_);
      bool replaced = false;
      for (const auto& [token, marker] :
           {std::pair{absl::string_view("-Infinity"), kNegInfMarker},
            std::pair{absl::string_view("Infinity"), kInfMarker},
            std::pair{absl::string_view("-NaN"), kNegNanMarker},
            std::pair{absl::string_view("NaN"), kNanMarker}}) {
        if (!absl::StartsWith(rest, token)) continue;
        data[ready_] = '"';
        std::memcpy(data + ready_ + 1, marker.data(), marker.size());
        data[ready_ + token.size() - 1] = '"';  // same length
        ready_ += token.size();
        last_significant_ = '"';
        replaced = true;
        break;
      }
      if (replaced) continue;
    }
    last_significant_ = c;
    ++ready_;
  }
}

}  // namespace perfcounters::tools::gbench_json_internal
