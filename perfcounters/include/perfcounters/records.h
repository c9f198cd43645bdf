// records.h: the records a perf event writes into its ring buffer, decoded.
//
// `RecordFormat` is the part of an Attr that decides how records are laid
// out (sample_type, read_format, sample_id_all, the branch and register
// masks). `DecodeRecord()` turns the bytes of one record (header included)
// into a `Record`: the header plus one typed body per PERF_RECORD_* type.
// `SampleRecord` carries every PERF_SAMPLE_* field in the kernel's order;
// `SampleId` is the `sample_id_all` trailer of non-sample records.
//
// A field the format did not ask for is std::nullopt (never 0). Decoding never
// reads outside the given bytes: a record whose size or fields do not fit is
// an error (DataLoss or InvalidArgument) that names the record type and the
// field, never a crash.
#ifndef PERFCOUNTERS_RECORDS_H_
#define PERFCOUNTERS_RECORDS_H_

#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "perfcounters/attr.h"
#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters {

// The attr fields that decide the layout of records. Two events may share a
// ring buffer (SetOutput) and be decoded together only if their formats are
// equal and they use the same clock; see CheckOutputCompatible().
struct RecordFormat {
  // PERF_SAMPLE_* bits.
  uint64_t sample_type = 0;
  // PERF_FORMAT_* bits (layout of PERF_SAMPLE_READ and PERF_RECORD_READ).
  uint64_t read_format = 0;
  // Whether non-sample records carry the SampleId trailer.
  bool sample_id_all = false;
  // PERF_SAMPLE_BRANCH_* bits (only HW_INDEX changes the layout).
  uint64_t branch_sample_type = 0;
  // Register masks: the number of registers dumped is their popcount.
  uint64_t sample_regs_user = 0;
  uint64_t sample_regs_intr = 0;

  // The format of records written by an event opened with `attr`.
  static RecordFormat FromAttr(const Attr& attr);

  friend bool operator==(const RecordFormat&, const RecordFormat&) = default;
};

// OK when records of `follower` can be written into `leader`'s ring buffer
// (PERF_EVENT_IOC_SET_OUTPUT) and decoded with the leader's format: the
// RecordFormats are equal, and use_clockid/clockid are equal (the kernel
// refuses SET_OUTPUT between events on different clocks). Otherwise
// InvalidArgument naming the first field that differs and both values.
// This is stricter than go-perf, which only compares the sample_id fields
// and then refuses to decode samples: we decode every record with one format.
absl::Status CheckOutputCompatible(const Attr& leader, const Attr& follower);

// The 8-byte header of every record (struct perf_event_header).
struct RecordHeader {
  // PERF_RECORD_* type.
  uint32_t type = 0;
  // PERF_RECORD_MISC_* bits (cpu mode in the low 3 bits, per-type flags).
  uint16_t misc = 0;
  // Size of the whole record in bytes, header included.
  uint16_t size = 0;

  friend bool operator==(const RecordHeader&, const RecordHeader&) = default;
};

// The name of a PERF_RECORD_* type ("sample", "mmap2", ...), or
// "unknown(<n>)".
std::string RecordTypeName(uint32_t type);

// The sample_id_all trailer of a non-sample record. Each field is present
// exactly when its PERF_SAMPLE_* bit is in sample_type (and sample_id_all).
struct SampleId {
  std::optional<uint32_t> pid;         // PERF_SAMPLE_TID
  std::optional<uint32_t> tid;         // PERF_SAMPLE_TID
  std::optional<uint64_t> time;        // PERF_SAMPLE_TIME
  std::optional<uint64_t> id;          // PERF_SAMPLE_ID
  std::optional<uint64_t> stream_id;   // PERF_SAMPLE_STREAM_ID
  std::optional<uint32_t> cpu;         // PERF_SAMPLE_CPU
  std::optional<uint64_t> identifier;  // PERF_SAMPLE_IDENTIFIER

  friend bool operator==(const SampleId&, const SampleId&) = default;
};

// One counter value inside a read_format block.
struct ReadValue {
  uint64_t value = 0;
  std::optional<uint64_t> id;    // PERF_FORMAT_ID
  std::optional<uint64_t> lost;  // PERF_FORMAT_LOST

  friend bool operator==(const ReadValue&, const ReadValue&) = default;
};

// A read_format block (PERF_SAMPLE_READ, PERF_RECORD_READ): one value, or
// every group member's with PERF_FORMAT_GROUP (leader first).
struct ReadValues {
  std::optional<uint64_t> time_enabled;  // PERF_FORMAT_TOTAL_TIME_ENABLED
  std::optional<uint64_t> time_running;  // PERF_FORMAT_TOTAL_TIME_RUNNING
  // Exactly one value unless PERF_FORMAT_GROUP.
  std::vector<ReadValue> values;

  friend bool operator==(const ReadValues&, const ReadValues&) = default;
};

// One branch of a PERF_SAMPLE_BRANCH_STACK (struct perf_branch_entry).
struct BranchEntry {
  uint64_t from = 0;
  uint64_t to = 0;
  // The raw flags word; the accessors decode its bit fields.
  uint64_t flags = 0;

  bool mispred() const { return flags & 1; }
  bool predicted() const { return (flags >> 1) & 1; }
  bool in_tx() const { return (flags >> 2) & 1; }
  bool abort() const { return (flags >> 3) & 1; }
  // Cycles since the previous branch (0 when not supported).
  uint16_t cycles() const { return (flags >> 4) & 0xffff; }
  // PERF_BR_* branch type.
  uint8_t type() const { return (flags >> 20) & 0xf; }

  friend bool operator==(const BranchEntry&, const BranchEntry&) = default;
};

// A PERF_SAMPLE_BRANCH_STACK block.
struct BranchStack {
  // Present when branch_sample_type has PERF_SAMPLE_BRANCH_HW_INDEX.
  std::optional<uint64_t> hw_idx;
  std::vector<BranchEntry> entries;

  friend bool operator==(const BranchStack&, const BranchStack&) = default;
};

// A PERF_SAMPLE_REGS_USER / REGS_INTR block: the ABI and, unless the ABI is
// PERF_SAMPLE_REGS_ABI_NONE, popcount(mask) register values in mask order.
struct SampleRegs {
  uint64_t abi = 0;
  std::vector<uint64_t> regs;

  friend bool operator==(const SampleRegs&, const SampleRegs&) = default;
};

// A PERF_SAMPLE_STACK_USER block: `size` bytes copied from the user stack,
// of which dyn_size are valid (dyn_size only present when size != 0).
struct StackUser {
  std::vector<uint8_t> data;
  std::optional<uint64_t> dyn_size;

  friend bool operator==(const StackUser&, const StackUser&) = default;
};

// PERF_SAMPLE_WEIGHT_STRUCT: the weight split into its three parts.
struct SampleWeightStruct {
  uint32_t var1_dw = 0;
  uint16_t var2_w = 0;
  uint16_t var3_w = 0;

  friend bool operator==(const SampleWeightStruct&,
                         const SampleWeightStruct&) = default;
};

// PERF_RECORD_SAMPLE: every field, in the kernel's order. A field is present
// exactly when its bit is set in the format's sample_type.
struct SampleRecord {
  std::optional<uint64_t> identifier;               // PERF_SAMPLE_IDENTIFIER
  std::optional<uint64_t> ip;                       // PERF_SAMPLE_IP
  std::optional<uint32_t> pid;                      // PERF_SAMPLE_TID
  std::optional<uint32_t> tid;                      // PERF_SAMPLE_TID
  std::optional<uint64_t> time;                     // PERF_SAMPLE_TIME
  std::optional<uint64_t> addr;                     // PERF_SAMPLE_ADDR
  std::optional<uint64_t> id;                       // PERF_SAMPLE_ID
  std::optional<uint64_t> stream_id;                // PERF_SAMPLE_STREAM_ID
  std::optional<uint32_t> cpu;                      // PERF_SAMPLE_CPU
  std::optional<uint64_t> period;                   // PERF_SAMPLE_PERIOD
  std::optional<ReadValues> read;                   // PERF_SAMPLE_READ
  std::optional<std::vector<uint64_t>> callchain;   // PERF_SAMPLE_CALLCHAIN
  std::optional<std::vector<uint8_t>> raw;          // PERF_SAMPLE_RAW
  std::optional<BranchStack> branch_stack;          // PERF_SAMPLE_BRANCH_STACK
  std::optional<SampleRegs> regs_user;              // PERF_SAMPLE_REGS_USER
  std::optional<StackUser> stack_user;              // PERF_SAMPLE_STACK_USER
  std::optional<uint64_t> weight;                   // PERF_SAMPLE_WEIGHT
  std::optional<SampleWeightStruct> weight_struct;  // ..._WEIGHT_STRUCT
  std::optional<uint64_t> data_src;                 // PERF_SAMPLE_DATA_SRC
  std::optional<uint64_t> transaction;              // PERF_SAMPLE_TRANSACTION
  std::optional<SampleRegs> regs_intr;              // PERF_SAMPLE_REGS_INTR
  std::optional<uint64_t> phys_addr;                // PERF_SAMPLE_PHYS_ADDR
  std::optional<uint64_t> cgroup;                   // PERF_SAMPLE_CGROUP
  std::optional<uint64_t> data_page_size;   // PERF_SAMPLE_DATA_PAGE_SIZE
  std::optional<uint64_t> code_page_size;   // PERF_SAMPLE_CODE_PAGE_SIZE
  std::optional<std::vector<uint8_t>> aux;  // PERF_SAMPLE_AUX

  friend bool operator==(const SampleRecord&, const SampleRecord&) = default;
};

// PERF_RECORD_MMAP: an executable (or, with PERF_RECORD_MISC_MMAP_DATA,
// data) mapping.
struct MmapRecord {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t pgoff = 0;
  std::string filename;
  SampleId sample_id;

  friend bool operator==(const MmapRecord&, const MmapRecord&) = default;
};

// PERF_RECORD_MMAP2: MMAP plus either the inode identity or, when
// header.misc has PERF_RECORD_MISC_MMAP_BUILD_ID, the file's build id.
struct Mmap2Record {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t pgoff = 0;
  // Inode identity (absent in the build-id variant).
  std::optional<uint32_t> maj;
  std::optional<uint32_t> min;
  std::optional<uint64_t> ino;
  std::optional<uint64_t> ino_generation;
  // The build id (only in the build-id variant), build_id_size bytes.
  std::optional<std::vector<uint8_t>> build_id;
  uint32_t prot = 0;
  uint32_t flags = 0;
  std::string filename;
  SampleId sample_id;

  friend bool operator==(const Mmap2Record&, const Mmap2Record&) = default;
};

// PERF_RECORD_LOST: `lost` records were dropped because the ring was full.
struct LostRecord {
  uint64_t id = 0;
  uint64_t lost = 0;
  SampleId sample_id;

  friend bool operator==(const LostRecord&, const LostRecord&) = default;
};

// PERF_RECORD_COMM: a thread's name changed; `exec` when by exec(2)
// (PERF_RECORD_MISC_COMM_EXEC).
struct CommRecord {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string comm;
  bool exec = false;
  SampleId sample_id;

  friend bool operator==(const CommRecord&, const CommRecord&) = default;
};

// PERF_RECORD_FORK and PERF_RECORD_EXIT (same layout; header.type says
// which).
struct TaskRecord {
  uint32_t pid = 0;
  uint32_t ppid = 0;
  uint32_t tid = 0;
  uint32_t ptid = 0;
  uint64_t time = 0;
  SampleId sample_id;

  friend bool operator==(const TaskRecord&, const TaskRecord&) = default;
};

// PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE (same layout; `throttled`
// says which).
struct ThrottleRecord {
  bool throttled = false;
  uint64_t time = 0;
  uint64_t id = 0;
  uint64_t stream_id = 0;
  SampleId sample_id;

  friend bool operator==(const ThrottleRecord&,
                         const ThrottleRecord&) = default;
};

// PERF_RECORD_READ: an inherited child's counter values at its exit.
struct ReadRecord {
  uint32_t pid = 0;
  uint32_t tid = 0;
  ReadValues values;
  SampleId sample_id;

  friend bool operator==(const ReadRecord&, const ReadRecord&) = default;
};

// PERF_RECORD_AUX: new data in the AUX area.
struct AuxRecord {
  uint64_t aux_offset = 0;
  uint64_t aux_size = 0;
  // PERF_AUX_FLAG_* bits.
  uint64_t flags = 0;
  SampleId sample_id;

  friend bool operator==(const AuxRecord&, const AuxRecord&) = default;
};

// PERF_RECORD_ITRACE_START: instruction tracing started for a task.
struct ItraceStartRecord {
  uint32_t pid = 0;
  uint32_t tid = 0;
  SampleId sample_id;

  friend bool operator==(const ItraceStartRecord&,
                         const ItraceStartRecord&) = default;
};

// PERF_RECORD_LOST_SAMPLES: the PMU dropped `lost` samples (e.g. PEBS).
struct LostSamplesRecord {
  uint64_t lost = 0;
  SampleId sample_id;

  friend bool operator==(const LostSamplesRecord&,
                         const LostSamplesRecord&) = default;
};

// PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE: a context switch of
// the monitored task (out: header.misc has PERF_RECORD_MISC_SWITCH_OUT).
// CPU-wide records name the other task.
struct SwitchRecord {
  // Switched out (else in).
  bool out = false;
  // Switched out while runnable (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT).
  bool preempted = false;
  // Only in PERF_RECORD_SWITCH_CPU_WIDE: the next (out) or previous (in)
  // task.
  std::optional<uint32_t> next_prev_pid;
  std::optional<uint32_t> next_prev_tid;
  SampleId sample_id;

  friend bool operator==(const SwitchRecord&, const SwitchRecord&) = default;
};

// One namespace in a PERF_RECORD_NAMESPACES.
struct NamespaceLink {
  uint64_t dev = 0;
  uint64_t inode = 0;

  friend bool operator==(const NamespaceLink&, const NamespaceLink&) = default;
};

// PERF_RECORD_NAMESPACES: a task's namespaces (indexed by *_NS_INDEX).
struct NamespacesRecord {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::vector<NamespaceLink> namespaces;
  SampleId sample_id;

  friend bool operator==(const NamespacesRecord&,
                         const NamespacesRecord&) = default;
};

// PERF_RECORD_KSYMBOL: a kernel symbol was (un)registered.
struct KsymbolRecord {
  uint64_t addr = 0;
  uint32_t len = 0;
  // PERF_RECORD_KSYMBOL_TYPE_*.
  uint16_t ksym_type = 0;
  // PERF_RECORD_KSYMBOL_FLAGS_*.
  uint16_t flags = 0;
  std::string name;
  SampleId sample_id;

  friend bool operator==(const KsymbolRecord&, const KsymbolRecord&) = default;
};

// PERF_RECORD_BPF_EVENT: a BPF program was loaded or unloaded.
struct BpfEventRecord {
  // PERF_BPF_EVENT_*.
  uint16_t event_type = 0;
  uint16_t flags = 0;
  uint32_t id = 0;
  std::array<uint8_t, 8> tag{};  // BPF_TAG_SIZE bytes
  SampleId sample_id;

  friend bool operator==(const BpfEventRecord&,
                         const BpfEventRecord&) = default;
};

// PERF_RECORD_CGROUP: a cgroup was created.
struct CgroupRecord {
  uint64_t id = 0;
  std::string path;
  SampleId sample_id;

  friend bool operator==(const CgroupRecord&, const CgroupRecord&) = default;
};

// PERF_RECORD_TEXT_POKE: kernel text was modified.
struct TextPokeRecord {
  uint64_t addr = 0;
  std::vector<uint8_t> old_bytes;
  std::vector<uint8_t> new_bytes;
  SampleId sample_id;

  friend bool operator==(const TextPokeRecord&,
                         const TextPokeRecord&) = default;
};

// PERF_RECORD_AUX_OUTPUT_HW_ID: the hardware id of an AUX output event.
struct AuxOutputHwIdRecord {
  uint64_t hw_id = 0;
  SampleId sample_id;

  friend bool operator==(const AuxOutputHwIdRecord&,
                         const AuxOutputHwIdRecord&) = default;
};

// A record type this library does not know (newer kernels): its body bytes.
struct UnknownRecord {
  std::vector<uint8_t> body;

  friend bool operator==(const UnknownRecord&, const UnknownRecord&) = default;
};

// The typed body of a record.
using RecordBody =
    std::variant<SampleRecord, MmapRecord, Mmap2Record, LostRecord, CommRecord,
                 TaskRecord, ThrottleRecord, ReadRecord, AuxRecord,
                 ItraceStartRecord, LostSamplesRecord, SwitchRecord,
                 NamespacesRecord, KsymbolRecord, BpfEventRecord, CgroupRecord,
                 TextPokeRecord, AuxOutputHwIdRecord, UnknownRecord>;

// One decoded record.
struct Record {
  RecordHeader header;
  RecordBody body;

  // The PERF_RECORD_* type (header.type).
  uint32_t type() const { return header.type; }
  // The body as T, or nullptr when it holds another type.
  template <typename T>
  const T* As() const {
    return std::get_if<T>(&body);
  }

  friend bool operator==(const Record&, const Record&) = default;
};

// Reads the header of `bytes` (at least 8 bytes, else DataLoss).
absl::StatusOr<RecordHeader> DecodeHeader(absl::Span<const uint8_t> bytes);

// Decodes one whole record: `bytes` must be exactly header.size bytes long.
// Errors (DataLoss) name the record type and the field that did not fit.
absl::StatusOr<Record> DecodeRecord(absl::Span<const uint8_t> bytes,
                                    const RecordFormat& format);

// The size in bytes of the SampleId trailer for `format` (0 unless
// sample_id_all).
size_t SampleIdSize(const RecordFormat& format);

}  // namespace perfcounters
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_RECORDS_H_
