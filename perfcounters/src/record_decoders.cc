// record_decoders.cc: the fields of every record type, read through
// Cursor (record_decoders.h); records.cc frames the record around them.
#include "record_decoders.h"

#include <linux/perf_event.h>

#include <bit>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "perfcounters/internal/status_macros.h"

namespace perfcounters::internal {

absl::Status DecodeSampleId(Cursor& c, const RecordFormat& f, SampleId* id) {
  const uint64_t t = f.sample_type;
  if (t & PERF_SAMPLE_TID) {
    RETURN_IF_ERROR(c.ReadOpt("sample_id.pid", &id->pid));
    RETURN_IF_ERROR(c.ReadOpt("sample_id.tid", &id->tid));
  }
  if (t & PERF_SAMPLE_TIME)
    RETURN_IF_ERROR(c.ReadOpt("sample_id.time", &id->time));
  if (t & PERF_SAMPLE_ID) RETURN_IF_ERROR(c.ReadOpt("sample_id.id", &id->id));
  if (t & PERF_SAMPLE_STREAM_ID) {
    RETURN_IF_ERROR(c.ReadOpt("sample_id.stream_id", &id->stream_id));
  }
  if (t & PERF_SAMPLE_CPU) {
    RETURN_IF_ERROR(c.ReadOpt("sample_id.cpu", &id->cpu));
    uint32_t res;
    RETURN_IF_ERROR(c.Read("sample_id.cpu_reserved", &res));
  }
  if (t & PERF_SAMPLE_IDENTIFIER) {
    RETURN_IF_ERROR(c.ReadOpt("sample_id.identifier", &id->identifier));
  }
  return absl::OkStatus();
}

absl::Status DecodeReadValues(Cursor& c, uint64_t read_format,
                              ReadValues* out) {
  auto one = [&](ReadValue* v) -> absl::Status {
    if (read_format & PERF_FORMAT_ID)
      RETURN_IF_ERROR(c.ReadOpt("read.id", &v->id));
    if (read_format & PERF_FORMAT_LOST) {
      RETURN_IF_ERROR(c.ReadOpt("read.lost", &v->lost));
    }
    return absl::OkStatus();
  };
  if (read_format & PERF_FORMAT_GROUP) {
    uint64_t nr = 0;
    RETURN_IF_ERROR(c.Read("read.nr", &nr));
    if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
      RETURN_IF_ERROR(c.ReadOpt("read.time_enabled", &out->time_enabled));
    }
    if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
      RETURN_IF_ERROR(c.ReadOpt("read.time_running", &out->time_running));
    }
    const size_t per =
        8 *
        (1 + std::popcount(read_format & (PERF_FORMAT_ID | PERF_FORMAT_LOST)));
    RETURN_IF_ERROR(c.CheckArray("read.values", nr, per));
    out->values.resize(nr);
    for (ReadValue& v : out->values) {
      RETURN_IF_ERROR(c.Read("read.value", &v.value));
      RETURN_IF_ERROR(one(&v));
    }
    return absl::OkStatus();
  }
  ReadValue v;
  RETURN_IF_ERROR(c.Read("read.value", &v.value));
  if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
    RETURN_IF_ERROR(c.ReadOpt("read.time_enabled", &out->time_enabled));
  }
  if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
    RETURN_IF_ERROR(c.ReadOpt("read.time_running", &out->time_running));
  }
  RETURN_IF_ERROR(one(&v));
  out->values.push_back(v);
  return absl::OkStatus();
}

namespace {

absl::Status DecodeRegs(Cursor& c, std::string_view field, uint64_t mask,
                        SampleRegs* out) {
  RETURN_IF_ERROR(c.Read(field, &out->abi));
  if (out->abi == PERF_SAMPLE_REGS_ABI_NONE) return absl::OkStatus();
  return c.U64Array(field, std::popcount(mask), &out->regs);
}

absl::Status DecodeBranchStack(Cursor& c, const RecordFormat& f,
                               BranchStack* out) {
  uint64_t nr = 0;
  RETURN_IF_ERROR(c.Read("branch_stack.nr", &nr));
  if (f.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
    RETURN_IF_ERROR(c.ReadOpt("branch_stack.hw_idx", &out->hw_idx));
  }
  RETURN_IF_ERROR(c.CheckArray("branch_stack.entries", nr, 24));
  out->entries.resize(nr);
  for (BranchEntry& e : out->entries) {
    RETURN_IF_ERROR(c.Read("branch_stack.from", &e.from));
    RETURN_IF_ERROR(c.Read("branch_stack.to", &e.to));
    RETURN_IF_ERROR(c.Read("branch_stack.flags", &e.flags));
  }
  return absl::OkStatus();
}

absl::Status DecodeStackUser(Cursor& c, StackUser* out) {
  uint64_t size = 0;
  RETURN_IF_ERROR(c.Read("stack_user.size", &size));
  RETURN_IF_ERROR(c.Bytes("stack_user.data", size, &out->data));
  if (size == 0) return absl::OkStatus();
  RETURN_IF_ERROR(c.ReadOpt("stack_user.dyn_size", &out->dyn_size));
  if (*out->dyn_size > size) {
    return absl::DataLossError(absl::StrFormat(
        "perf record sample: field stack_user.dyn_size is %u, larger than "
        "the %u bytes of stack_user.data",
        *out->dyn_size, size));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeSample(Cursor& c, const RecordFormat& f, SampleRecord* s) {
  const uint64_t t = f.sample_type;
  if (t & PERF_SAMPLE_IDENTIFIER)
    RETURN_IF_ERROR(c.ReadOpt("identifier", &s->identifier));
  if (t & PERF_SAMPLE_IP) RETURN_IF_ERROR(c.ReadOpt("ip", &s->ip));
  if (t & PERF_SAMPLE_TID) {
    RETURN_IF_ERROR(c.ReadOpt("pid", &s->pid));
    RETURN_IF_ERROR(c.ReadOpt("tid", &s->tid));
  }
  if (t & PERF_SAMPLE_TIME) RETURN_IF_ERROR(c.ReadOpt("time", &s->time));
  if (t & PERF_SAMPLE_ADDR) RETURN_IF_ERROR(c.ReadOpt("addr", &s->addr));
  if (t & PERF_SAMPLE_ID) RETURN_IF_ERROR(c.ReadOpt("id", &s->id));
  if (t & PERF_SAMPLE_STREAM_ID)
    RETURN_IF_ERROR(c.ReadOpt("stream_id", &s->stream_id));
  if (t & PERF_SAMPLE_CPU) {
    RETURN_IF_ERROR(c.ReadOpt("cpu", &s->cpu));
    uint32_t res;
    RETURN_IF_ERROR(c.Read("cpu_reserved", &res));
  }
  if (t & PERF_SAMPLE_PERIOD) RETURN_IF_ERROR(c.ReadOpt("period", &s->period));
  if (t & PERF_SAMPLE_READ) {
    s->read.emplace();
    RETURN_IF_ERROR(DecodeReadValues(c, f.read_format, &*s->read));
  }
  if (t & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = 0;
    RETURN_IF_ERROR(c.Read("callchain.nr", &nr));
    s->callchain.emplace();
    RETURN_IF_ERROR(c.U64Array("callchain.ips", nr, &*s->callchain));
  }
  if (t & PERF_SAMPLE_RAW) {
    uint32_t size = 0;
    RETURN_IF_ERROR(c.Read("raw.size", &size));
    s->raw.emplace();
    RETURN_IF_ERROR(c.Bytes("raw.data", size, &*s->raw));
  }
  if (t & PERF_SAMPLE_BRANCH_STACK) {
    RETURN_IF_ERROR(DecodeBranchStack(c, f, &s->branch_stack.emplace()));
  }
  if (t & PERF_SAMPLE_REGS_USER) {
    s->regs_user.emplace();
    RETURN_IF_ERROR(
        DecodeRegs(c, "regs_user", f.sample_regs_user, &*s->regs_user));
  }
  if (t & PERF_SAMPLE_STACK_USER) {
    RETURN_IF_ERROR(DecodeStackUser(c, &s->stack_user.emplace()));
  }
  if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
    SampleWeightStruct w;
    RETURN_IF_ERROR(c.Read("weight.var1_dw", &w.var1_dw));
    RETURN_IF_ERROR(c.Read("weight.var2_w", &w.var2_w));
    RETURN_IF_ERROR(c.Read("weight.var3_w", &w.var3_w));
    s->weight_struct = w;
  } else if (t & PERF_SAMPLE_WEIGHT) {
    RETURN_IF_ERROR(c.ReadOpt("weight", &s->weight));
  }
  if (t & PERF_SAMPLE_DATA_SRC)
    RETURN_IF_ERROR(c.ReadOpt("data_src", &s->data_src));
  if (t & PERF_SAMPLE_TRANSACTION) {
    RETURN_IF_ERROR(c.ReadOpt("transaction", &s->transaction));
  }
  if (t & PERF_SAMPLE_REGS_INTR) {
    s->regs_intr.emplace();
    RETURN_IF_ERROR(
        DecodeRegs(c, "regs_intr", f.sample_regs_intr, &*s->regs_intr));
  }
  if (t & PERF_SAMPLE_PHYS_ADDR)
    RETURN_IF_ERROR(c.ReadOpt("phys_addr", &s->phys_addr));
  if (t & PERF_SAMPLE_CGROUP) RETURN_IF_ERROR(c.ReadOpt("cgroup", &s->cgroup));
  if (t & PERF_SAMPLE_DATA_PAGE_SIZE) {
    RETURN_IF_ERROR(c.ReadOpt("data_page_size", &s->data_page_size));
  }
  if (t & PERF_SAMPLE_CODE_PAGE_SIZE) {
    RETURN_IF_ERROR(c.ReadOpt("code_page_size", &s->code_page_size));
  }
  if (t & PERF_SAMPLE_AUX) {
    uint64_t size = 0;
    RETURN_IF_ERROR(c.Read("aux.size", &size));
    s->aux.emplace();
    RETURN_IF_ERROR(c.Bytes("aux.data", size, &*s->aux));
  }
  return c.ExpectEnd();
}

namespace {

// The fields MMAP and MMAP2 start with.
template <typename MmapLike>
absl::Status DecodeMapping(Cursor& c, MmapLike* r) {
  RETURN_IF_ERROR(c.Read("pid", &r->pid));
  RETURN_IF_ERROR(c.Read("tid", &r->tid));
  RETURN_IF_ERROR(c.Read("addr", &r->addr));
  RETURN_IF_ERROR(c.Read("len", &r->len));
  return c.Read("pgoff", &r->pgoff);
}

// One decoder per record type (the body without its sample_id trailer).
absl::StatusOr<MmapRecord> DecodeMmap(Cursor& c, const RecordHeader&) {
  MmapRecord r;
  RETURN_IF_ERROR(DecodeMapping(c, &r));
  r.filename = c.RestAsString();
  return r;
}

absl::StatusOr<Mmap2Record> DecodeMmap2(Cursor& c, const RecordHeader& h) {
  Mmap2Record r;
  RETURN_IF_ERROR(DecodeMapping(c, &r));
  if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    uint8_t size = 0, res1 = 0;
    uint16_t res2 = 0;
    RETURN_IF_ERROR(c.Read("build_id_size", &size));
    RETURN_IF_ERROR(c.Read("reserved_1", &res1));
    RETURN_IF_ERROR(c.Read("reserved_2", &res2));
    std::vector<uint8_t> id;
    RETURN_IF_ERROR(c.Bytes("build_id", 20, &id));
    if (size > 20) {
      return absl::DataLossError(absl::StrFormat(
          "perf record mmap2: field build_id_size is %u, but a build id "
          "holds at most 20 bytes",
          size));
    }
    id.resize(size);
    r.build_id = std::move(id);
  } else {
    RETURN_IF_ERROR(c.ReadOpt("maj", &r.maj));
    RETURN_IF_ERROR(c.ReadOpt("min", &r.min));
    RETURN_IF_ERROR(c.ReadOpt("ino", &r.ino));
    RETURN_IF_ERROR(c.ReadOpt("ino_generation", &r.ino_generation));
  }
  RETURN_IF_ERROR(c.Read("prot", &r.prot));
  RETURN_IF_ERROR(c.Read("flags", &r.flags));
  r.filename = c.RestAsString();
  return r;
}

absl::StatusOr<LostRecord> DecodeLost(Cursor& c, const RecordHeader&) {
  LostRecord r;
  RETURN_IF_ERROR(c.Read("id", &r.id));
  RETURN_IF_ERROR(c.Read("lost", &r.lost));
  return r;
}

absl::StatusOr<CommRecord> DecodeComm(Cursor& c, const RecordHeader& h) {
  CommRecord r;
  RETURN_IF_ERROR(c.Read("pid", &r.pid));
  RETURN_IF_ERROR(c.Read("tid", &r.tid));
  r.comm = c.RestAsString();
  r.exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
  return r;
}

absl::StatusOr<TaskRecord> DecodeTask(Cursor& c, const RecordHeader&) {
  TaskRecord r;
  RETURN_IF_ERROR(c.Read("pid", &r.pid));
  RETURN_IF_ERROR(c.Read("ppid", &r.ppid));
  RETURN_IF_ERROR(c.Read("tid", &r.tid));
  RETURN_IF_ERROR(c.Read("ptid", &r.ptid));
  RETURN_IF_ERROR(c.Read("time", &r.time));
  return r;
}

absl::StatusOr<ThrottleRecord> DecodeThrottle(Cursor& c,
                                              const RecordHeader& h) {
  ThrottleRecord r;
  r.throttled = h.type == PERF_RECORD_THROTTLE;
  RETURN_IF_ERROR(c.Read("time", &r.time));
  RETURN_IF_ERROR(c.Read("id", &r.id));
  RETURN_IF_ERROR(c.Read("stream_id", &r.stream_id));
  return r;
}

absl::StatusOr<AuxRecord> DecodeAux(Cursor& c, const RecordHeader&) {
  AuxRecord r;
  RETURN_IF_ERROR(c.Read("aux_offset", &r.aux_offset));
  RETURN_IF_ERROR(c.Read("aux_size", &r.aux_size));
  RETURN_IF_ERROR(c.Read("flags", &r.flags));
  return r;
}

absl::StatusOr<ItraceStartRecord> DecodeItraceStart(Cursor& c,
                                                    const RecordHeader&) {
  ItraceStartRecord r;
  RETURN_IF_ERROR(c.Read("pid", &r.pid));
  RETURN_IF_ERROR(c.Read("tid", &r.tid));
  return r;
}

absl::StatusOr<LostSamplesRecord> DecodeLostSamples(Cursor& c,
                                                    const RecordHeader&) {
  LostSamplesRecord r;
  RETURN_IF_ERROR(c.Read("lost", &r.lost));
  return r;
}

absl::StatusOr<SwitchRecord> DecodeSwitch(Cursor& c, const RecordHeader& h) {
  SwitchRecord r;
  r.out = (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  r.preempted = r.out && (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
  if (h.type == PERF_RECORD_SWITCH_CPU_WIDE) {
    RETURN_IF_ERROR(c.ReadOpt("next_prev_pid", &r.next_prev_pid));
    RETURN_IF_ERROR(c.ReadOpt("next_prev_tid", &r.next_prev_tid));
  }
  return r;
}

absl::StatusOr<NamespacesRecord> DecodeNamespaces(Cursor& c,
                                                  const RecordHeader&) {
  NamespacesRecord r;
  RETURN_IF_ERROR(c.Read("pid", &r.pid));
  RETURN_IF_ERROR(c.Read("tid", &r.tid));
  uint64_t nr = 0;
  RETURN_IF_ERROR(c.Read("nr_namespaces", &nr));
  RETURN_IF_ERROR(c.CheckArray("namespaces", nr, 16));
  r.namespaces.resize(nr);
  for (NamespaceLink& l : r.namespaces) {
    RETURN_IF_ERROR(c.Read("namespaces.dev", &l.dev));
    RETURN_IF_ERROR(c.Read("namespaces.inode", &l.inode));
  }
  return r;
}

absl::StatusOr<KsymbolRecord> DecodeKsymbol(Cursor& c, const RecordHeader&) {
  KsymbolRecord r;
  RETURN_IF_ERROR(c.Read("addr", &r.addr));
  RETURN_IF_ERROR(c.Read("len", &r.len));
  RETURN_IF_ERROR(c.Read("ksym_type", &r.ksym_type));
  RETURN_IF_ERROR(c.Read("flags", &r.flags));
  r.name = c.RestAsString();
  return r;
}

absl::StatusOr<BpfEventRecord> DecodeBpfEvent(Cursor& c, const RecordHeader&) {
  BpfEventRecord r;
  RETURN_IF_ERROR(c.Read("type", &r.event_type));
  RETURN_IF_ERROR(c.Read("flags", &r.flags));
  RETURN_IF_ERROR(c.Read("id", &r.id));
  RETURN_IF_ERROR(c.Read("tag", &r.tag));
  return r;
}

absl::StatusOr<CgroupRecord> DecodeCgroup(Cursor& c, const RecordHeader&) {
  CgroupRecord r;
  RETURN_IF_ERROR(c.Read("id", &r.id));
  r.path = c.RestAsString();
  return r;
}

absl::StatusOr<TextPokeRecord> DecodeTextPoke(Cursor& c, const RecordHeader&) {
  TextPokeRecord r;
  uint16_t old_len = 0, new_len = 0;
  RETURN_IF_ERROR(c.Read("addr", &r.addr));
  RETURN_IF_ERROR(c.Read("old_len", &old_len));
  RETURN_IF_ERROR(c.Read("new_len", &new_len));
  RETURN_IF_ERROR(c.Bytes("bytes(old)", old_len, &r.old_bytes));
  RETURN_IF_ERROR(c.Bytes("bytes(new)", new_len, &r.new_bytes));
  // The rest is padding to 8 bytes.
  if (c.remaining() >= 8) {
    return absl::DataLossError(absl::StrFormat(
        "perf record text_poke: %u bytes after old_len+new_len=%u bytes, "
        "more than padding",
        c.remaining(), old_len + new_len));
  }
  c.RestAsString();
  return r;
}

absl::StatusOr<AuxOutputHwIdRecord> DecodeAuxOutputHwId(Cursor& c,
                                                        const RecordHeader&) {
  AuxOutputHwIdRecord r;
  RETURN_IF_ERROR(c.Read("hw_id", &r.hw_id));
  return r;
}

absl::StatusOr<UnknownRecord> DecodeUnknown(Cursor& c, const RecordHeader&) {
  UnknownRecord r;
  RETURN_IF_ERROR(c.Bytes("body", c.remaining(), &r.body));
  return r;
}

template <typename R>
absl::Status Into(absl::StatusOr<R> record, RecordBody* body) {
  RETURN_IF_ERROR(record.status());
  *body = *std::move(record);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeBody(Cursor& c, const RecordHeader& h, RecordBody* body) {
  switch (h.type) {
    case PERF_RECORD_MMAP:
      return Into(DecodeMmap(c, h), body);
    case PERF_RECORD_MMAP2:
      return Into(DecodeMmap2(c, h), body);
    case PERF_RECORD_LOST:
      return Into(DecodeLost(c, h), body);
    case PERF_RECORD_COMM:
      return Into(DecodeComm(c, h), body);
    case PERF_RECORD_EXIT:
    case PERF_RECORD_FORK:
      return Into(DecodeTask(c, h), body);
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      return Into(DecodeThrottle(c, h), body);
    case PERF_RECORD_AUX:
      return Into(DecodeAux(c, h), body);
    case PERF_RECORD_ITRACE_START:
      return Into(DecodeItraceStart(c, h), body);
    case PERF_RECORD_LOST_SAMPLES:
      return Into(DecodeLostSamples(c, h), body);
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return Into(DecodeSwitch(c, h), body);
    case PERF_RECORD_NAMESPACES:
      return Into(DecodeNamespaces(c, h), body);
    case PERF_RECORD_KSYMBOL:
      return Into(DecodeKsymbol(c, h), body);
    case PERF_RECORD_BPF_EVENT:
      return Into(DecodeBpfEvent(c, h), body);
    case PERF_RECORD_CGROUP:
      return Into(DecodeCgroup(c, h), body);
    case PERF_RECORD_TEXT_POKE:
      return Into(DecodeTextPoke(c, h), body);
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      return Into(DecodeAuxOutputHwId(c, h), body);
    default:
      return Into(DecodeUnknown(c, h), body);
  }
}

}  // namespace perfcounters::internal
