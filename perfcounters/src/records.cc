// records.cc: the bounds-checked record decoder.
//
// Everything is read through `Cursor`, a position over a byte span that
// refuses (with an error naming the record type and the field) any read that
// would leave the span. No read ever touches memory outside the record.
#include "perfcounters/records.h"

#include <bit>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perfcounters {
namespace {

// A bounds-checked reader over one record's bytes.
class Cursor {
 public:
  Cursor(absl::Span<const uint8_t> bytes, std::string_view record)
      : bytes_(bytes), record_(record) {}

  size_t remaining() const { return bytes_.size() - pos_; }
  size_t pos() const { return pos_; }

  // An error naming the record and field that did not fit.
  absl::Status Short(std::string_view field, size_t need) const {
    return absl::DataLossError(absl::StrFormat(
        "perf record %s: field %s needs %u bytes at offset %u, but only %u "
        "remain in the record (truncated or corrupt record)",
        record_, field, need, pos_ + 8, remaining()));
  }

  template <typename T>
  absl::Status Read(std::string_view field, T* out) {
    if (remaining() < sizeof(T)) return Short(field, sizeof(T));
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return absl::OkStatus();
  }

  template <typename T>
  absl::Status ReadOpt(std::string_view field, std::optional<T>* out) {
    T v{};
    if (auto s = Read(field, &v); !s.ok()) return s;
    *out = v;
    return absl::OkStatus();
  }

  absl::Status Bytes(std::string_view field, uint64_t n,
                     std::vector<uint8_t>* out) {
    if (remaining() < n) return Short(field, n);
    out->assign(bytes_.begin() + pos_, bytes_.begin() + pos_ + n);
    pos_ += n;
    return absl::OkStatus();
  }

  // `count` elements of `elem_size` bytes: checks the product without
  // overflowing before anything is allocated.
  absl::Status CheckArray(std::string_view field, uint64_t count,
                          size_t elem_size) const {
    if (count > remaining() / elem_size) {
      return absl::DataLossError(absl::StrFormat(
          "perf record %s: field %s claims %u entries of %u bytes, but only "
          "%u bytes remain in the record",
          record_, field, count, elem_size, remaining()));
    }
    return absl::OkStatus();
  }

  absl::Status U64Array(std::string_view field, uint64_t count,
                        std::vector<uint64_t>* out) {
    if (auto s = CheckArray(field, count, 8); !s.ok()) return s;
    out->resize(count);
    // memcpy from/to an empty vector's null data() is undefined even for 0.
    if (count != 0) std::memcpy(out->data(), bytes_.data() + pos_, count * 8);
    pos_ += count * 8;
    return absl::OkStatus();
  }

  // A NUL-terminated, padded string filling the rest of the span.
  std::string RestAsString() {
    const char* p = reinterpret_cast<const char*>(bytes_.data() + pos_);
    size_t n = remaining();
    size_t len = strnlen(p, n);
    pos_ = bytes_.size();
    return std::string(p, len);
  }

  // Requires the cursor to have consumed everything.
  absl::Status ExpectEnd() const {
    if (remaining() == 0) return absl::OkStatus();
    return absl::DataLossError(absl::StrFormat(
        "perf record %s: %u unexpected bytes after the last field (the "
        "record format does not match the event's attr?)",
        record_, remaining()));
  }

 private:
  absl::Span<const uint8_t> bytes_;
  size_t pos_ = 0;
  std::string_view record_;
};

#define PC_RETURN_IF_ERROR(expr)   \
  do {                             \
    absl::Status pc_s_ = (expr);   \
    if (!pc_s_.ok()) return pc_s_; \
  } while (0)

absl::Status DecodeSampleId(Cursor& c, const RecordFormat& f, SampleId* id) {
  const uint64_t t = f.sample_type;
  if (t & PERF_SAMPLE_TID) {
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.pid", &id->pid));
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.tid", &id->tid));
  }
  if (t & PERF_SAMPLE_TIME)
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.time", &id->time));
  if (t & PERF_SAMPLE_ID)
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.id", &id->id));
  if (t & PERF_SAMPLE_STREAM_ID) {
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.stream_id", &id->stream_id));
  }
  if (t & PERF_SAMPLE_CPU) {
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.cpu", &id->cpu));
    uint32_t res;
    PC_RETURN_IF_ERROR(c.Read("sample_id.cpu_reserved", &res));
  }
  if (t & PERF_SAMPLE_IDENTIFIER) {
    PC_RETURN_IF_ERROR(c.ReadOpt("sample_id.identifier", &id->identifier));
  }
  return absl::OkStatus();
}

absl::Status DecodeReadValues(Cursor& c, uint64_t read_format,
                              ReadValues* out) {
  auto one = [&](ReadValue* v) -> absl::Status {
    if (read_format & PERF_FORMAT_ID)
      PC_RETURN_IF_ERROR(c.ReadOpt("read.id", &v->id));
    if (read_format & PERF_FORMAT_LOST) {
      PC_RETURN_IF_ERROR(c.ReadOpt("read.lost", &v->lost));
    }
    return absl::OkStatus();
  };
  if (read_format & PERF_FORMAT_GROUP) {
    uint64_t nr = 0;
    PC_RETURN_IF_ERROR(c.Read("read.nr", &nr));
    if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
      PC_RETURN_IF_ERROR(c.ReadOpt("read.time_enabled", &out->time_enabled));
    }
    if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
      PC_RETURN_IF_ERROR(c.ReadOpt("read.time_running", &out->time_running));
    }
    const size_t per =
        8 *
        (1 + std::popcount(read_format & (PERF_FORMAT_ID | PERF_FORMAT_LOST)));
    PC_RETURN_IF_ERROR(c.CheckArray("read.values", nr, per));
    out->values.resize(nr);
    for (ReadValue& v : out->values) {
      PC_RETURN_IF_ERROR(c.Read("read.value", &v.value));
      PC_RETURN_IF_ERROR(one(&v));
    }
    return absl::OkStatus();
  }
  ReadValue v;
  PC_RETURN_IF_ERROR(c.Read("read.value", &v.value));
  if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) {
    PC_RETURN_IF_ERROR(c.ReadOpt("read.time_enabled", &out->time_enabled));
  }
  if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) {
    PC_RETURN_IF_ERROR(c.ReadOpt("read.time_running", &out->time_running));
  }
  PC_RETURN_IF_ERROR(one(&v));
  out->values.push_back(v);
  return absl::OkStatus();
}

absl::Status DecodeRegs(Cursor& c, std::string_view field, uint64_t mask,
                        SampleRegs* out) {
  PC_RETURN_IF_ERROR(c.Read(field, &out->abi));
  if (out->abi == PERF_SAMPLE_REGS_ABI_NONE) return absl::OkStatus();
  return c.U64Array(field, std::popcount(mask), &out->regs);
}

absl::Status DecodeSample(Cursor& c, const RecordFormat& f, SampleRecord* s) {
  const uint64_t t = f.sample_type;
  if (t & PERF_SAMPLE_IDENTIFIER)
    PC_RETURN_IF_ERROR(c.ReadOpt("identifier", &s->identifier));
  if (t & PERF_SAMPLE_IP) PC_RETURN_IF_ERROR(c.ReadOpt("ip", &s->ip));
  if (t & PERF_SAMPLE_TID) {
    PC_RETURN_IF_ERROR(c.ReadOpt("pid", &s->pid));
    PC_RETURN_IF_ERROR(c.ReadOpt("tid", &s->tid));
  }
  if (t & PERF_SAMPLE_TIME) PC_RETURN_IF_ERROR(c.ReadOpt("time", &s->time));
  if (t & PERF_SAMPLE_ADDR) PC_RETURN_IF_ERROR(c.ReadOpt("addr", &s->addr));
  if (t & PERF_SAMPLE_ID) PC_RETURN_IF_ERROR(c.ReadOpt("id", &s->id));
  if (t & PERF_SAMPLE_STREAM_ID)
    PC_RETURN_IF_ERROR(c.ReadOpt("stream_id", &s->stream_id));
  if (t & PERF_SAMPLE_CPU) {
    PC_RETURN_IF_ERROR(c.ReadOpt("cpu", &s->cpu));
    uint32_t res;
    PC_RETURN_IF_ERROR(c.Read("cpu_reserved", &res));
  }
  if (t & PERF_SAMPLE_PERIOD)
    PC_RETURN_IF_ERROR(c.ReadOpt("period", &s->period));
  if (t & PERF_SAMPLE_READ) {
    s->read.emplace();
    PC_RETURN_IF_ERROR(DecodeReadValues(c, f.read_format, &*s->read));
  }
  if (t & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = 0;
    PC_RETURN_IF_ERROR(c.Read("callchain.nr", &nr));
    s->callchain.emplace();
    PC_RETURN_IF_ERROR(c.U64Array("callchain.ips", nr, &*s->callchain));
  }
  if (t & PERF_SAMPLE_RAW) {
    uint32_t size = 0;
    PC_RETURN_IF_ERROR(c.Read("raw.size", &size));
    s->raw.emplace();
    PC_RETURN_IF_ERROR(c.Bytes("raw.data", size, &*s->raw));
  }
  if (t & PERF_SAMPLE_BRANCH_STACK) {
    s->branch_stack.emplace();
    uint64_t nr = 0;
    PC_RETURN_IF_ERROR(c.Read("branch_stack.nr", &nr));
    if (f.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
      PC_RETURN_IF_ERROR(
          c.ReadOpt("branch_stack.hw_idx", &s->branch_stack->hw_idx));
    }
    PC_RETURN_IF_ERROR(c.CheckArray("branch_stack.entries", nr, 24));
    s->branch_stack->entries.resize(nr);
    for (BranchEntry& e : s->branch_stack->entries) {
      PC_RETURN_IF_ERROR(c.Read("branch_stack.from", &e.from));
      PC_RETURN_IF_ERROR(c.Read("branch_stack.to", &e.to));
      PC_RETURN_IF_ERROR(c.Read("branch_stack.flags", &e.flags));
    }
  }
  if (t & PERF_SAMPLE_REGS_USER) {
    s->regs_user.emplace();
    PC_RETURN_IF_ERROR(
        DecodeRegs(c, "regs_user", f.sample_regs_user, &*s->regs_user));
  }
  if (t & PERF_SAMPLE_STACK_USER) {
    s->stack_user.emplace();
    uint64_t size = 0;
    PC_RETURN_IF_ERROR(c.Read("stack_user.size", &size));
    PC_RETURN_IF_ERROR(c.Bytes("stack_user.data", size, &s->stack_user->data));
    if (size != 0) {
      PC_RETURN_IF_ERROR(
          c.ReadOpt("stack_user.dyn_size", &s->stack_user->dyn_size));
      if (*s->stack_user->dyn_size > size) {
        return absl::DataLossError(absl::StrFormat(
            "perf record sample: field stack_user.dyn_size is %u, larger than "
            "the %u bytes of stack_user.data",
            *s->stack_user->dyn_size, size));
      }
    }
  }
  if (t & PERF_SAMPLE_WEIGHT_STRUCT) {
    SampleWeightStruct w;
    PC_RETURN_IF_ERROR(c.Read("weight.var1_dw", &w.var1_dw));
    PC_RETURN_IF_ERROR(c.Read("weight.var2_w", &w.var2_w));
    PC_RETURN_IF_ERROR(c.Read("weight.var3_w", &w.var3_w));
    s->weight_struct = w;
  } else if (t & PERF_SAMPLE_WEIGHT) {
    PC_RETURN_IF_ERROR(c.ReadOpt("weight", &s->weight));
  }
  if (t & PERF_SAMPLE_DATA_SRC)
    PC_RETURN_IF_ERROR(c.ReadOpt("data_src", &s->data_src));
  if (t & PERF_SAMPLE_TRANSACTION) {
    PC_RETURN_IF_ERROR(c.ReadOpt("transaction", &s->transaction));
  }
  if (t & PERF_SAMPLE_REGS_INTR) {
    s->regs_intr.emplace();
    PC_RETURN_IF_ERROR(
        DecodeRegs(c, "regs_intr", f.sample_regs_intr, &*s->regs_intr));
  }
  if (t & PERF_SAMPLE_PHYS_ADDR)
    PC_RETURN_IF_ERROR(c.ReadOpt("phys_addr", &s->phys_addr));
  if (t & PERF_SAMPLE_CGROUP)
    PC_RETURN_IF_ERROR(c.ReadOpt("cgroup", &s->cgroup));
  if (t & PERF_SAMPLE_DATA_PAGE_SIZE) {
    PC_RETURN_IF_ERROR(c.ReadOpt("data_page_size", &s->data_page_size));
  }
  if (t & PERF_SAMPLE_CODE_PAGE_SIZE) {
    PC_RETURN_IF_ERROR(c.ReadOpt("code_page_size", &s->code_page_size));
  }
  if (t & PERF_SAMPLE_AUX) {
    uint64_t size = 0;
    PC_RETURN_IF_ERROR(c.Read("aux.size", &size));
    s->aux.emplace();
    PC_RETURN_IF_ERROR(c.Bytes("aux.data", size, &*s->aux));
  }
  return c.ExpectEnd();
}

// The fields MMAP and MMAP2 start with.
template <typename MmapLike>
absl::Status DecodeMapping(Cursor& c, MmapLike* r) {
  PC_RETURN_IF_ERROR(c.Read("pid", &r->pid));
  PC_RETURN_IF_ERROR(c.Read("tid", &r->tid));
  PC_RETURN_IF_ERROR(c.Read("addr", &r->addr));
  PC_RETURN_IF_ERROR(c.Read("len", &r->len));
  return c.Read("pgoff", &r->pgoff);
}

// Decodes the body of a non-sample record (without its trailer).
absl::Status DecodeBody(Cursor& c, const RecordHeader& h, RecordBody* body) {
  switch (h.type) {
    case PERF_RECORD_MMAP: {
      MmapRecord r;
      PC_RETURN_IF_ERROR(DecodeMapping(c, &r));
      r.filename = c.RestAsString();
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_MMAP2: {
      Mmap2Record r;
      PC_RETURN_IF_ERROR(DecodeMapping(c, &r));
      if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
        uint8_t size = 0, res1 = 0;
        uint16_t res2 = 0;
        PC_RETURN_IF_ERROR(c.Read("build_id_size", &size));
        PC_RETURN_IF_ERROR(c.Read("reserved_1", &res1));
        PC_RETURN_IF_ERROR(c.Read("reserved_2", &res2));
        std::vector<uint8_t> id;
        PC_RETURN_IF_ERROR(c.Bytes("build_id", 20, &id));
        if (size > 20) {
          return absl::DataLossError(absl::StrFormat(
              "perf record mmap2: field build_id_size is %u, but a build id "
              "holds at most 20 bytes",
              size));
        }
        id.resize(size);
        r.build_id = std::move(id);
      } else {
        PC_RETURN_IF_ERROR(c.ReadOpt("maj", &r.maj));
        PC_RETURN_IF_ERROR(c.ReadOpt("min", &r.min));
        PC_RETURN_IF_ERROR(c.ReadOpt("ino", &r.ino));
        PC_RETURN_IF_ERROR(c.ReadOpt("ino_generation", &r.ino_generation));
      }
      PC_RETURN_IF_ERROR(c.Read("prot", &r.prot));
      PC_RETURN_IF_ERROR(c.Read("flags", &r.flags));
      r.filename = c.RestAsString();
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_LOST: {
      LostRecord r;
      PC_RETURN_IF_ERROR(c.Read("id", &r.id));
      PC_RETURN_IF_ERROR(c.Read("lost", &r.lost));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_COMM: {
      CommRecord r;
      PC_RETURN_IF_ERROR(c.Read("pid", &r.pid));
      PC_RETURN_IF_ERROR(c.Read("tid", &r.tid));
      r.comm = c.RestAsString();
      r.exec = (h.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_EXIT:
    case PERF_RECORD_FORK: {
      TaskRecord r;
      PC_RETURN_IF_ERROR(c.Read("pid", &r.pid));
      PC_RETURN_IF_ERROR(c.Read("ppid", &r.ppid));
      PC_RETURN_IF_ERROR(c.Read("tid", &r.tid));
      PC_RETURN_IF_ERROR(c.Read("ptid", &r.ptid));
      PC_RETURN_IF_ERROR(c.Read("time", &r.time));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE: {
      ThrottleRecord r;
      r.throttled = h.type == PERF_RECORD_THROTTLE;
      PC_RETURN_IF_ERROR(c.Read("time", &r.time));
      PC_RETURN_IF_ERROR(c.Read("id", &r.id));
      PC_RETURN_IF_ERROR(c.Read("stream_id", &r.stream_id));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_AUX: {
      AuxRecord r;
      PC_RETURN_IF_ERROR(c.Read("aux_offset", &r.aux_offset));
      PC_RETURN_IF_ERROR(c.Read("aux_size", &r.aux_size));
      PC_RETURN_IF_ERROR(c.Read("flags", &r.flags));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_ITRACE_START: {
      ItraceStartRecord r;
      PC_RETURN_IF_ERROR(c.Read("pid", &r.pid));
      PC_RETURN_IF_ERROR(c.Read("tid", &r.tid));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_LOST_SAMPLES: {
      LostSamplesRecord r;
      PC_RETURN_IF_ERROR(c.Read("lost", &r.lost));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE: {
      SwitchRecord r;
      r.out = (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
      r.preempted = r.out && (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
      if (h.type == PERF_RECORD_SWITCH_CPU_WIDE) {
        PC_RETURN_IF_ERROR(c.ReadOpt("next_prev_pid", &r.next_prev_pid));
        PC_RETURN_IF_ERROR(c.ReadOpt("next_prev_tid", &r.next_prev_tid));
      }
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_NAMESPACES: {
      NamespacesRecord r;
      PC_RETURN_IF_ERROR(c.Read("pid", &r.pid));
      PC_RETURN_IF_ERROR(c.Read("tid", &r.tid));
      uint64_t nr = 0;
      PC_RETURN_IF_ERROR(c.Read("nr_namespaces", &nr));
      PC_RETURN_IF_ERROR(c.CheckArray("namespaces", nr, 16));
      r.namespaces.resize(nr);
      for (NamespaceLink& l : r.namespaces) {
        PC_RETURN_IF_ERROR(c.Read("namespaces.dev", &l.dev));
        PC_RETURN_IF_ERROR(c.Read("namespaces.inode", &l.inode));
      }
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_KSYMBOL: {
      KsymbolRecord r;
      PC_RETURN_IF_ERROR(c.Read("addr", &r.addr));
      PC_RETURN_IF_ERROR(c.Read("len", &r.len));
      PC_RETURN_IF_ERROR(c.Read("ksym_type", &r.ksym_type));
      PC_RETURN_IF_ERROR(c.Read("flags", &r.flags));
      r.name = c.RestAsString();
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_BPF_EVENT: {
      BpfEventRecord r;
      PC_RETURN_IF_ERROR(c.Read("type", &r.event_type));
      PC_RETURN_IF_ERROR(c.Read("flags", &r.flags));
      PC_RETURN_IF_ERROR(c.Read("id", &r.id));
      PC_RETURN_IF_ERROR(c.Read("tag", &r.tag));
      *body = r;
      return absl::OkStatus();
    }
    case PERF_RECORD_CGROUP: {
      CgroupRecord r;
      PC_RETURN_IF_ERROR(c.Read("id", &r.id));
      r.path = c.RestAsString();
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_TEXT_POKE: {
      TextPokeRecord r;
      uint16_t old_len = 0, new_len = 0;
      PC_RETURN_IF_ERROR(c.Read("addr", &r.addr));
      PC_RETURN_IF_ERROR(c.Read("old_len", &old_len));
      PC_RETURN_IF_ERROR(c.Read("new_len", &new_len));
      PC_RETURN_IF_ERROR(c.Bytes("bytes(old)", old_len, &r.old_bytes));
      PC_RETURN_IF_ERROR(c.Bytes("bytes(new)", new_len, &r.new_bytes));
      // The rest is padding to 8 bytes.
      if (c.remaining() >= 8) {
        return absl::DataLossError(absl::StrFormat(
            "perf record text_poke: %u bytes after old_len+new_len=%u bytes, "
            "more than padding",
            c.remaining(), old_len + new_len));
      }
      c.RestAsString();
      *body = std::move(r);
      return absl::OkStatus();
    }
    case PERF_RECORD_AUX_OUTPUT_HW_ID: {
      AuxOutputHwIdRecord r;
      PC_RETURN_IF_ERROR(c.Read("hw_id", &r.hw_id));
      *body = r;
      return absl::OkStatus();
    }
    default: {
      UnknownRecord r;
      PC_RETURN_IF_ERROR(c.Bytes("body", c.remaining(), &r.body));
      *body = std::move(r);
      return absl::OkStatus();
    }
  }
}

// The SampleId inside a decoded non-sample body, or nullptr.
SampleId* SampleIdOf(RecordBody& body) {
  return std::visit(
      [](auto& r) -> SampleId* {
        if constexpr (requires { r.sample_id; }) {
          return &r.sample_id;
        } else {
          return nullptr;
        }
      },
      body);
}

}  // namespace

RecordFormat RecordFormat::FromAttr(const Attr& attr) {
  RecordFormat f;
  f.sample_type = attr.sample_type;
  f.read_format = attr.read_format;
  f.sample_id_all = attr.sample_id_all;
  f.branch_sample_type = attr.branch_sample_type;
  f.sample_regs_user = attr.sample_regs_user;
  f.sample_regs_intr = attr.sample_regs_intr;
  return f;
}

absl::Status CheckOutputCompatible(const Attr& leader, const Attr& follower) {
  auto differs = [](std::string_view field, uint64_t l, uint64_t f) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "SetOutput: the follower's %s (%#x) differs from the ring owner's "
        "(%#x); records sharing one ring must have the same sample_type, "
        "read_format, sample_id_all, branch_sample_type, sample_regs_user, "
        "sample_regs_intr and clock",
        field, f, l));
  };
  const RecordFormat l = RecordFormat::FromAttr(leader);
  const RecordFormat f = RecordFormat::FromAttr(follower);
  if (l.sample_type != f.sample_type) {
    return differs("sample_type", l.sample_type, f.sample_type);
  }
  if (l.read_format != f.read_format) {
    return differs("read_format", l.read_format, f.read_format);
  }
  if (l.sample_id_all != f.sample_id_all) {
    return differs("sample_id_all", l.sample_id_all, f.sample_id_all);
  }
  if (l.branch_sample_type != f.branch_sample_type) {
    return differs("branch_sample_type", l.branch_sample_type,
                   f.branch_sample_type);
  }
  if (l.sample_regs_user != f.sample_regs_user) {
    return differs("sample_regs_user", l.sample_regs_user, f.sample_regs_user);
  }
  if (l.sample_regs_intr != f.sample_regs_intr) {
    return differs("sample_regs_intr", l.sample_regs_intr, f.sample_regs_intr);
  }
  if (leader.use_clockid != follower.use_clockid) {
    return differs("use_clockid", leader.use_clockid, follower.use_clockid);
  }
  if (leader.use_clockid && leader.clockid != follower.clockid) {
    return differs("clockid", static_cast<uint32_t>(leader.clockid),
                   static_cast<uint32_t>(follower.clockid));
  }
  return absl::OkStatus();
}

std::string RecordTypeName(uint32_t type) {
  switch (type) {
    case PERF_RECORD_MMAP:
      return "mmap";
    case PERF_RECORD_LOST:
      return "lost";
    case PERF_RECORD_COMM:
      return "comm";
    case PERF_RECORD_EXIT:
      return "exit";
    case PERF_RECORD_THROTTLE:
      return "throttle";
    case PERF_RECORD_UNTHROTTLE:
      return "unthrottle";
    case PERF_RECORD_FORK:
      return "fork";
    case PERF_RECORD_READ:
      return "read";
    case PERF_RECORD_SAMPLE:
      return "sample";
    case PERF_RECORD_MMAP2:
      return "mmap2";
    case PERF_RECORD_AUX:
      return "aux";
    case PERF_RECORD_ITRACE_START:
      return "itrace_start";
    case PERF_RECORD_LOST_SAMPLES:
      return "lost_samples";
    case PERF_RECORD_SWITCH:
      return "switch";
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return "switch_cpu_wide";
    case PERF_RECORD_NAMESPACES:
      return "namespaces";
    case PERF_RECORD_KSYMBOL:
      return "ksymbol";
    case PERF_RECORD_BPF_EVENT:
      return "bpf_event";
    case PERF_RECORD_CGROUP:
      return "cgroup";
    case PERF_RECORD_TEXT_POKE:
      return "text_poke";
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      return "aux_output_hw_id";
    default:
      return absl::StrCat("unknown(", type, ")");
  }
}

size_t SampleIdSize(const RecordFormat& format) {
  if (!format.sample_id_all) return 0;
  const uint64_t t = format.sample_type;
  size_t n = 0;
  for (uint64_t bit :
       {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
        PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER}) {
    if (t & bit) n += 8;
  }
  return n;
}

absl::StatusOr<RecordHeader> DecodeHeader(absl::Span<const uint8_t> bytes) {
  if (bytes.size() < sizeof(perf_event_header)) {
    return absl::DataLossError(absl::StrFormat(
        "perf record header needs 8 bytes, got %u", bytes.size()));
  }
  RecordHeader h;
  std::memcpy(&h.type, bytes.data(), 4);
  std::memcpy(&h.misc, bytes.data() + 4, 2);
  std::memcpy(&h.size, bytes.data() + 6, 2);
  return h;
}

absl::StatusOr<Record> DecodeRecord(absl::Span<const uint8_t> bytes,
                                    const RecordFormat& format) {
  absl::StatusOr<RecordHeader> header = DecodeHeader(bytes);
  if (!header.ok()) return header.status();
  Record record;
  record.header = *header;
  const std::string name = RecordTypeName(header->type);
  if (header->size < sizeof(perf_event_header)) {
    return absl::DataLossError(absl::StrFormat(
        "perf record %s: header.size is %u, smaller than the 8-byte header",
        name, header->size));
  }
  if (header->size != bytes.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "perf record %s: header.size is %u but %u bytes were given (pass "
        "exactly one record)",
        name, header->size, bytes.size()));
  }
  absl::Span<const uint8_t> payload = bytes.subspan(sizeof(perf_event_header));
  if (header->type == PERF_RECORD_SAMPLE) {
    SampleRecord s;
    Cursor c(payload, name);
    if (absl::Status st = DecodeSample(c, format, &s); !st.ok()) return st;
    record.body = std::move(s);
    return record;
  }
  if (header->type == PERF_RECORD_READ) {
    // PERF_RECORD_READ: pid, tid, read_format block, trailer.
    ReadRecord r;
    const size_t trailer = SampleIdSize(format);
    if (payload.size() < trailer) {
      return absl::DataLossError(absl::StrFormat(
          "perf record read: %u bytes cannot hold the %u-byte sample_id "
          "trailer",
          payload.size(), trailer));
    }
    Cursor c(payload.first(payload.size() - trailer), name);
    PC_RETURN_IF_ERROR(c.Read("pid", &r.pid));
    PC_RETURN_IF_ERROR(c.Read("tid", &r.tid));
    PC_RETURN_IF_ERROR(DecodeReadValues(c, format.read_format, &r.values));
    PC_RETURN_IF_ERROR(c.ExpectEnd());
    Cursor t(payload.last(trailer), name);
    if (format.sample_id_all)
      PC_RETURN_IF_ERROR(DecodeSampleId(t, format, &r.sample_id));
    record.body = std::move(r);
    return record;
  }
  // Every other record: body, then the sample_id trailer at the very end.
  const bool known = header->type < PERF_RECORD_MAX;
  const size_t trailer = known ? SampleIdSize(format) : 0;
  if (payload.size() < trailer) {
    return absl::DataLossError(absl::StrFormat(
        "perf record %s: %u bytes after the header cannot hold the %u-byte "
        "sample_id trailer",
        name, payload.size(), trailer));
  }
  Cursor body(payload.first(payload.size() - trailer), name);
  PC_RETURN_IF_ERROR(DecodeBody(body, record.header, &record.body));
  PC_RETURN_IF_ERROR(body.ExpectEnd());
  if (trailer > 0) {
    SampleId* id = SampleIdOf(record.body);
    if (id != nullptr) {
      Cursor t(payload.last(trailer), name);
      PC_RETURN_IF_ERROR(DecodeSampleId(t, format, id));
    }
  }
  return record;
}

}  // namespace perfcounters
