// gbench_json_load.cc: reading Google Benchmark JSON files with limits
// (input_text.h's OpenInput: regular files and pipes only, at most
// max_bytes; "-" is standard input), and what a loaded file carries beside
// its entries: its warnings and its profiles (see gbench_json.h).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gbench_json.h"
#include "gbench_json_internal.h"
#include "input_text.h"
#include "oom_safe_map.h"
#include "perfcounters/internal/status_macros.h"
#include "profile_data.h"

namespace perfcounters::tools {

absl::StatusOr<BenchmarkFile> LoadBenchmarkJson(const std::string& path,
                                                uint64_t max_bytes) {
  struct stat st;
  ASSIGN_OR_RETURN(FILE * f, OpenInput(path, max_bytes, &st));
  gbench_json_internal::JsonSource input(
      [f](char* data, size_t size, int* error) {
        const size_t n = std::fread(data, 1, size, f);
        if (n == 0 && std::ferror(f)) *error = errno != 0 ? errno : EIO;
        return n;
      },
      max_bytes);
  absl::StatusOr<BenchmarkFile> file = gbench_json_internal::ParseFrom(
      input, path, max_bytes,
      S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0);
  std::fclose(f);
  return file;
}

void PrintWarnings(const char* command, const BenchmarkFile& file) {
  for (const std::string& w : file.warnings) {
    std::fprintf(stderr, "perfcounters %s: warning: %s: %s\n", command,
                 EscapeControlBytes(file.source).c_str(), w.c_str());
  }
  if (file.warning_count > file.warnings.size()) {
    std::fprintf(stderr, "perfcounters %s: warning: %s: %zu more warnings\n",
                 command, EscapeControlBytes(file.source).c_str(),
                 file.warning_count - file.warnings.size());
  }
}

std::vector<std::string> WarningLines(const BenchmarkFile& file) {
  std::vector<std::string> lines;
  for (const std::string& w : file.warnings) {
    lines.push_back(absl::StrCat(file.source, ": ", w));
  }
  if (file.warning_count > file.warnings.size()) {
    lines.push_back(absl::StrCat(file.source, ": ",
                                 file.warning_count - file.warnings.size(),
                                 " more warnings"));
  }
  return lines;
}

std::vector<NamedProfile> Profiles(const BenchmarkFile& file) {
  std::vector<NamedProfile> out;
  OomSafeMap<std::string, size_t> index;
  // Per benchmark, the copies already added (identical ones count once).
  std::vector<std::vector<const BenchmarkProfile*>> seen;
  for (const RunEntry& e : file.entries) {
    if (e.profile() == nullptr) continue;
    auto [it, inserted] = index.try_emplace(e.run_name, out.size());
    if (inserted) {
      out.push_back({e.run_name, *e.profile()});
      seen.push_back({e.profile().get()});
      continue;
    }
    auto& copies = seen[it->second];
    if (std::any_of(
            copies.begin(), copies.end(),
            [&](const BenchmarkProfile* p) { return *p == *e.profile(); })) {
      continue;
    }
    copies.push_back(e.profile().get());
    MergeProfile(out[it->second].profile, *e.profile());
  }
  return out;
}

}  // namespace perfcounters::tools
