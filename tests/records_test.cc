// Synthetic-buffer tests of the record decoder (records.h): every record
// type, every sample field and the sample_id trailer; malformed records:
// records_malformed_test.
#include "perfcounters/records.h"

#include <linux/perf_event.h>

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/record_builder.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::perfcounters::testing::PutTrailer;
using ::perfcounters::testing::RecordBuilder;
using ::perfcounters::testing::TrailerFormat;
using ::testing::HasSubstr;

// RecordBuilder, TrailerFormat and PutTrailer: support/record_builder.h;
// malformed records: records_malformed_test.

template <typename T>
T DecodeAs(const std::vector<uint8_t>& bytes, const RecordFormat& f,
           uint32_t want_type) {
  absl::StatusOr<Record> r = DecodeRecord(bytes, f);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return T{};
  EXPECT_EQ(r->type(), want_type);
  const T* body = r->As<T>();
  EXPECT_NE(body, nullptr) << "wrong body type for "
                           << RecordTypeName(want_type);
  return body == nullptr ? T{} : *body;
}

TEST(RecordsTest, SampleWithEveryFieldInKernelOrder) {
  RecordFormat f;
  f.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                  PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
                  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
                  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT_STRUCT |
                  PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
                  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |
                  PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
                  PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
  f.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
                  PERF_FORMAT_TOTAL_TIME_ENABLED |
                  PERF_FORMAT_TOTAL_TIME_RUNNING;
  f.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
  f.sample_regs_user = 0b10110;  // 3 registers
  f.sample_regs_intr = 0b1001;   // 2 registers

  RecordBuilder b(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  b.Put<uint64_t>(1);                     // identifier
  b.Put<uint64_t>(0x401000);              // ip
  b.Put<uint32_t>(10).Put<uint32_t>(11);  // pid, tid
  b.Put<uint64_t>(12345);                 // time
  b.Put<uint64_t>(0x7f0000);              // addr
  b.Put<uint64_t>(2);                     // id
  b.Put<uint64_t>(3);                     // stream_id
  b.Put<uint32_t>(1).Put<uint32_t>(0);    // cpu, res
  b.Put<uint64_t>(1000);                  // period
  // read: nr=2, enabled, running, {value, id, lost} x2
  b.Put<uint64_t>(2).Put<uint64_t>(500).Put<uint64_t>(400);
  b.Put<uint64_t>(77).Put<uint64_t>(2).Put<uint64_t>(0);
  b.Put<uint64_t>(88).Put<uint64_t>(9).Put<uint64_t>(5);
  // callchain: nr=3
  b.Put<uint64_t>(3)
      .Put<uint64_t>(PERF_CONTEXT_USER)
      .Put<uint64_t>(0xa)
      .Put<uint64_t>(0xb);
  // raw: size 12 (u32 + 12 bytes = 16, 8-aligned)
  b.Put<uint32_t>(12).PutBytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // branch stack: nr=2, hw_idx, {from,to,flags} x2
  const uint64_t flags0 = 1 | (uint64_t{37} << 4) | (uint64_t{5} << 20);
  b.Put<uint64_t>(2).Put<uint64_t>(7);
  b.Put<uint64_t>(0x100).Put<uint64_t>(0x200).Put<uint64_t>(flags0);
  b.Put<uint64_t>(0x300).Put<uint64_t>(0x400).Put<uint64_t>(2);
  // regs user: abi 64, 3 regs
  b.Put<uint64_t>(PERF_SAMPLE_REGS_ABI_64)
      .Put<uint64_t>(21)
      .Put<uint64_t>(22)
      .Put<uint64_t>(23);
  // stack user: size 16, data, dyn_size 8
  b.Put<uint64_t>(16)
      .PutBytes({9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0})
      .Put<uint64_t>(8);
  // weight struct
  b.Put<uint32_t>(40).Put<uint16_t>(41).Put<uint16_t>(42);
  b.Put<uint64_t>(0xda7a);  // data_src
  b.Put<uint64_t>(0x7a);    // transaction
  b.Put<uint64_t>(PERF_SAMPLE_REGS_ABI_64).Put<uint64_t>(31).Put<uint64_t>(32);
  b.Put<uint64_t>(0x1234000);  // phys_addr
  b.Put<uint64_t>(55);         // cgroup
  b.Put<uint64_t>(4096);       // data_page_size
  b.Put<uint64_t>(2097152);    // code_page_size
  b.Put<uint64_t>(8).PutBytes({0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x1, 0x2});

  SampleRecord want;
  want.identifier = 1;
  want.ip = 0x401000;
  want.pid = 10;
  want.tid = 11;
  want.time = 12345;
  want.addr = 0x7f0000;
  want.id = 2;
  want.stream_id = 3;
  want.cpu = 1;
  want.period = 1000;
  want.read = ReadValues{500, 400, {{77, 2, 0}, {88, 9, 5}}};
  want.callchain = std::vector<uint64_t>{PERF_CONTEXT_USER, 0xa, 0xb};
  want.raw = std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  want.branch_stack =
      BranchStack{7, {{0x100, 0x200, flags0}, {0x300, 0x400, 2}}};
  want.regs_user = SampleRegs{PERF_SAMPLE_REGS_ABI_64, {21, 22, 23}};
  want.stack_user =
      StackUser{{9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0}, 8};
  want.weight_struct = SampleWeightStruct{40, 41, 42};
  want.data_src = 0xda7a;
  want.transaction = 0x7a;
  want.regs_intr = SampleRegs{PERF_SAMPLE_REGS_ABI_64, {31, 32}};
  want.phys_addr = 0x1234000;
  want.cgroup = 55;
  want.data_page_size = 4096;
  want.code_page_size = 2097152;
  want.aux = std::vector<uint8_t>{0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x1, 0x2};

  const SampleRecord got =
      DecodeAs<SampleRecord>(b.Build(), f, PERF_RECORD_SAMPLE);
  EXPECT_EQ(got, want);
  ASSERT_TRUE(got.branch_stack.has_value());
  const BranchEntry& e = got.branch_stack->entries[0];
  EXPECT_TRUE(e.mispred());
  EXPECT_FALSE(e.predicted());
  EXPECT_EQ(e.cycles(), 37);
  EXPECT_EQ(e.type(), 5);
  EXPECT_TRUE(got.branch_stack->entries[1].predicted());
  EXPECT_EQ(got.weight, std::nullopt);
}

TEST(RecordsTest, SampleSingleReadPlainWeightNoRegsEmptyStack) {
  RecordFormat f;
  f.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK |
                  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                  PERF_SAMPLE_WEIGHT;
  f.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
  f.sample_regs_user = 0xff;
  RecordBuilder b(PERF_RECORD_SAMPLE, 0);
  b.Put<uint64_t>(900).Put<uint64_t>(1000).Put<uint64_t>(42);  // value, te, id
  b.Put<uint64_t>(0);                          // branch nr, no hw_idx
  b.Put<uint64_t>(PERF_SAMPLE_REGS_ABI_NONE);  // no regs follow
  b.Put<uint64_t>(0);                          // stack size 0, no dyn
  b.Put<uint64_t>(333);                        // weight
  SampleRecord want;
  want.read = ReadValues{1000, std::nullopt, {{900, 42, std::nullopt}}};
  want.branch_stack = BranchStack{std::nullopt, {}};
  want.regs_user = SampleRegs{PERF_SAMPLE_REGS_ABI_NONE, {}};
  want.stack_user = StackUser{{}, std::nullopt};
  want.weight = 333;
  EXPECT_EQ(DecodeAs<SampleRecord>(b.Build(), f, PERF_RECORD_SAMPLE), want);
}

TEST(RecordsTest, EmptySampleFormatHasNoFields) {
  RecordBuilder b(PERF_RECORD_SAMPLE, 0);
  EXPECT_EQ(
      DecodeAs<SampleRecord>(b.Build(), RecordFormat{}, PERF_RECORD_SAMPLE),
      SampleRecord{});
}

TEST(RecordsTest, Mmap) {
  RecordBuilder b(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
  b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint64_t>(0x1000).Put<uint64_t>(
      0x2000);
  b.Put<uint64_t>(0x30).PutString("/usr/lib/libc.so.6");
  const SampleId id = PutTrailer(b);
  EXPECT_EQ(DecodeAs<MmapRecord>(b.Build(), TrailerFormat(), PERF_RECORD_MMAP),
            (MmapRecord{1, 2, 0x1000, 0x2000, 0x30, "/usr/lib/libc.so.6", id}));
}

TEST(RecordsTest, Mmap2WithInode) {
  RecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
  b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint64_t>(0x1000).Put<uint64_t>(
      0x2000);
  b.Put<uint64_t>(0x30).Put<uint32_t>(8).Put<uint32_t>(1).Put<uint64_t>(999);
  b.Put<uint64_t>(4).Put<uint32_t>(5).Put<uint32_t>(2).PutString("/bin/x");
  const SampleId id = PutTrailer(b);
  Mmap2Record want;
  want.pid = 1;
  want.tid = 2;
  want.addr = 0x1000;
  want.len = 0x2000;
  want.pgoff = 0x30;
  want.maj = 8;
  want.min = 1;
  want.ino = 999;
  want.ino_generation = 4;
  want.prot = 5;
  want.flags = 2;
  want.filename = "/bin/x";
  want.sample_id = id;
  EXPECT_EQ(
      DecodeAs<Mmap2Record>(b.Build(), TrailerFormat(), PERF_RECORD_MMAP2),
      want);
}

TEST(RecordsTest, Mmap2WithBuildId) {
  RecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
  b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint64_t>(0x1000).Put<uint64_t>(
      0x2000);
  std::vector<uint8_t> build_id(20, 0);
  for (int i = 0; i < 20; ++i) build_id[i] = static_cast<uint8_t>(0xa0 + i);
  b.Put<uint64_t>(0).Put<uint8_t>(20).Put<uint8_t>(0).Put<uint16_t>(0);
  b.PutBytes(build_id);
  b.Put<uint32_t>(5).Put<uint32_t>(2).PutString("/bin/y");
  Mmap2Record want;
  want.pid = 1;
  want.tid = 2;
  want.addr = 0x1000;
  want.len = 0x2000;
  want.build_id = build_id;
  want.prot = 5;
  want.flags = 2;
  want.filename = "/bin/y";
  RecordFormat no_trailer;
  EXPECT_EQ(DecodeAs<Mmap2Record>(b.Build(), no_trailer, PERF_RECORD_MMAP2),
            want);
}

TEST(RecordsTest, Mmap2BuildIdSizeAbove20IsAnError) {
  RecordBuilder b(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
  b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint64_t>(0).Put<uint64_t>(0);
  b.Put<uint64_t>(0).Put<uint8_t>(21).Put<uint8_t>(0).Put<uint16_t>(0);
  b.PutBytes(std::vector<uint8_t>(20, 1));
  b.Put<uint32_t>(0).Put<uint32_t>(0).PutString("f");
  absl::StatusOr<Record> r = DecodeRecord(b.Build(), RecordFormat{});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("build_id_size is 21"));
}

TEST(RecordsTest, LostCommForkExitThrottle) {
  const RecordFormat f = TrailerFormat();
  {
    RecordBuilder b(PERF_RECORD_LOST, 0);
    b.Put<uint64_t>(7).Put<uint64_t>(1234);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<LostRecord>(b.Build(), f, PERF_RECORD_LOST),
              (LostRecord{7, 1234, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
    b.Put<uint32_t>(5).Put<uint32_t>(6).PutString("true");
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<CommRecord>(b.Build(), f, PERF_RECORD_COMM),
              (CommRecord{5, 6, "true", true, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_COMM, 0);
    b.Put<uint32_t>(5).Put<uint32_t>(6).PutString("12345678");  // 8 chars
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<CommRecord>(b.Build(), f, PERF_RECORD_COMM),
              (CommRecord{5, 6, "12345678", false, id}));
  }
  for (uint32_t type : {PERF_RECORD_FORK, PERF_RECORD_EXIT}) {
    RecordBuilder b(type, 0);
    b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint32_t>(3).Put<uint32_t>(4);
    b.Put<uint64_t>(5);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<TaskRecord>(b.Build(), f, type),
              (TaskRecord{1, 2, 3, 4, 5, id}));
  }
  for (uint32_t type : {PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE}) {
    RecordBuilder b(type, 0);
    b.Put<uint64_t>(1).Put<uint64_t>(2).Put<uint64_t>(3);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<ThrottleRecord>(b.Build(), f, type),
              (ThrottleRecord{type == PERF_RECORD_THROTTLE, 1, 2, 3, id}));
  }
}

TEST(RecordsTest, ReadGroupAndSingle) {
  {
    RecordBuilder b(PERF_RECORD_READ, 0);
    b.Put<uint32_t>(9).Put<uint32_t>(10);
    b.Put<uint64_t>(2).Put<uint64_t>(100).Put<uint64_t>(90);
    b.Put<uint64_t>(5).Put<uint64_t>(1).Put<uint64_t>(6).Put<uint64_t>(2);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(
        DecodeAs<ReadRecord>(b.Build(), TrailerFormat(), PERF_RECORD_READ),
        (ReadRecord{9, 10, ReadValues{100, 90, {{5, 1, {}}, {6, 2, {}}}}, id}));
  }
  {
    RecordFormat f;
    f.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
    RecordBuilder b(PERF_RECORD_READ, 0);
    b.Put<uint32_t>(9).Put<uint32_t>(10).Put<uint64_t>(5).Put<uint64_t>(4);
    EXPECT_EQ(
        DecodeAs<ReadRecord>(b.Build(), f, PERF_RECORD_READ),
        (ReadRecord{9, 10, ReadValues{std::nullopt, 4, {{5, {}, {}}}}, {}}));
  }
}

TEST(RecordsTest, AuxItraceLostSamplesHwId) {
  const RecordFormat f = TrailerFormat();
  {
    RecordBuilder b(PERF_RECORD_AUX, 0);
    b.Put<uint64_t>(4096).Put<uint64_t>(512).Put<uint64_t>(
        PERF_AUX_FLAG_TRUNCATED);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<AuxRecord>(b.Build(), f, PERF_RECORD_AUX),
              (AuxRecord{4096, 512, PERF_AUX_FLAG_TRUNCATED, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_ITRACE_START, 0);
    b.Put<uint32_t>(3).Put<uint32_t>(4);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(
        DecodeAs<ItraceStartRecord>(b.Build(), f, PERF_RECORD_ITRACE_START),
        (ItraceStartRecord{3, 4, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_LOST_SAMPLES, 0);
    b.Put<uint64_t>(17);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(
        DecodeAs<LostSamplesRecord>(b.Build(), f, PERF_RECORD_LOST_SAMPLES),
        (LostSamplesRecord{17, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
    b.Put<uint64_t>(0x55);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<AuxOutputHwIdRecord>(b.Build(), f,
                                            PERF_RECORD_AUX_OUTPUT_HW_ID),
              (AuxOutputHwIdRecord{0x55, id}));
  }
}

TEST(RecordsTest, SwitchAndSwitchCpuWide) {
  const RecordFormat f = TrailerFormat();
  {
    RecordBuilder b(
        PERF_RECORD_SWITCH,
        PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<SwitchRecord>(b.Build(), f, PERF_RECORD_SWITCH),
              (SwitchRecord{true, true, {}, {}, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_SWITCH, 0);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<SwitchRecord>(b.Build(), f, PERF_RECORD_SWITCH),
              (SwitchRecord{false, false, {}, {}, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
    b.Put<uint32_t>(44).Put<uint32_t>(45);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<SwitchRecord>(b.Build(), f, PERF_RECORD_SWITCH_CPU_WIDE),
              (SwitchRecord{true, false, 44, 45, id}));
  }
}

TEST(RecordsTest, NamespacesKsymbolBpfCgroupTextPoke) {
  const RecordFormat f = TrailerFormat();
  {
    RecordBuilder b(PERF_RECORD_NAMESPACES, 0);
    b.Put<uint32_t>(1).Put<uint32_t>(2).Put<uint64_t>(2);
    b.Put<uint64_t>(3).Put<uint64_t>(4).Put<uint64_t>(5).Put<uint64_t>(6);
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<NamespacesRecord>(b.Build(), f, PERF_RECORD_NAMESPACES),
              (NamespacesRecord{1, 2, {{3, 4}, {5, 6}}, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_KSYMBOL, 0);
    b.Put<uint64_t>(0xffff0000).Put<uint32_t>(64);
    b.Put<uint16_t>(PERF_RECORD_KSYMBOL_TYPE_BPF)
        .Put<uint16_t>(PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
    b.PutString("bpf_prog_abc");
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<KsymbolRecord>(b.Build(), f, PERF_RECORD_KSYMBOL),
              (KsymbolRecord{0xffff0000, 64, PERF_RECORD_KSYMBOL_TYPE_BPF,
                             PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
                             "bpf_prog_abc", id}));
  }
  {
    RecordBuilder b(PERF_RECORD_BPF_EVENT, 0);
    b.Put<uint16_t>(PERF_BPF_EVENT_PROG_LOAD)
        .Put<uint16_t>(0)
        .Put<uint32_t>(77);
    b.PutBytes({1, 2, 3, 4, 5, 6, 7, 8});
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(
        DecodeAs<BpfEventRecord>(b.Build(), f, PERF_RECORD_BPF_EVENT),
        (BpfEventRecord{
            PERF_BPF_EVENT_PROG_LOAD, 0, 77, {1, 2, 3, 4, 5, 6, 7, 8}, id}));
  }
  {
    RecordBuilder b(PERF_RECORD_CGROUP, 0);
    b.Put<uint64_t>(12).PutString("/sys/fs/cgroup/a");
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<CgroupRecord>(b.Build(), f, PERF_RECORD_CGROUP),
              (CgroupRecord{12, "/sys/fs/cgroup/a", id}));
  }
  {
    RecordBuilder b(PERF_RECORD_TEXT_POKE, 0);
    b.Put<uint64_t>(0xffffffff81000000).Put<uint16_t>(2).Put<uint16_t>(3);
    b.PutBytes({0x90, 0x90, 0xe8, 0x01, 0x02}).Pad8();
    const SampleId id = PutTrailer(b);
    EXPECT_EQ(DecodeAs<TextPokeRecord>(b.Build(), f, PERF_RECORD_TEXT_POKE),
              (TextPokeRecord{
                  0xffffffff81000000, {0x90, 0x90}, {0xe8, 0x01, 0x02}, id}));
  }
}

TEST(RecordsTest, UnknownTypeKeepsItsBytes) {
  RecordBuilder b(1000, 0);
  b.Put<uint64_t>(0x0102030405060708);
  EXPECT_EQ(DecodeAs<UnknownRecord>(b.Build(), TrailerFormat(), 1000),
            (UnknownRecord{{8, 7, 6, 5, 4, 3, 2, 1}}));
  EXPECT_EQ(RecordTypeName(1000), "unknown(1000)");
  EXPECT_EQ(RecordTypeName(PERF_RECORD_SWITCH_CPU_WIDE), "switch_cpu_wide");
}

TEST(RecordsTest, SampleIdSizeCountsTrailerFields) {
  EXPECT_EQ(SampleIdSize(TrailerFormat()), 48u);
  RecordFormat f = TrailerFormat();
  f.sample_id_all = false;
  EXPECT_EQ(SampleIdSize(f), 0u);
  f.sample_id_all = true;
  f.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
  EXPECT_EQ(SampleIdSize(f), 8u);
}

TEST(RecordsTest, OutputCompatibility) {
  Attr a;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  a.sample_id_all = true;
  Attr b = a;
  b.config = 7;  // a different event with the same format is fine
  EXPECT_THAT(CheckOutputCompatible(a, b), IsOk());

  b.sample_type |= PERF_SAMPLE_TIME;
  absl::Status s = CheckOutputCompatible(a, b);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sample_type"));

  b = a;
  b.sample_id_all = false;
  EXPECT_THAT(CheckOutputCompatible(a, b).message(),
              HasSubstr("sample_id_all"));
  b = a;
  b.read_format = PERF_FORMAT_ID;
  EXPECT_THAT(CheckOutputCompatible(a, b).message(), HasSubstr("read_format"));
  b = a;
  b.use_clockid = true;
  b.clockid = CLOCK_MONOTONIC_RAW;
  EXPECT_THAT(CheckOutputCompatible(a, b).message(), HasSubstr("use_clockid"));
  a.use_clockid = true;
  a.clockid = CLOCK_MONOTONIC;
  EXPECT_THAT(CheckOutputCompatible(a, b).message(), HasSubstr("clockid"));
  b.clockid = CLOCK_MONOTONIC;
  EXPECT_THAT(CheckOutputCompatible(a, b), IsOk());
}

}  // namespace
}  // namespace perfcounters
