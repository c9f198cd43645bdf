// gbench_json_entry.cc: the fields of one entry of the "benchmarks" array
// (gbench_json_handler.h): gbench's fields, counters and their side keys,
// checked and converted into a RunEntry.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gbench_json.h"
#include "gbench_json_handler.h"
#include "gbench_json_internal.h"

namespace perfcounters::tools::gbench_json_internal {

bool Handler::Scalar(Kind kind, double number, absl::string_view text,
                     bool flag) {
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

void Handler::SetDetail(std::string RunEntryDetails::*field,
                        absl::string_view text) {
  if (text.empty() && entry_.details.get().*field == "") return;
  entry_.details.mutable_get().*field = std::string(text);
}

bool Handler::StringField(Field field, Kind kind, absl::string_view text,
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

bool Handler::NumberField(Field field, Kind kind, double number,
                          NonFinite non_finite) {
  if (non_finite != NonFinite::kNone) {
    return Fail(absl::StrCat(EntryPath(), ".", key_, " is ",
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

bool Handler::CounterField(Kind kind, double number, absl::string_view text,
                           NonFinite non_finite) {
  // perfcounters' benchmark integration (docs/benchmark_ext.md): a
  // "<label>.not_counted": 1 marks <label> not counted; the side keys
  // (".coverage", ".mux_intervals") describe a counted <label>.
  absl::string_view label;
  if (const SideKey side = SplitSideKey(key_, label); side != SideKey::kNone) {
    AddSideValue(side, Intern(label), kind == Kind::kNumber, number, entry_);
    return true;
  }
  EntryCounter counter;
  if (absl::EndsWith(key_, ".not_counted")) {
    if (kind != Kind::kNumber || number == 0) return true;
    counter.name = Intern(absl::string_view(key_).substr(0, key_.size() - 12));
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

Field Handler::ClassifyKey() {
  for (const auto& [k, f] : recent_keys_) {
    if (k == key_) return f;
  }
  const Field field = ClassifyField(key_);
  if (recent_keys_.size() < 32) recent_keys_.emplace_back(key_, field);
  return field;
}

uint32_t Handler::Intern(absl::string_view name) {
  for (uint32_t i = 0; i < out_.counter_names.size() && i < 16; ++i) {
    if (out_.counter_names[i] == name) return i;
  }
  if (auto it = names_.find(name); it != names_.end()) return it->second;
  const auto index = static_cast<uint32_t>(out_.counter_names.size());
  out_.counter_names.emplace_back(name);
  names_.emplace(std::string(name), index);
  return index;
}

void Handler::Warn(const std::string& message) {
  ++out_.warning_count;
  if (out_.warnings.size() < kMaxWarnings) {
    out_.warnings.push_back(EscapeControlBytes(message));
  }
}

std::string Handler::Shorten(absl::string_view text) {
  if (text.size() <= 40) return std::string(text);
  return absl::StrCat(text.substr(0, 37), "...");
}

void Handler::CheckEntry() {
  const bool sample_entry = entry_.run_type == RunType::kIteration ||
                            entry_.aggregate_name() == "mean" ||
                            entry_.aggregate_name() == "median";
  if (sample_entry && !entry_.error_occurred && !entry_.skipped && !raw_real_ &&
      !raw_cpu_) {
    Warn(absl::StrCat(EntryPath(),
                      " has no real_time and no cpu_time: its times are "
                      "absent"));
  }
  std::pmr::string key(
      absl::StrCat(entry_.run_name, "\n",
                   entry_.run_type == RunType::kIteration
                       ? absl::StrCat("#", entry_.repetition_index)
                       : entry_.aggregate_name()),
      &seen_arena_);
  auto [it, inserted] = seen_.try_emplace(std::move(key), out_.entries.size());
  if (!inserted) {
    Warn(absl::StrCat(
        EntryPath(), " repeats benchmarks[", it->second, "]: the same name, ",
        entry_.run_type == RunType::kIteration
            ? (entry_.repetition_index < 0
                   ? std::string("iteration entry without repetition_index")
                   : absl::StrCat("repetition_index ", entry_.repetition_index))
            : absl::StrCat("aggregate ", entry_.aggregate_name()),
        "; both are used as samples (two runs in one file?)"));
  }
}

bool Handler::FinishEntry() {
  if (entry_.name.empty()) {
    return Fail(absl::StrCat(EntryPath(), " has no \"name\""));
  }
  if (entry_.run_name.empty()) entry_.run_name = entry_.name;
  CheckEntry();
  const double scale = *NanosecondsPer(time_unit_);
  auto convert = [&](const std::optional<double>& raw, const char* what,
                     MaybeDouble& dest) {
    if (!raw) return true;
    const double ns = *raw * scale;
    if (!std::isfinite(ns)) {
      return Fail(absl::StrCat(EntryPath(), ".", what, " (", *raw, " ",
                               time_unit_, ") overflows when converted to ns"));
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

}  // namespace perfcounters::tools::gbench_json_internal
