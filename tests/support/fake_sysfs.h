// fake_sysfs.h: fake sysfs and tracefs trees for the grammar, PMU and
// tracepoint tests, written into a fresh temporary directory at run time (so
// the tests also run where the source tree is absent, e.g. inside the
// emulated arm64 machine).
//
// FakeTree::Paths() points SystemPaths at the tree: sysfs at <root>/sys,
// tracefs candidates <root>/tracing (then <root>/debug/tracing).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_FAKE_SYSFS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_FAKE_SYSFS_H_

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "perfcounters/paths.h"

namespace perfcounters::testing {

// A temporary directory tree, removed on destruction.
class FakeTree {
 public:
  FakeTree() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "pc_fake_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror(("mkdtemp " + pattern).c_str());
      std::abort();
    }
    root_ = pattern;
  }
  ~FakeTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  const std::string& root() const { return root_; }

  // Writes `contents` plus a newline (as sysfs does) to root/relative.
  void Write(const std::string& relative, const std::string& contents) {
    const std::filesystem::path path = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << contents << "\n";
  }
  // Writes <sysfs>/bus/event_source/devices/<pmu>/<relative>.
  void Pmu(const std::string& pmu, const std::string& relative,
           const std::string& contents) {
    Write("sys/bus/event_source/devices/" + pmu + "/" + relative, contents);
  }
  // Writes <tracefs>/events/<category>/<name>/id.
  void Tracepoint(const std::string& category, const std::string& name,
                  const std::string& id) {
    Write("tracing/events/" + category + "/" + name + "/id", id);
  }

  SystemPaths Paths() const {
    SystemPaths paths;
    paths.sysfs = root_ + "/sys";
    paths.procfs = root_ + "/proc";
    paths.tracefs = {root_ + "/tracing", root_ + "/debug/tracing"};
    return paths;
  }

  // An Intel-like core PMU "cpu" (type 4) with perf's usual formats and a
  // few aliases.
  void AddX86Cpu() {
    Pmu("cpu", "type", "4");
    Pmu("cpu", "format/event", "config:0-7");
    Pmu("cpu", "format/umask", "config:8-15");
    Pmu("cpu", "format/edge", "config:18");
    Pmu("cpu", "format/pc", "config:19");
    Pmu("cpu", "format/any", "config:21");
    Pmu("cpu", "format/inv", "config:23");
    Pmu("cpu", "format/cmask", "config:24-31");
    Pmu("cpu", "format/in_tx", "config:32");
    Pmu("cpu", "format/ldlat", "config1:0-15");
    Pmu("cpu", "format/frontend", "config2:0-23");
    Pmu("cpu", "events/cpu-cycles", "event=0x3c");
    Pmu("cpu", "events/instructions", "event=0xc0");
    Pmu("cpu", "events/ref-cycles", "event=0x00,umask=0x03");
    Pmu("cpu", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
  }

  // An AMD-like PMU whose event field is split: config:0-7,32-35.
  void AddSplitRangePmu() {
    Pmu("amd_like", "type", "11");
    Pmu("amd_like", "format/event", "config:0-7,32-35");
    Pmu("amd_like", "format/umask", "config:8-15");
    Pmu("amd_like", "events/ls_dispatch", "event=0x129,umask=0x7");
  }

  // An arm64 core PMU like armv8_pmuv3_0 (type 10, cpus 0-3).
  void AddArmPmu() {
    Pmu("armv8_pmuv3_0", "type", "10");
    Pmu("armv8_pmuv3_0", "format/event", "config:0-15");
    Pmu("armv8_pmuv3_0", "format/long", "config1:0");
    Pmu("armv8_pmuv3_0", "cpus", "0-3");
    Pmu("armv8_pmuv3_0", "events/cpu_cycles", "event=0x0011");
    Pmu("armv8_pmuv3_0", "events/inst_retired", "event=0x0008");
    Pmu("armv8_pmuv3_0", "events/l1d_cache", "event=0x0004");
  }

  // A RAPL-like "power" PMU with a scaled alias and a cpumask, and an
  // uncore-like PMU whose alias needs a user-supplied term ("chip=?").
  void AddUncorePmus() {
    Pmu("power", "type", "20");
    Pmu("power", "format/event", "config:0-7");
    Pmu("power", "cpumask", "0,2-3");
    Pmu("power", "events/energy-pkg", "event=0x02");
    Pmu("power", "events/energy-pkg.scale", "2.3283064365386962890625e-10");
    Pmu("power", "events/energy-pkg.unit", "Joules");
    Pmu("uncore_fake", "type", "21");
    Pmu("uncore_fake", "format/event", "config:0-7");
    Pmu("uncore_fake", "format/chip", "config1:0-3");
    Pmu("uncore_fake", "events/chip-reads", "event=0x1,chip=?");
  }

  // Hybrid core PMUs like Intel's: cpu_core (type 8, cpus 0-7) and cpu_atom
  // (type 10, cpus 8-15), with event and umask formats.
  void AddHybridCorePmus() {
    Pmu("cpu_core", "type", "8");
    Pmu("cpu_core", "cpus", "0-7");
    Pmu("cpu_core", "format/event", "config:0-7");
    Pmu("cpu_core", "format/umask", "config:8-15");
    Pmu("cpu_atom", "type", "10");
    Pmu("cpu_atom", "cpus", "8-15");
    Pmu("cpu_atom", "format/event", "config:0-7");
    Pmu("cpu_atom", "format/umask", "config:8-15");
  }

  // Fake tracefs: sched:sched_switch (id 316), sched:sched_wakeup (318),
  // and a category named like an event, cycles:foo (9).
  void AddTracefs() {
    Tracepoint("sched", "sched_switch", "316");
    Tracepoint("sched", "sched_wakeup", "318");
    Tracepoint("cycles", "foo", "9");
  }

 private:
  std::string root_;
};

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_FAKE_SYSFS_H_
