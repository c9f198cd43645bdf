// gbench_json_handler.cc: the SAX handler of the Google Benchmark JSON
// reader (see gbench_json_internal.h): nlohmann-json's events, one entry of
// the "benchmarks" array at a time, into a BenchmarkFile.
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gbench_json.h"
#include "gbench_json_internal.h"
#include "nlohmann/json.hpp"
#include "oom_safe_map.h"
#include "profile_data.h"

namespace perfcounters::tools::gbench_json_internal {
namespace {

using json = nlohmann::json;

// The SAX handler. Depth 1 is the top-level object, depth 2 the "context"
// object or "benchmarks" array, depth 3 the fields of one entry.
class Handler {
 public:
  explicit Handler(BenchmarkFile& out) : out_(out) {}

  bool Null() {
    if (capture_) return CaptureValue(nullptr);
    return Scalar(Kind::kNull, 0, {}, false);
  }
  bool Bool(bool b) {
    if (capture_) return CaptureValue(b);
    return Scalar(Kind::kBool, 0, {}, b);
  }
  bool Number(double v) {
    if (capture_) return CaptureValue(v);
    return Scalar(Kind::kNumber, v, {}, false);
  }
  bool String(absl::string_view s) {
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

  bool StartObject() {
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
  bool EndObject() {
    if (capture_) return CaptureEnd();
    if (depth_ == 3 && in_entry_) {
      if (!FinishEntry()) return false;
      in_entry_ = false;
    }
    if (depth_ == 2) in_context_ = false;
    --depth_;
    return true;
  }
  bool StartArray() {
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
  bool EndArray() {
    if (capture_) return CaptureEnd();
    if (depth_ == 2) in_benchmarks_ = false;
    --depth_;
    return true;
  }
  bool Key(absl::string_view k) {
    if (capture_) {
      capture_->Key(k);
      return true;
    }
    key_.assign(k.data(), k.size());
    return true;
  }
  // `position` counts the bytes nlohmann's lexer read; the error is
  // reported at the last of them (0-based; the file size for a truncated
  // file).
  bool SyntaxError(size_t position, std::string what) {
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    if (auto pos = what.find("] ");
        what.starts_with("[json.") && pos != std::string::npos) {
      what = what.substr(pos + 2);
    }
    return Fail(absl::StrFormat("malformed JSON at byte %d: %s",
                                position > 0 ? position - 1 : 0, what));
  }

  bool saw_benchmarks() const { return saw_benchmarks_; }
  const std::string& error() const { return error_; }

 private:
  enum class Kind { kNull, kBool, kNumber, kString };

  // The value of an entry's "perfcounters_profile" member is collected
  // whole and read by ReadProfile() when it ends.
  // So is a member of the context that is an array or an object (gbench's
  // "caches", "load_avg"), kept as its JSON text.
  bool StartCapture() {
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
  bool CaptureValue(nlohmann::json v) {
    capture_->Value(std::move(v));
    return capture_->Done() ? FinishCapture() : true;
  }
  bool CaptureEnd() {
    capture_->End();
    return capture_->Done() ? FinishCapture() : true;
  }
  bool FinishCapture() {
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
    for (std::string& w : warnings) Warn(std::move(w));
    if (!profile.ok()) return Fail(std::string(profile.status().message()));
    entry_.details.mutable_get().profile =
        std::make_shared<const BenchmarkProfile>(*std::move(profile));
    return true;
  }

  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  std::string EntryPath() const {
    std::string path = absl::StrCat("benchmarks[", out_.entries.size(), "]");
    if (!entry_.name.empty())
      absl::StrAppend(&path, " (\"", entry_.name, "\")");
    return path;
  }

  static const char* KindName(Kind kind) {
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

  // An array or object as the value of an entry's field: bad input for
  // the fields Google Benchmark writes as one value, a warning (like a
  // string) for a would-be counter; metadata is skipped.
  bool NestedValue(const char* kind) {
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
    } else if (field == Field::kRepetitionIndex ||
               field == Field::kIterations || field == Field::kRealTime ||
               field == Field::kCpuTime) {
      expected = "a number";
    }
    return Fail(absl::StrCat(EntryPath(), ".", key_, " is ", kind,
                             "; expected ", expected));
  }

  bool WrongKind(Kind kind, const char* expected) {
    return Fail(absl::StrCat(EntryPath(), ".", key_, " is ", KindName(kind),
                             "; expected ", expected));
  }

  bool Scalar(Kind kind, double number, absl::string_view text, bool flag) {
    if (depth_ == 0) {
      return Fail(
          "the top level is a single value; Google Benchmark JSON is an "
          "object with a \"benchmarks\" array");
    }
    if (depth_ == 1 && key_ == "benchmarks") {
      return Fail(absl::StrCat("\"benchmarks\" is ", KindName(kind),
                               "; Google Benchmark writes an array"));
    }
    if (depth_ == 2 && in_context_) {
      switch (kind) {
        case Kind::kString:
          out_.context.emplace_back(key_, std::string(text));
          break;
        case Kind::kNumber:
          out_.context.emplace_back(key_, absl::StrCat(number));
          break;
        case Kind::kBool:
          out_.context.emplace_back(key_, flag ? "true" : "false");
          break;
        case Kind::kNull:
          break;
      }
      return true;
    }
    if (depth_ == 2 && in_benchmarks_) {
      return Fail(absl::StrCat("benchmarks[", out_.entries.size(), "] is ",
                               KindName(kind), "; expected an object"));
    }
    if (depth_ != 3 || !in_entry_) return true;

    const NonFinite non_finite =
        kind == Kind::kString ? ClassifyMarker(text) : NonFinite::kNone;
    const Field field = ClassifyKey();
    switch (field) {
      case Field::kName:
      case Field::kRunName:
      case Field::kRunType:
      case Field::kAggregateName:
      case Field::kTimeUnit:
      case Field::kErrorMessage:
      case Field::kSkipMessage:
        return StringField(field, kind, text, non_finite);
      case Field::kErrorOccurred:
        if (kind != Kind::kBool) return WrongKind(kind, "true or false");
        entry_.error_occurred = flag;
        return true;
      case Field::kSkipped:
        // gbench >= 1.8 writes a boolean; accept a reason string too.
        if (kind == Kind::kBool) {
          entry_.skipped = flag;
        } else if (kind == Kind::kString && non_finite == NonFinite::kNone) {
          entry_.skipped = !text.empty() && text != "false";
          if (entry_.skipped && entry_.skip_message().empty()) {
            entry_.details.mutable_get().skip_message = std::string(text);
          }
        } else {
          return WrongKind(kind, "true or false");
        }
        return true;
      case Field::kRepetitionIndex:
      case Field::kIterations:
      case Field::kRealTime:
      case Field::kCpuTime:
        return NumberField(field, kind, number, non_finite);
      case Field::kProfile:
        // A scalar: the reader says what it should be.
        capture_.emplace();
        if (kind == Kind::kNull) return CaptureValue(nullptr);
        if (kind == Kind::kBool) return CaptureValue(flag);
        if (kind == Kind::kNumber) return CaptureValue(number);
        return CaptureValue(std::string(text));
      case Field::kIgnored:
        return true;
      case Field::kCounter:
        break;
    }
    return CounterField(kind, number, text, non_finite);
  }

  // Sets a text field of the entry's details; an empty text makes none.
  void SetDetail(std::string RunEntryDetails::*field, absl::string_view text) {
    if (text.empty() && entry_.details.get().*field == "") return;
    entry_.details.mutable_get().*field = std::string(text);
  }

  // A field Google Benchmark writes as a string.
  bool StringField(Field field, Kind kind, absl::string_view text,
                   NonFinite non_finite) {
    if (kind != Kind::kString || non_finite != NonFinite::kNone) {
      return WrongKind(kind, "a string");
    }
    if (field == Field::kName) entry_.name = std::string(text);
    if (field == Field::kRunName) entry_.run_name = std::string(text);
    if (field == Field::kAggregateName) {
      SetDetail(&RunEntryDetails::aggregate_name, text);
    }
    if (field == Field::kErrorMessage) {
      SetDetail(&RunEntryDetails::error_message, text);
    }
    if (field == Field::kSkipMessage) {
      SetDetail(&RunEntryDetails::skip_message, text);
    }
    if (field == Field::kRunType) {
      if (text == "iteration") {
        entry_.run_type = RunType::kIteration;
      } else if (text == "aggregate") {
        entry_.run_type = RunType::kAggregate;
      } else {
        return Fail(absl::StrCat(EntryPath(), ".run_type is \"", text,
                                 "\"; expected \"iteration\" or "
                                 "\"aggregate\""));
      }
    }
    if (field == Field::kTimeUnit) {
      if (!NanosecondsPer(text)) {
        return Fail(absl::StrCat(EntryPath(), ".time_unit is \"", text,
                                 "\"; expected ns, us, ms or s"));
      }
      time_unit_ = std::string(text);
    }
    return true;
  }

  // A field Google Benchmark writes as a number.
  bool NumberField(Field field, Kind kind, double number,
                   NonFinite non_finite) {
    if (non_finite != NonFinite::kNone) {
      return Fail(
          absl::StrCat(EntryPath(), ".", key_, " is ",
                       non_finite == NonFinite::kNan ? "NaN" : "infinite",
                       "; expected a finite number"));
    }
    if (kind != Kind::kNumber) return WrongKind(kind, "a number");
    if (number < 0) {
      return Fail(
          absl::StrCat(EntryPath(), ".", key_, " is negative (", number, ")"));
    }
    if (field == Field::kRepetitionIndex) {
      // A whole number that fits; casting anything else is undefined.
      if (number != std::floor(number) || number > 1e15) {
        return Fail(absl::StrCat(EntryPath(), ".", key_, " is ", number,
                                 "; expected a whole number below 1e15"));
      }
      entry_.repetition_index = static_cast<int64_t>(number);
    }
    if (field == Field::kIterations) entry_.iterations = number;
    if (field == Field::kRealTime) raw_real_ = number;
    if (field == Field::kCpuTime) raw_cpu_ = number;
    return true;
  }

  // A counter, a not-counted mark or a side key of one.
  bool CounterField(Kind kind, double number, absl::string_view text,
                    NonFinite non_finite) {
    // perfcounters' benchmark integration (docs/benchmark_ext.md): a
    // "<label>.not_counted": 1 marks <label> not counted; the side keys
    // (".coverage", ".mux_intervals") describe a counted <label>.
    absl::string_view label;
    if (const SideKey side = SplitSideKey(key_, label);
        side != SideKey::kNone) {
      AddSideValue(side, Intern(label), kind == Kind::kNumber, number, entry_);
      return true;
    }
    EntryCounter counter;
    if (absl::EndsWith(key_, ".not_counted")) {
      if (kind != Kind::kNumber || number == 0) return true;
      counter.name =
          Intern(absl::string_view(key_).substr(0, key_.size() - 12));
      counter.counted = false;
      entry_.counters.push_back(counter);
      return true;
    }
    counter.name = Intern(key_);
    if (kind == Kind::kNumber) {
      counter.value = number;
    } else if (non_finite == NonFinite::kNan || kind == Kind::kNull ||
               (kind == Kind::kString && IsNotCountedText(text))) {
      counter.counted = false;
    } else if (non_finite == NonFinite::kInf) {
      return Fail(absl::StrCat(EntryPath(), ".", key_,
                               " is infinite; expected a finite number (or "
                               "NaN/null for not counted)"));
    } else {
      // Not a number: said, not dropped silently (a counter written as a
      // string, "cycles": "1234", is no counter).
      Warn(absl::StrCat(EntryPath(), ".", key_, " is ", KindName(kind),
                        kind == Kind::kString
                            ? absl::StrCat(" (\"", Shorten(text), "\")")
                            : std::string(),
                        ", not a number: not used as a counter"));
      return true;
    }
    entry_.counters.push_back(counter);
    return true;
  }

  // The field a key names. Entries repeat the same few keys, so the last
  // keys seen are remembered (no hashing on the common path).
  Field ClassifyKey() {
    for (const auto& [k, f] : recent_keys_) {
      if (k == key_) return f;
    }
    const Field field = ClassifyField(key_);
    if (recent_keys_.size() < 32) recent_keys_.emplace_back(key_, field);
    return field;
  }

  uint32_t Intern(absl::string_view name) {
    for (uint32_t i = 0; i < out_.counter_names.size() && i < 16; ++i) {
      if (out_.counter_names[i] == name) return i;
    }
    if (auto it = names_.find(name); it != names_.end()) return it->second;
    const auto index = static_cast<uint32_t>(out_.counter_names.size());
    out_.counter_names.emplace_back(name);
    names_.emplace(std::string(name), index);
    return index;
  }

  void Warn(std::string message) {
    ++out_.warning_count;
    if (out_.warnings.size() < kMaxWarnings) {
      out_.warnings.push_back(EscapeControlBytes(message));
    }
  }

  static std::string Shorten(absl::string_view text) {
    if (text.size() <= 40) return std::string(text);
    return absl::StrCat(text.substr(0, 37), "...");
  }

  // Warnings about a complete entry: no times, or a repeated name.
  void CheckEntry() {
    const bool sample_entry = entry_.run_type == RunType::kIteration ||
                              entry_.aggregate_name() == "mean" ||
                              entry_.aggregate_name() == "median";
    if (sample_entry && !entry_.error_occurred && !entry_.skipped &&
        !raw_real_ && !raw_cpu_) {
      Warn(absl::StrCat(EntryPath(),
                        " has no real_time and no cpu_time: its times are "
                        "absent"));
    }
    std::string key =
        absl::StrCat(entry_.run_name, "\n",
                     entry_.run_type == RunType::kIteration
                         ? absl::StrCat("#", entry_.repetition_index)
                         : entry_.aggregate_name());
    auto [it, inserted] =
        seen_.try_emplace(std::move(key), out_.entries.size());
    if (!inserted) {
      Warn(absl::StrCat(
          EntryPath(), " repeats benchmarks[", it->second, "]: the same name, ",
          entry_.run_type == RunType::kIteration
              ? (entry_.repetition_index < 0
                     ? std::string("iteration entry without repetition_index")
                     : absl::StrCat("repetition_index ",
                                    entry_.repetition_index))
              : absl::StrCat("aggregate ", entry_.aggregate_name()),
          "; both are used as samples (two runs in one file?)"));
    }
  }

  bool FinishEntry() {
    if (entry_.name.empty()) {
      return Fail(absl::StrCat(EntryPath(), " has no \"name\""));
    }
    if (entry_.run_name.empty()) entry_.run_name = entry_.name;
    CheckEntry();
    const double scale = *NanosecondsPer(time_unit_);
    auto convert = [&](const std::optional<double>& raw, const char* what,
                       std::optional<double>& dest) {
      if (!raw) return true;
      const double ns = *raw * scale;
      if (!std::isfinite(ns)) {
        return Fail(absl::StrCat(EntryPath(), ".", what, " (", *raw, " ",
                                 time_unit_,
                                 ") overflows when converted to ns"));
      }
      dest = ns;
      return true;
    };
    if (!convert(raw_real_, "real_time", entry_.real_time_ns) ||
        !convert(raw_cpu_, "cpu_time", entry_.cpu_time_ns)) {
      return false;
    }
    // Entries of a file carry the same counters as a rule: the next one
    // starts with room for as many, and none keeps more room than it uses
    // (many small entries would otherwise take about twice the memory).
    if (entry_.counters.capacity() > entry_.counters.size()) {
      entry_.counters.shrink_to_fit();
    }
    counters_hint_ = entry_.counters.size();
    out_.entries.push_back(std::move(entry_));
    return true;
  }

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
  // (run_name, repetition or aggregate) -> index of its first entry.
  OomSafeMap<std::string, size_t> seen_;
  std::optional<JsonValueBuilder> capture_;
  // The context member being captured, if it is one.
  std::optional<std::string> context_key_;
  std::string error_;
};

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
