// attr.cc: marshalling between perfcounters::Attr and the kernel's
// perf_event_attr, and validation of values the kernel struct cannot hold.
#include "perfcounters/attr.h"

#include <linux/perf_event.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perfcounters {

absl::Status Attr::Validate() const {
  if (precise_ip > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("precise_ip is ", precise_ip,
                     ", but the kernel field is 2 bits: use 0 (arbitrary "
                     "skid), 1 (constant skid), 2 (requested zero skid) or 3 "
                     "(zero skid)"));
  }
  if (size != 0 &&
      (size < PERF_ATTR_SIZE_VER0 || size > sizeof(perf_event_attr))) {
    return absl::InvalidArgumentError(
        absl::StrCat("size is ", size, ", but it must be 0 (meaning ",
                     sizeof(perf_event_attr),
                     ", this build's sizeof(perf_event_attr)) or "
                     "between ",
                     PERF_ATTR_SIZE_VER0, " (PERF_ATTR_SIZE_VER0) and ",
                     sizeof(perf_event_attr)));
  }
  if (!freq && (sample_period >> 63) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sample_period is ", sample_period,
        ", but the kernel rejects periods with bit 63 set: use a period "
        "below 2^63"));
  }
  if (sigtrap && !remove_on_exec) {
    return absl::InvalidArgumentError(
        "sigtrap is set without remove_on_exec: the kernel requires "
        "remove_on_exec=1 whenever sigtrap=1");
  }
  if (remove_on_exec && enable_on_exec) {
    return absl::InvalidArgumentError(
        "remove_on_exec and enable_on_exec are both set: the kernel rejects "
        "this combination, set at most one of them");
  }
  if (inherit_thread && !inherit) {
    return absl::InvalidArgumentError(
        "inherit_thread is set without inherit: the kernel requires "
        "inherit=1 whenever inherit_thread=1");
  }
  return absl::OkStatus();
}

perf_event_attr Attr::ToKernel() const {
  perf_event_attr k;
  std::memset(&k, 0, sizeof(k));
  k.type = type;
  k.size = size == 0 ? sizeof(perf_event_attr) : size;
  k.config = config;
  k.sample_period = sample_period;
  k.sample_type = sample_type;
  k.read_format = read_format;

  k.disabled = disabled;
  k.inherit = inherit;
  k.pinned = pinned;
  k.exclusive = exclusive;
  k.exclude_user = exclude_user;
  k.exclude_kernel = exclude_kernel;
  k.exclude_hv = exclude_hv;
  k.exclude_idle = exclude_idle;
  k.mmap = mmap;
  k.comm = comm;
  k.freq = freq;
  k.inherit_stat = inherit_stat;
  k.enable_on_exec = enable_on_exec;
  k.task = task;
  k.watermark = watermark;
  k.precise_ip = precise_ip & 3u;  // Validate() rejects values above 3.
  k.mmap_data = mmap_data;
  k.sample_id_all = sample_id_all;
  k.exclude_host = exclude_host;
  k.exclude_guest = exclude_guest;
  k.exclude_callchain_kernel = exclude_callchain_kernel;
  k.exclude_callchain_user = exclude_callchain_user;
  k.mmap2 = mmap2;
  k.comm_exec = comm_exec;
  k.use_clockid = use_clockid;
  k.context_switch = context_switch;
  k.write_backward = write_backward;
  k.namespaces = namespaces;
  k.ksymbol = ksymbol;
  k.bpf_event = bpf_event;
  k.aux_output = aux_output;
  k.cgroup = cgroup;
  k.text_poke = text_poke;
  k.build_id = build_id;
  k.inherit_thread = inherit_thread;
  k.remove_on_exec = remove_on_exec;
  k.sigtrap = sigtrap;

  k.wakeup_events = wakeup_events;
  k.bp_type = bp_type;
  k.config1 = config1;
  k.config2 = config2;
  k.branch_sample_type = branch_sample_type;
  k.sample_regs_user = sample_regs_user;
  k.sample_stack_user = sample_stack_user;
  k.clockid = clockid;
  k.sample_regs_intr = sample_regs_intr;
  k.aux_watermark = aux_watermark;
  k.sample_max_stack = sample_max_stack;
  k.aux_sample_size = aux_sample_size;
  k.sig_data = sig_data;
  return k;
}

Attr Attr::FromKernel(const perf_event_attr& k) {
  Attr a;
  a.type = k.type;
  a.size = k.size;
  a.config = k.config;
  a.sample_period = k.sample_period;
  a.sample_type = k.sample_type;
  a.read_format = k.read_format;

  a.disabled = k.disabled;
  a.inherit = k.inherit;
  a.pinned = k.pinned;
  a.exclusive = k.exclusive;
  a.exclude_user = k.exclude_user;
  a.exclude_kernel = k.exclude_kernel;
  a.exclude_hv = k.exclude_hv;
  a.exclude_idle = k.exclude_idle;
  a.mmap = k.mmap;
  a.comm = k.comm;
  a.freq = k.freq;
  a.inherit_stat = k.inherit_stat;
  a.enable_on_exec = k.enable_on_exec;
  a.task = k.task;
  a.watermark = k.watermark;
  a.precise_ip = static_cast<uint8_t>(k.precise_ip);
  a.mmap_data = k.mmap_data;
  a.sample_id_all = k.sample_id_all;
  a.exclude_host = k.exclude_host;
  a.exclude_guest = k.exclude_guest;
  a.exclude_callchain_kernel = k.exclude_callchain_kernel;
  a.exclude_callchain_user = k.exclude_callchain_user;
  a.mmap2 = k.mmap2;
  a.comm_exec = k.comm_exec;
  a.use_clockid = k.use_clockid;
  a.context_switch = k.context_switch;
  a.write_backward = k.write_backward;
  a.namespaces = k.namespaces;
  a.ksymbol = k.ksymbol;
  a.bpf_event = k.bpf_event;
  a.aux_output = k.aux_output;
  a.cgroup = k.cgroup;
  a.text_poke = k.text_poke;
  a.build_id = k.build_id;
  a.inherit_thread = k.inherit_thread;
  a.remove_on_exec = k.remove_on_exec;
  a.sigtrap = k.sigtrap;

  a.wakeup_events = k.wakeup_events;
  a.bp_type = k.bp_type;
  a.config1 = k.config1;
  a.config2 = k.config2;
  a.branch_sample_type = k.branch_sample_type;
  a.sample_regs_user = k.sample_regs_user;
  a.sample_stack_user = k.sample_stack_user;
  a.clockid = k.clockid;
  a.sample_regs_intr = k.sample_regs_intr;
  a.aux_watermark = k.aux_watermark;
  a.sample_max_stack = k.sample_max_stack;
  a.aux_sample_size = k.aux_sample_size;
  a.sig_data = k.sig_data;
  return a;
}

}  // namespace perfcounters
