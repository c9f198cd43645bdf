// environment_context.cc: the fingerprint in gbench's JSON context.
#include "environment_context.h"

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perfcounters/environment.h"

namespace perfcounters::bench_internal {
namespace {

// This compile's compiler, as its predefined macros say.
std::string Compiler() {
#if defined(__clang__)
  return absl::StrCat("clang ", __clang_version__);
#elif defined(__GNUC__)
  return absl::StrCat("gcc ", __VERSION__);
#else
  return "";
#endif
}

// `text` as a JSON string's contents.
std::string JsonEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(c, absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Environment RunEnvironment() {
  Environment env = ReadEnvironment();
  if (std::string compiler = Compiler(); !compiler.empty()) {
    env["build.compiler"] = compiler;
  }
#if defined(__OPTIMIZE__)
  env["build.optimized"] = "yes";
#else
  env["build.optimized"] = "no";
#endif
#if defined(NDEBUG)
  env["build.ndebug"] = "yes";
#else
  env["build.ndebug"] = "no";
#endif
#if defined(PERFCOUNTERS_GBENCH_VERSION)
  if (absl::string_view v = PERFCOUNTERS_GBENCH_VERSION; !v.empty()) {
    env["gbench.version"] = std::string(v);
  }
#endif
  return env;
}

void AddEnvironmentContext() {
  for (const auto& [key, value] : RunEnvironment()) {
    benchmark::AddCustomContext(absl::StrCat("perfcounters.env.", key), value);
  }
}

std::string AppendContextEnd(const std::string& tail,
                             const std::vector<std::string>& members) {
  const size_t close = tail.rfind('}');
  if (close == std::string::npos || members.empty()) return tail;
  std::string out = tail.substr(0, close);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
    out.pop_back();
  }
  absl::StrAppend(&out, ",\n  \"context_end\": {\n    ",
                  absl::StrJoin(members, ",\n    "), "\n  }\n",
                  tail.substr(close));
  return out;
}

namespace {

// gbench's JSON reporter, its Finalize's text extended by context_end.
class EnvironmentEndReporter : public benchmark::BenchmarkReporter {
 public:
  explicit EnvironmentEndReporter(
      std::unique_ptr<benchmark::BenchmarkReporter> inner)
      : inner_(std::move(inner)) {}
  bool ReportContext(const Context& context) override {
    ShareStreams();
    return inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    ShareStreams();
    inner_->ReportRuns(runs);
  }
  void Finalize() override {
    ShareStreams();
    std::ostringstream tail;
    inner_->SetOutputStream(&tail);
    inner_->Finalize();
    std::vector<std::string> members;
    if (std::optional<std::string> load = ReadLoadAverage()) {
      members.push_back(absl::StrCat("\"perfcounters.env.loadavg.end\": \"",
                                     JsonEscape(*load), "\""));
    }
    GetOutputStream() << AppendContextEnd(tail.str(), members);
    GetOutputStream().flush();
  }

 private:
  void ShareStreams() {
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
  }

  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
};

}  // namespace

std::unique_ptr<benchmark::BenchmarkReporter> WithEnvironmentEnd(
    std::unique_ptr<benchmark::BenchmarkReporter> reporter) {
  if (dynamic_cast<benchmark::JSONReporter*>(reporter.get()) == nullptr) {
    return reporter;
  }
  return std::make_unique<EnvironmentEndReporter>(std::move(reporter));
}

}  // namespace perfcounters::bench_internal
