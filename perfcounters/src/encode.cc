// encode.cc: perf_event_attr printed the way `perf stat -vv` prints it
// (perf's perf_event_attr__fprintf): the same field names, order, padding
// and value formats; zero fields are left out except type and config.
#include "perfcounters/encode.h"

#include <linux/perf_event.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "perfcounters/attr.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/paths.h"
#include "perfcounters/perf_names.h"
#include "perfcounters/pmu.h"
#include "perfcounters/tracepoint.h"

namespace perfcounters {
namespace {

// C's "%#" PRIx64: "0" for zero, "0x1a" otherwise.
std::string Hex(uint64_t value) { return absl::StrFormat("%#x", value); }

// "value (name)", or just the value when there is no name.
std::string WithName(std::string value, std::string_view name) {
  if (name.empty()) return value;
  return absl::StrCat(value, " (", absl::string_view(name.data(), name.size()),
                      ")");
}

std::string_view GenericKernelName(uint32_t type, uint64_t config) {
  auto events =
      type == PERF_TYPE_HARDWARE ? HardwareEvents() : SoftwareEvents();
  for (const GenericEvent& event : events) {
    if (event.config == config) return event.kernel_name;
  }
  return {};
}

// "category:name" of a tracepoint id, searched in tracefs as perf's
// tracepoint_id_to_name does; nullopt when tracefs is missing or unreadable
// or no tracepoint has that id.
std::optional<std::string> TracepointName(uint64_t id,
                                          const SystemPaths& paths) {
  absl::StatusOr<std::vector<std::string>> categories =
      ListTracepointCategories(paths);
  if (!categories.ok()) return std::nullopt;
  for (const std::string& category : *categories) {
    absl::StatusOr<std::vector<std::string>> names =
        ListTracepoints(category, paths);
    if (!names.ok()) continue;
    for (const std::string& name : *names) {
      absl::StatusOr<uint64_t> this_id = TracepointId(category, name, paths);
      if (this_id.ok() && *this_id == id) {
        return absl::StrCat(category, ":", name);
      }
    }
  }
  return std::nullopt;
}

// The name of a type: PERF_TYPE_* for the fixed types; for a dynamic PMU
// type the sysfs PMU that has it (newer perf prints that too), e.g.
// "armv8_pmuv3_0"; empty when neither.
std::string TypeName(uint32_t type, const SystemPaths& paths) {
  std::string_view fixed = PerfTypeName(type);
  if (!fixed.empty() || type < PERF_TYPE_MAX) return std::string(fixed);
  absl::StatusOr<std::vector<std::string>> pmus = ListPmus(paths);
  if (!pmus.ok()) return "";
  for (const std::string& name : *pmus) {
    absl::StatusOr<Pmu> pmu = LoadPmu(name, paths);
    if (pmu.ok() && pmu->type == type) return name;
  }
  return "";
}

std::string ConfigValue(const perf_event_attr& k, const SystemPaths& paths) {
  switch (k.type) {
    case PERF_TYPE_HARDWARE:
    case PERF_TYPE_SOFTWARE:
      return WithName(Hex(k.config), GenericKernelName(k.type, k.config));
    case PERF_TYPE_HW_CACHE: {
      std::string_view cache = HwCacheIdName(k.config & 0xff);
      std::string_view op = HwCacheOpName((k.config >> 8) & 0xff);
      std::string_view result = HwCacheResultName((k.config >> 16) & 0xff);
      if (cache.empty() || op.empty() || result.empty()) return Hex(k.config);
      return absl::StrCat(Hex(k.config), " (",
                          absl::string_view(result.data(), result.size()),
                          " | ", absl::string_view(op.data(), op.size()), " | ",
                          absl::string_view(cache.data(), cache.size()), ")");
    }
    case PERF_TYPE_TRACEPOINT: {
      std::optional<std::string> name = TracepointName(k.config, paths);
      return WithName(Hex(k.config), name ? *name : std::string_view());
    }
    default:
      return Hex(k.config);
  }
}

class Printer {
 public:
  // perf's attr__fprintf for `perf stat -vv`: "  %-32s %s\n".
  void Line(std::string_view name, std::string_view value) {
    absl::StrAppendFormat(&out_, "  %-32s %s\n",
                          absl::string_view(name.data(), name.size()),
                          absl::string_view(value.data(), value.size()));
  }
  void Unsigned(std::string_view name, uint64_t value) {
    if (value != 0) Line(name, absl::StrCat(value));
  }
  void Signed(std::string_view name, int64_t value) {
    if (value != 0) Line(name, absl::StrCat(value));
  }
  void HexValue(std::string_view name, uint64_t value) {
    if (value != 0) Line(name, Hex(value));
  }
  void Flags(std::string_view name, uint64_t value,
             std::string (*format)(uint64_t)) {
    if (value != 0) Line(name, format(value));
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_ = "perf_event_attr:\n";
};

}  // namespace

std::string EncodeAttr(const Attr& attr, const SystemPaths& paths) {
  // Print what the kernel will be given: the marshalled struct.
  const perf_event_attr k = attr.ToKernel();
  Printer p;
  p.Line("type", WithName(absl::StrCat(k.type), TypeName(k.type, paths)));
  p.Unsigned("size", k.size);
  p.Line("config", ConfigValue(k, paths));
  p.Unsigned("{ sample_period, sample_freq }", k.sample_period);
  p.Flags("sample_type", k.sample_type, SampleTypeNames);
  p.Flags("read_format", k.read_format, ReadFormatNames);

  p.Unsigned("disabled", k.disabled);
  p.Unsigned("inherit", k.inherit);
  p.Unsigned("pinned", k.pinned);
  p.Unsigned("exclusive", k.exclusive);
  p.Unsigned("exclude_user", k.exclude_user);
  p.Unsigned("exclude_kernel", k.exclude_kernel);
  p.Unsigned("exclude_hv", k.exclude_hv);
  p.Unsigned("exclude_idle", k.exclude_idle);
  p.Unsigned("mmap", k.mmap);
  p.Unsigned("comm", k.comm);
  p.Unsigned("freq", k.freq);
  p.Unsigned("inherit_stat", k.inherit_stat);
  p.Unsigned("enable_on_exec", k.enable_on_exec);
  p.Unsigned("task", k.task);
  p.Unsigned("watermark", k.watermark);
  // The struct holds 2 bits; print what Attr asked for, so an invalid
  // precise_ip (Validate() rejects it) is visible rather than truncated.
  p.Unsigned("precise_ip", attr.precise_ip);
  p.Unsigned("mmap_data", k.mmap_data);
  p.Unsigned("sample_id_all", k.sample_id_all);
  p.Unsigned("exclude_host", k.exclude_host);
  p.Unsigned("exclude_guest", k.exclude_guest);
  p.Unsigned("exclude_callchain_kernel", k.exclude_callchain_kernel);
  p.Unsigned("exclude_callchain_user", k.exclude_callchain_user);
  p.Unsigned("mmap2", k.mmap2);
  p.Unsigned("comm_exec", k.comm_exec);
  p.Unsigned("use_clockid", k.use_clockid);
  p.Unsigned("context_switch", k.context_switch);
  p.Unsigned("write_backward", k.write_backward);
  p.Unsigned("namespaces", k.namespaces);
  p.Unsigned("ksymbol", k.ksymbol);
  p.Unsigned("bpf_event", k.bpf_event);
  p.Unsigned("aux_output", k.aux_output);
  p.Unsigned("cgroup", k.cgroup);
  p.Unsigned("text_poke", k.text_poke);
  p.Unsigned("build_id", k.build_id);
  p.Unsigned("inherit_thread", k.inherit_thread);
  p.Unsigned("remove_on_exec", k.remove_on_exec);
  p.Unsigned("sigtrap", k.sigtrap);

  p.Unsigned("{ wakeup_events, wakeup_watermark }", k.wakeup_events);
  p.Unsigned("bp_type", k.bp_type);
  p.HexValue("{ bp_addr, config1 }", k.config1);
  p.HexValue("{ bp_len, config2 }", k.config2);
  p.Flags("branch_sample_type", k.branch_sample_type, BranchSampleTypeNames);
  p.HexValue("sample_regs_user", k.sample_regs_user);
  p.Unsigned("sample_stack_user", k.sample_stack_user);
  p.Signed("clockid", k.clockid);
  p.HexValue("sample_regs_intr", k.sample_regs_intr);
  p.Unsigned("aux_watermark", k.aux_watermark);
  p.Unsigned("sample_max_stack", k.sample_max_stack);
  p.Unsigned("aux_sample_size", k.aux_sample_size);
  p.Unsigned("sig_data", k.sig_data);
  return p.Take();
}

}  // namespace perfcounters
