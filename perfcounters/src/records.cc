// records.cc: the bounds-checked record decoder — a record's framing
// (header, size, the sample_id trailer) and the public entry points; the
// fields of each record type are decoded in record_decoders.cc.
#include "perfcounters/records.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "perfcounters/internal/status_macros.h"
#include "record_decoders.h"

namespace perfcounters {
namespace {

using internal::Cursor;
using internal::DecodeBody;
using internal::DecodeReadValues;
using internal::DecodeSample;
using internal::DecodeSampleId;

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
  Record record;
  ASSIGN_OR_RETURN(record.header, DecodeHeader(bytes));
  const RecordHeader* header = &record.header;
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
    RETURN_IF_ERROR(DecodeSample(c, format, &s));
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
    RETURN_IF_ERROR(c.Read("pid", &r.pid));
    RETURN_IF_ERROR(c.Read("tid", &r.tid));
    RETURN_IF_ERROR(DecodeReadValues(c, format.read_format, &r.values));
    RETURN_IF_ERROR(c.ExpectEnd());
    Cursor t(payload.last(trailer), name);
    if (format.sample_id_all)
      RETURN_IF_ERROR(DecodeSampleId(t, format, &r.sample_id));
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
  RETURN_IF_ERROR(DecodeBody(body, record.header, &record.body));
  RETURN_IF_ERROR(body.ExpectEnd());
  if (trailer > 0) {
    SampleId* id = SampleIdOf(record.body);
    if (id != nullptr) {
      Cursor t(payload.last(trailer), name);
      RETURN_IF_ERROR(DecodeSampleId(t, format, id));
    }
  }
  return record;
}

}  // namespace perfcounters
