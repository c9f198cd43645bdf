// grammar_fuzzer.cc: libFuzzer target for the event grammar (grammar.h):
// ParseEvent, ParseEventList and SuggestEventNames on arbitrary text, against
// a fake sysfs tree written at start-up into a temporary directory: x86,
// split-bit-range, arm, hybrid (cpu_core/cpu_atom) and uncore PMUs with
// aliases, .scale/.unit files, a cpumask, malformed files, and a fake tracefs.
//
// Parses go through one EventCatalog (event_catalog.h) made at start-up over
// the tree, so an execution costs microseconds rather than the sysfs reads of
// a default parse.
//
// Invariants checked beyond "no crash, no sanitizer report": every error has
// a message, a successful parse names its PMU, an event that parses alone
// parses as a one-event list with the same attr, and, for one input in 64
// (chosen by a hash of its bytes, so a reproducer reproduces), parsing
// without the catalog (fresh reads of the tree) gives exactly the same
// results: the same EventSpecs, or the same error code and message, and the
// same suggestions.
//
// Names that are none of perf's forms go on to libpfm4 (vendor_events.h).
// So that they meet a real vendor table on any machine (this VM's CPU has
// none), the fuzzer makes libpfm4 use one model's table at start-up: Skylake
// on x86-64, Cortex-A57 on arm64, or LIBPFM_FORCE_PMU when set.
//
// The tree lives under /dev/shm when it exists (the fresh parses read it;
// tmpfs keeps that cheap), else under TMPDIR.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/grammar.h"
#include "perfcounters/vendor_events.h"
#include "support/fake_sysfs.h"

namespace {

using perfcounters::EventCatalog;
using perfcounters::EventSpec;
using perfcounters::GroupSpec;
using perfcounters::ParseOptions;
using perfcounters::testing::FakeTree;

FakeTree* tree = nullptr;
// With the catalog; [1] with default_user_only.
ParseOptions* options[2] = {nullptr, nullptr};

// True when both parses succeeded with equal values or failed with the same
// status (code and message).
template <typename T>
bool Same(const absl::StatusOr<T>& a, const absl::StatusOr<T>& b) {
  if (a.ok() != b.ok()) return false;
  return a.ok() ? *a == *b : a.status() == b.status();
}

// One input in 64, by an FNV-1a hash of its bytes.
bool Sampled(const uint8_t* data, size_t size) {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  return hash % 64 == 0;
}

void WriteTree(FakeTree& t) {
  t.AddX86Cpu();
  t.AddSplitRangePmu();
  t.AddArmPmu();
  t.AddUncorePmus();
  t.AddTracefs();
  t.AddHybridCorePmus();
  t.Pmu("cpu_core", "events/topdown-retiring", "event=0x00,umask=0x82");
  t.Pmu("cpu_atom", "events/mem-loads", "event=0xd0,umask=0x5,ldlat=3");
  // Split ranges across config words and odd files.
  t.Pmu("odd", "type", "30");
  t.Pmu("odd", "format/event", "config:0-3,60-63");
  t.Pmu("odd", "format/wide", "config1:0-63");
  t.Pmu("odd", "format/one", "config2:5");
  t.Pmu("odd", "format/bad", "config:9-3");
  t.Pmu("odd", "events/a", "event=0xff,wide=-1");
  t.Pmu("odd", "events/a.scale", "nan");
  t.Pmu("odd", "events/a.unit", "");
  t.Pmu("odd", "events/b", "event=?,one");
  t.Pmu("odd", "events/b.scale", "1e400");
  t.Pmu("odd", "events/c", "bad=1");
  t.Pmu("odd", "events/d", "");
  t.Pmu("odd", "events/e", "event=0x1,event=0x2");
  t.Pmu("no_type", "format/event", "config:0-7");
  t.Pmu("bad_type", "type", "-1");
  t.Tracepoint("syscalls", "sys_enter_read", "700");
  t.Tracepoint("broken", "bad_id", "x12");
  t.Tracepoint("broken", "huge_id", "99999999999999999999999");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (access("/dev/shm", W_OK) == 0) setenv("TMPDIR", "/dev/shm", 1);
  tree = new FakeTree();  // removed at exit
  WriteTree(*tree);
  const std::shared_ptr<const EventCatalog> catalog =
      EventCatalog::Create(tree->Paths());
  for (int user_only : {0, 1}) {
    options[user_only] = new ParseOptions();
    options[user_only]->paths = tree->Paths();
    options[user_only]->catalog = catalog;
    options[user_only]->default_user_only = user_only == 1;
  }
  std::atexit([] { delete tree; });
  if (perfcounters::HaveLibpfm() &&
      std::getenv("LIBPFM_FORCE_PMU") == nullptr) {
#if defined(__x86_64__)
    const char* table = "skl";
#else
    const char* table = "arm_ac57";
#endif
    const absl::Status status = perfcounters::UseVendorTable(table);
    if (!status.ok()) {
      std::fprintf(stderr, "grammar_fuzzer: libpfm4 table %s: %s\n", table,
                   std::string(status.message()).c_str());
      std::abort();
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 512) return 0;
  // The first byte picks the options; the rest is the event text.
  const ParseOptions& opts = *options[data[0] & 1];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1,
                              size - 1);

  absl::StatusOr<EventSpec> one = perfcounters::ParseEvent(text, opts);
  if (one.ok()) {
    if (one->pmu.empty()) std::abort();
  } else if (one.status().message().empty()) {
    std::abort();  // every error must say what was wrong
  }
  absl::StatusOr<std::vector<GroupSpec>> list =
      perfcounters::ParseEventList(text, opts);
  if (!list.ok() && list.status().message().empty()) std::abort();
  // A single event that parses is a one-event list with the same attr.
  if (one.ok()) {
    if (!list.ok() || list->size() != 1 || (*list)[0].events.size() != 1 ||
        !((*list)[0].events[0].attr == one->attr)) {
      std::abort();
    }
  }
  std::vector<std::string> suggestions;
  if (data[0] & 2) {
    suggestions = perfcounters::SuggestEventNames(text, opts, 3);
    if (suggestions.size() > 3) std::abort();
  }
  if (Sampled(data, size)) {
    // The same through fresh reads of the tree.
    ParseOptions fresh = opts;
    fresh.catalog = nullptr;
    if (!Same(perfcounters::ParseEvent(text, fresh), one) ||
        !Same(perfcounters::ParseEventList(text, fresh), list) ||
        ((data[0] & 2) &&
         perfcounters::SuggestEventNames(text, fresh, 3) != suggestions)) {
      std::fprintf(stderr, "catalog and fresh reads differ on '%.*s'\n",
                   static_cast<int>(text.size()), text.data());
      std::abort();
    }
  }
  return 0;
}
