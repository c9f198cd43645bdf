// event_helpers.h: small helpers shared by the tests that open real events
// (event, group, ioctl, capabilities and hardware tests).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_EVENT_HELPERS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_EVENT_HELPERS_H_

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "perfcounters/attr.h"
#include "perfcounters/event_spec.h"
#include "perfcounters/grammar.h"

namespace perfcounters::testing {

// `text` (perf's grammar, one event) parsed with user-only as the default
// (`page-faults` is `page-faults:u`); a test failure and an empty spec when
// it does not parse.
inline EventSpec UserSpec(const char* text) {
  ParseOptions options;
  options.default_user_only = true;
  absl::StatusOr<EventSpec> spec = ParseEvent(text, options);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
  return spec.ok() ? *spec : EventSpec();
}

// read_format of a single event read with ReadCount(), with its id.
inline constexpr uint64_t kCountFormat = PERF_FORMAT_TOTAL_TIME_ENABLED |
                                         PERF_FORMAT_TOTAL_TIME_RUNNING |
                                         PERF_FORMAT_ID;

// A disabled software event (PERF_COUNT_SW_*) readable with ReadCount().
inline Attr SoftwareAttr(uint64_t config) {
  Attr attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.disabled = true;
  attr.read_format = kCountFormat;
  return attr;
}

// A disabled generic hardware event counting user space only (perf's `:u`).
inline Attr HardwareUserAttr(uint64_t config) {
  Attr attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = config;
  attr.disabled = true;
  attr.exclude_kernel = true;
  attr.exclude_hv = true;
  attr.read_format = kCountFormat;
  return attr;
}

// An EventSpec for `attr` labelled `label`.
inline EventSpec Spec(const Attr& attr, const std::string& label) {
  EventSpec spec;
  spec.label = label;
  spec.text = label;
  spec.attr = attr;
  return spec;
}

// A status's message as a std::string (gtest prints Debian's
// absl::string_view character by character).
inline std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

// Number of open file descriptors of this process.
inline int OpenFdCount() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int n = 0;
  while (readdir(dir) != nullptr) ++n;
  closedir(dir);
  return n - 3;  // ".", ".." and the directory's own fd
}

// CPU time of the calling thread in ns.
inline uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

// Spins in user space until the thread has used `ns` of CPU time.
inline void SpinCpuNs(uint64_t ns) {
  const uint64_t start = ThreadCpuNs();
  volatile uint64_t sink = 0;
  while (ThreadCpuNs() - start < ns) {
    for (int i = 0; i < 1000; ++i) sink = sink + i;
  }
}

// Anonymous memory of `pages` pages, not yet touched (no page is mapped in
// until written; transparent huge pages are turned off for it).
class FreshPages {
 public:
  explicit FreshPages(size_t pages) : size_(pages * PageSize()) {
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
    if (base_ != nullptr) madvise(base_, size_, MADV_NOHUGEPAGE);
  }
  ~FreshPages() {
    if (base_ != nullptr) munmap(base_, size_);
  }
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;

  bool ok() const { return base_ != nullptr; }
  // Writes one byte in each page: one page fault per page.
  void Touch() {
    for (size_t off = 0; off < size_; off += PageSize()) {
      *static_cast<volatile char*>(base_ + off) = 1;
    }
  }

  // Writes one byte at page i + offset: one page fault on the first write.
  void Touch(size_t i, size_t offset = 0) {
    *static_cast<volatile char*>(base_ + i * PageSize() + offset) = 1;
  }
  // The address of page i plus `offset` bytes; the region is [begin, end).
  uint64_t addr(size_t i, size_t offset = 0) const {
    return reinterpret_cast<uint64_t>(base_ + i * PageSize() + offset);
  }
  uint64_t begin() const { return reinterpret_cast<uint64_t>(base_); }
  uint64_t end() const { return begin() + size_; }

  static size_t PageSize() {
    return static_cast<size_t>(sysconf(_SC_PAGESIZE));
  }

 private:
  size_t size_;
  char* base_ = nullptr;
};

// Returns the tracefs root with an events/ dir, mounting tracefs at
// /sys/kernel/tracing when running as root and it is not mounted; or
// nullopt with `why` set.
inline std::optional<std::string> TracefsRoot(std::string* why) {
  struct stat st;
  for (const char* root :
       {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    if (stat(absl::StrCat(root, "/events").c_str(), &st) == 0) return root;
  }
  if (geteuid() != 0) {
    *why = "tracefs is not mounted and the test is not root";
    return std::nullopt;
  }
  if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) {
    *why = absl::StrCat("mounting tracefs at /sys/kernel/tracing failed: ",
                        strerror(errno));
    return std::nullopt;
  }
  return "/sys/kernel/tracing";
}

// The id of tracepoint `category/name`, or nullopt with `why` set.
inline std::optional<uint64_t> TracepointId(const std::string& category,
                                            const std::string& name,
                                            std::string* why) {
  std::optional<std::string> root = TracefsRoot(why);
  if (!root) return std::nullopt;
  const std::string path =
      absl::StrCat(*root, "/events/", category, "/", name, "/id");
  std::ifstream in(path);
  uint64_t id = 0;
  if (!(in >> id)) {
    *why = absl::StrCat("cannot read ", path);
    return std::nullopt;
  }
  return id;
}

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_EVENT_HELPERS_H_
