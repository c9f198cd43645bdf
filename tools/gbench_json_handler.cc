// gbench_json_handler.cc: the SAX handler of the Google Benchmark JSON
// reader (gbench_json_handler.h): the document's structure, captured
// members, and nlohmann-json's events into the handler.
#include "gbench_json_handler.h"

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gbench_json.h"
#include "gbench_json_internal.h"
#include "nlohmann/json.hpp"
#include "profile_data.h"

namespace perfcounters::tools::gbench_json_internal {

bool Handler::Null() {
  if (capture_) return CaptureValue(nullptr);
  return Scalar(Kind::kNull, 0, {}, false);
}

bool Handler::Bool(bool b) {
  if (capture_) return CaptureValue(b);
  return Scalar(Kind::kBool, 0, {}, b);
}

bool Handler::Number(double v) {
  if (capture_) return CaptureValue(v);
  return Scalar(Kind::kNumber, v, {}, false);
}

bool Handler::String(absl::string_view s) {
  if (capture_) {
    // NaN/Infinity tokens come back as numbers (the reader says so).
    switch (ClassifyMarker(s)) {
      case NonFinite::kNan:
        return CaptureValue(std::numeric_limits<double>::quiet_NaN());
      case NonFinite::kInf:
        return CaptureValue(std::numeric_limits<double>::infinity());
      case NonFinite::kNone:
        return CaptureValue(std::string(s));
    }
  }
  return Scalar(Kind::kString, 0, s, false);
}

bool Handler::StartObject() {
  if (capture_ || StartCapture()) {
    capture_->StartObject();
    return true;
  }
  ++depth_;
  if (depth_ == 1) return true;
  // benchmark_ext writes what it learns at the end of the run (the load
  // average, docs/environment.md) in "context_end", after "benchmarks".
  if (depth_ == 2 && (key_ == "context" || key_ == "context_end")) {
    in_context_ = true;
    return true;
  }
  if (depth_ == 2 && key_ == "benchmarks") {
    return Fail(
        "\"benchmarks\" is an object; Google Benchmark writes an array");
  }
  if (depth_ == 3 && in_benchmarks_) {
    entry_ = RunEntry{};
    entry_.counters.reserve(counters_hint_);
    raw_real_ = raw_cpu_ = std::nullopt;
    time_unit_ = "ns";
    in_entry_ = true;
    return true;
  }
  if (depth_ == 4 && in_entry_) return NestedValue("an object");
  return true;  // nested objects elsewhere are skipped
}

bool Handler::EndObject() {
  if (capture_) return CaptureEnd();
  if (depth_ == 3 && in_entry_) {
    if (!FinishEntry()) return false;
    in_entry_ = false;
  }
  if (depth_ == 2) in_context_ = false;
  --depth_;
  return true;
}

bool Handler::StartArray() {
  if (capture_ || StartCapture()) {
    capture_->StartArray();
    return true;
  }
  ++depth_;
  if (depth_ == 1) {
    return Fail(
        "the top level is an array; Google Benchmark JSON is an object "
        "with a \"benchmarks\" array");
  }
  if (depth_ == 2 && key_ == "benchmarks") {
    in_benchmarks_ = true;
    saw_benchmarks_ = true;
    return true;
  }
  if (depth_ == 3 && in_benchmarks_) {
    return Fail(absl::StrCat("benchmarks[", out_.entries.size(),
                             "] is an array; expected an object"));
  }
  if (depth_ == 4 && in_entry_) return NestedValue("an array");
  return true;
}

bool Handler::EndArray() {
  if (capture_) return CaptureEnd();
  if (depth_ == 2) in_benchmarks_ = false;
  --depth_;
  return true;
}

bool Handler::Key(absl::string_view k) {
  if (capture_) {
    capture_->Key(k);
    return true;
  }
  key_.assign(k.data(), k.size());
  return true;
}

bool Handler::SyntaxError(size_t position, std::string what) {
  // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
  if (auto pos = what.find("] ");
      what.starts_with("[json.") && pos != std::string::npos) {
    what = what.substr(pos + 2);
  }
  return Fail(absl::StrFormat("malformed JSON at byte %d: %s",
                              position > 0 ? position - 1 : 0, what));
}

bool Handler::StartCapture() {
  if (depth_ == 2 && in_context_) {
    capture_.emplace();
    context_key_ = key_;
    return true;
  }
  if (depth_ != 3 || !in_entry_ || key_ != "perfcounters_profile") {
    return false;
  }
  capture_.emplace();
  return true;
}

bool Handler::CaptureValue(nlohmann::json v) {
  capture_->Value(std::move(v));
  return capture_->Done() ? FinishCapture() : true;
}

bool Handler::CaptureEnd() {
  capture_->End();
  return capture_->Done() ? FinishCapture() : true;
}

bool Handler::FinishCapture() {
  if (context_key_) {
    out_.context_json.emplace_back(*std::move(context_key_),
                                   capture_->result().dump());
    context_key_.reset();
    capture_.reset();
    return true;
  }
  std::vector<std::string> warnings;
  absl::StatusOr<BenchmarkProfile> profile = ReadProfile(
      capture_->result(), absl::StrCat(EntryPath(), ".perfcounters_profile"),
      &warnings);
  capture_.reset();
  for (const std::string& w : warnings) Warn(w);
  if (!profile.ok()) return Fail(std::string(profile.status().message()));
  entry_.details.mutable_get().profile =
      std::make_shared<const BenchmarkProfile>(*std::move(profile));
  return true;
}

bool Handler::Fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
  return false;
}

std::string Handler::EntryPath() const {
  std::string path = absl::StrCat("benchmarks[", out_.entries.size(), "]");
  if (!entry_.name.empty()) absl::StrAppend(&path, " (\"", entry_.name, "\")");
  return path;
}

const char* Handler::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "a boolean";
    case Kind::kNumber:
      return "a number";
    case Kind::kString:
      return "a string";
  }
  return "?";
}

bool Handler::NestedValue(const char* kind) {
  const Field field = ClassifyKey();
  if (field == Field::kIgnored) return true;
  if (field == Field::kCounter) {
    Warn(absl::StrCat(EntryPath(), ".", key_, " is ", kind,
                      ", not a number: not used as a counter"));
    return true;
  }
  const char* expected = "a string";
  if (field == Field::kErrorOccurred || field == Field::kSkipped) {
    expected = "true or false";
  } else if (field == Field::kRepetitionIndex || field == Field::kIterations ||
             field == Field::kRealTime || field == Field::kCpuTime) {
    expected = "a number";
  }
  return Fail(absl::StrCat(EntryPath(), ".", key_, " is ", kind, "; expected ",
                           expected));
}

bool Handler::WrongKind(Kind kind, const char* expected) {
  return Fail(absl::StrCat(EntryPath(), ".", key_, " is ", KindName(kind),
                           "; expected ", expected));
}

namespace {

using json = nlohmann::json;

// nlohmann-json's SAX interface over Handler.
class NlohmannSax {
 public:
  explicit NlohmannSax(Handler& h) : h_(h) {}
  bool null() { return h_.Null(); }
  bool boolean(bool b) { return h_.Bool(b); }
  bool number_integer(json::number_integer_t v) {
    return h_.Number(static_cast<double>(v));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return h_.Number(static_cast<double>(v));
  }
  bool number_float(json::number_float_t v, const std::string&) {
    return h_.Number(v);
  }
  bool string(std::string& s) { return h_.String(s); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return h_.StartObject(); }
  bool end_object() { return h_.EndObject(); }
  bool start_array(std::size_t) { return h_.StartArray(); }
  bool end_array() { return h_.EndArray(); }
  bool key(std::string& k) { return h_.Key(k); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) {
    return h_.SyntaxError(position, ex.what());
  }

 private:
  Handler& h_;
};

}  // namespace

bool ParseSource(JsonSource& source, BenchmarkFile& out, std::string& error,
                 bool& saw_benchmarks) {
  Handler handler(out);
  NlohmannSax sax(handler);
  const bool ok = json::sax_parse(JsonSource::Iterator(&source),
                                  JsonSource::Iterator(), &sax);
  error = handler.error();
  saw_benchmarks = handler.saw_benchmarks();
  return ok;
}

}  // namespace perfcounters::tools::gbench_json_internal
