// attr.h: `Attr`, a value type that mirrors the kernel's `perf_event_attr`.
//
// Every field and option bit that the kernel headers define has a named member
// here, so code never touches the kernel's bitfields directly. `ToKernel()`
// marshals an Attr into the kernel struct bit for bit and `FromKernel()` goes
// back; the round trip is lossless for every defined field.
//
// Data flows one way through the library:
//   event spec (grammar.h) -> Attr (this file) -> opened Event/Group (event.h,
//   group.h) -> GroupReading snapshot -> delta -> ScaledCount (counts.h).
#ifndef PERFCOUNTERS_ATTR_H_
#define PERFCOUNTERS_ATTR_H_

#include <linux/perf_event.h>

#include <cstdint>

#include "absl/status/status.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// Attr describes one event to open. Members are named as in the kernel's
// `struct perf_event_attr`; unions are spelled out under every name users
// know (config1 is also bp_addr, config2 is also bp_len).
struct Attr {
  // Major type: PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_TRACEPOINT,
  // PERF_TYPE_HW_CACHE, PERF_TYPE_RAW, PERF_TYPE_BREAKPOINT, or a dynamic PMU
  // type read from sysfs.
  uint32_t type = PERF_TYPE_HARDWARE;
  // Type-specific configuration.
  uint64_t config = 0;
  // Extension of config; for breakpoints this is bp_addr, for kprobes
  // kprobe_func, for uprobes uprobe_path.
  uint64_t config1 = 0;
  // Extension of config1; for breakpoints this is bp_len, for probes
  // kprobe_addr / probe_offset.
  uint64_t config2 = 0;

  // Sampling period, or frequency in Hz when `freq` is set (kernel union
  // sample_period / sample_freq).
  uint64_t sample_period = 0;
  // PERF_SAMPLE_* bits.
  uint64_t sample_type = 0;
  // PERF_FORMAT_* bits.
  uint64_t read_format = 0;

  // Option bits, in the kernel's bit order.
  bool disabled = false;
  bool inherit = false;
  bool pinned = false;
  bool exclusive = false;
  bool exclude_user = false;
  bool exclude_kernel = false;
  bool exclude_hv = false;
  bool exclude_idle = false;
  bool mmap = false;
  bool comm = false;
  bool freq = false;
  bool inherit_stat = false;
  bool enable_on_exec = false;
  bool task = false;
  bool watermark = false;
  // Skid constraint, 0..3 (2 bits in the kernel struct). Values above 3 are
  // rejected by Validate().
  uint8_t precise_ip = 0;
  bool mmap_data = false;
  bool sample_id_all = false;
  bool exclude_host = false;
  bool exclude_guest = false;
  bool exclude_callchain_kernel = false;
  bool exclude_callchain_user = false;
  bool mmap2 = false;
  bool comm_exec = false;
  bool use_clockid = false;
  bool context_switch = false;
  bool write_backward = false;
  bool namespaces = false;
  bool ksymbol = false;
  bool bpf_event = false;
  bool aux_output = false;
  bool cgroup = false;
  bool text_poke = false;
  bool build_id = false;
  bool inherit_thread = false;
  bool remove_on_exec = false;
  bool sigtrap = false;

  // Wake up every n events, or after n bytes when `watermark` is set
  // (kernel union wakeup_events / wakeup_watermark).
  uint32_t wakeup_events = 0;
  // HW_BREAKPOINT_* access bits for breakpoints.
  uint32_t bp_type = 0;
  // PERF_SAMPLE_BRANCH_* bits.
  uint64_t branch_sample_type = 0;
  // Registers to dump on samples (arch-specific masks).
  uint64_t sample_regs_user = 0;
  uint32_t sample_stack_user = 0;
  int32_t clockid = 0;
  uint64_t sample_regs_intr = 0;
  uint32_t aux_watermark = 0;
  uint16_t sample_max_stack = 0;
  uint32_t aux_sample_size = 0;
  // User data delivered with SIGTRAP (siginfo si_perf_data) when sigtrap=1.
  uint64_t sig_data = 0;

  // Size written into the kernel struct; 0 means sizeof(perf_event_attr).
  uint32_t size = 0;

  // Convenience aliases for breakpoint events.
  uint64_t bp_addr() const { return config1; }
  uint64_t bp_len() const { return config2; }
  // Convenience alias for frequency-based sampling.
  uint64_t sample_freq() const { return sample_period; }

  // Checks values the kernel struct cannot hold (precise_ip > 3) and
  // combinations the kernel always rejects, naming the field.
  absl::Status Validate() const;

  // Marshals into the kernel struct. Every field is written; reserved bits
  // stay zero.
  perf_event_attr ToKernel() const;
  // Reads every defined field of a kernel struct.
  static Attr FromKernel(const perf_event_attr& kernel);

  friend bool operator==(const Attr&, const Attr&) = default;
};

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_ATTR_H_
