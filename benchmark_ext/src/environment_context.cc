// environment_context.cc: the fingerprint in gbench's JSON context.
#include "environment_context.h"

#include <elf.h>
#include <link.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perfcounters/environment.h"

namespace perfcounters::benchmark_ext_internal {
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

// The GNU build-id note in the loaded segments of one object, as hex.
int FindBuildId(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const size_t align = ph.p_align == 8 ? 8 : 4;
    const auto pad = [align](size_t n) {
      return (n + align - 1) & ~(align - 1);
    };
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (end - p >= static_cast<ptrdiff_t>(sizeof(ElfW(Nhdr)))) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof(note));
      const char* name = p + sizeof(note);
      const char* desc = name + pad(note.n_namesz);
      const char* next = desc + pad(note.n_descsz);
      if (next > end || next <= p) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0 && note.n_descsz > 0) {
        for (size_t b = 0; b < note.n_descsz; ++b) {
          absl::StrAppend(out, absl::Hex(static_cast<unsigned char>(desc[b]),
                                         absl::kZeroPad2));
        }
        return 1;
      }
      p = next;
    }
  }
  // The main program comes first: its note or none.
  return 1;
}

}  // namespace

std::optional<std::string> MainProgramBuildId() {
  std::string id;
  dl_iterate_phdr(FindBuildId, &id);
  if (id.empty()) return std::nullopt;
  return id;
}

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
  if (std::optional<std::string> id = MainProgramBuildId()) {
    env["binary.build_id"] = *id;
  }
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

}  // namespace perfcounters::benchmark_ext_internal
