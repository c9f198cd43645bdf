// Tests for attr.h: Attr <-> perf_event_attr marshalling, bit by bit against
// the kernel header's own bitfields, and Validate() against the real kernel.
#include "perfcounters/attr.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The option bits live in the 64-bit word right after read_format.
constexpr size_t kFlagsOffset =
    offsetof(perf_event_attr, read_format) + sizeof(uint64_t);
static_assert(offsetof(perf_event_attr, wakeup_events) ==
                  kFlagsOffset + sizeof(uint64_t),
              "the option bits are one 64-bit word");

uint64_t FlagsWord(const perf_event_attr& k) {
  uint64_t word;
  std::memcpy(&word, reinterpret_cast<const char*>(&k) + kFlagsOffset,
              sizeof(word));
  return word;
}

perf_event_attr Zeroed() {
  perf_event_attr k;
  std::memset(&k, 0, sizeof(k));
  return k;
}

struct OptionBit {
  const char* name;
  bool Attr::*member;
  // Position in the kernel word, counted from the header's declaration order.
  int bit;
  // Sets the same field through the kernel header's bitfield.
  std::function<void(perf_event_attr&)> set_kernel;
};

#define PERFCOUNTERS_BIT(field, position)                                    \
  OptionBit {                                                                \
#field, &Attr::field, position, [](perf_event_attr & k) { k.field = 1; } \
  }

const std::vector<OptionBit>& OptionBits() {
  static const auto* bits = new std::vector<OptionBit>{
      PERFCOUNTERS_BIT(disabled, 0),
      PERFCOUNTERS_BIT(inherit, 1),
      PERFCOUNTERS_BIT(pinned, 2),
      PERFCOUNTERS_BIT(exclusive, 3),
      PERFCOUNTERS_BIT(exclude_user, 4),
      PERFCOUNTERS_BIT(exclude_kernel, 5),
      PERFCOUNTERS_BIT(exclude_hv, 6),
      PERFCOUNTERS_BIT(exclude_idle, 7),
      PERFCOUNTERS_BIT(mmap, 8),
      PERFCOUNTERS_BIT(comm, 9),
      PERFCOUNTERS_BIT(freq, 10),
      PERFCOUNTERS_BIT(inherit_stat, 11),
      PERFCOUNTERS_BIT(enable_on_exec, 12),
      PERFCOUNTERS_BIT(task, 13),
      PERFCOUNTERS_BIT(watermark, 14),
      // precise_ip occupies bits 15 and 16.
      PERFCOUNTERS_BIT(mmap_data, 17),
      PERFCOUNTERS_BIT(sample_id_all, 18),
      PERFCOUNTERS_BIT(exclude_host, 19),
      PERFCOUNTERS_BIT(exclude_guest, 20),
      PERFCOUNTERS_BIT(exclude_callchain_kernel, 21),
      PERFCOUNTERS_BIT(exclude_callchain_user, 22),
      PERFCOUNTERS_BIT(mmap2, 23),
      PERFCOUNTERS_BIT(comm_exec, 24),
      PERFCOUNTERS_BIT(use_clockid, 25),
      PERFCOUNTERS_BIT(context_switch, 26),
      PERFCOUNTERS_BIT(write_backward, 27),
      PERFCOUNTERS_BIT(namespaces, 28),
      PERFCOUNTERS_BIT(ksymbol, 29),
      PERFCOUNTERS_BIT(bpf_event, 30),
      PERFCOUNTERS_BIT(aux_output, 31),
      PERFCOUNTERS_BIT(cgroup, 32),
      PERFCOUNTERS_BIT(text_poke, 33),
      PERFCOUNTERS_BIT(build_id, 34),
      PERFCOUNTERS_BIT(inherit_thread, 35),
      PERFCOUNTERS_BIT(remove_on_exec, 36),
      PERFCOUNTERS_BIT(sigtrap, 37),
  };
  return *bits;
}

#undef PERFCOUNTERS_BIT

TEST(AttrBitsTest, EveryOptionBitSetsExactlyItsKernelBit) {
  // 38 defined bits: 36 one-bit options plus the 2-bit precise_ip.
  ASSERT_EQ(OptionBits().size(), 36u);
  for (const OptionBit& option : OptionBits()) {
    SCOPED_TRACE(option.name);
    Attr attr;
    attr.*option.member = true;
    perf_event_attr k = attr.ToKernel();
    uint64_t word = FlagsWord(k);
    EXPECT_EQ(std::popcount(word), 1);
    EXPECT_EQ(word, uint64_t{1} << option.bit);

    perf_event_attr reference = Zeroed();
    option.set_kernel(reference);
    EXPECT_EQ(word, FlagsWord(reference));

    // And back: exactly this option, nothing else.
    Attr back = Attr::FromKernel(k);
    EXPECT_TRUE(back.*option.member);
    back.*option.member = false;
    back.size = 0;
    EXPECT_EQ(back, Attr());
  }
}

TEST(AttrBitsTest, AllOptionBitsTogetherFillTheDefinedBits) {
  Attr attr;
  for (const OptionBit& option : OptionBits()) attr.*option.member = true;
  attr.precise_ip = 3;
  perf_event_attr k = attr.ToKernel();
  EXPECT_EQ(FlagsWord(k), (uint64_t{1} << 38) - 1);
  EXPECT_EQ(k.__reserved_1, 0u);
  EXPECT_EQ(Attr::FromKernel(k).precise_ip, 3);
}

TEST(AttrBitsTest, PreciseIpIsTwoBitsAtPosition15) {
  for (uint8_t skid = 0; skid <= 3; ++skid) {
    SCOPED_TRACE(skid);
    Attr attr;
    attr.precise_ip = skid;
    ASSERT_THAT(attr.Validate(), IsOk());
    perf_event_attr k = attr.ToKernel();
    EXPECT_EQ(k.precise_ip, skid);  // skid 2 gives precise_ip = 2
    EXPECT_EQ(FlagsWord(k), uint64_t{skid} << 15);
    perf_event_attr reference = Zeroed();
    reference.precise_ip = skid;
    EXPECT_EQ(FlagsWord(k), FlagsWord(reference));
    EXPECT_EQ(Attr::FromKernel(k).precise_ip, skid);
  }
}

TEST(AttrValidateTest, RejectsPreciseIpAboveThree) {
  Attr attr;
  attr.precise_ip = 4;
  absl::Status status = attr.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("precise_ip"), HasSubstr("4"), HasSubstr("3")));
}

TEST(AttrValidateTest, RejectsSizesTheKernelOrThisStructCannotHold) {
  Attr attr;
  attr.size = PERF_ATTR_SIZE_VER0 - 1;
  EXPECT_THAT(attr.Validate().message(),
              AllOf(HasSubstr("size"), HasSubstr("63"), HasSubstr("64")));
  attr.size = sizeof(perf_event_attr) + 8;
  EXPECT_THAT(attr.Validate().message(), HasSubstr("size"));
  attr.size = PERF_ATTR_SIZE_VER0;
  EXPECT_THAT(attr.Validate(), IsOk());
  attr.size = 0;
  EXPECT_THAT(attr.Validate(), IsOk());
}

// The kernel struct, size 0 meaning this build's struct.
TEST(AttrScalarTest, SizeZeroMeansSizeofPerfEventAttr) {
  Attr attr;
  EXPECT_EQ(attr.ToKernel().size, sizeof(perf_event_attr));
  EXPECT_GE(sizeof(perf_event_attr), size_t{PERF_ATTR_SIZE_VER7});
  attr.size = PERF_ATTR_SIZE_VER5;
  EXPECT_EQ(attr.ToKernel().size, uint32_t{PERF_ATTR_SIZE_VER5});
}

// Builds expected kernel structs by hand and compares every byte.
TEST(AttrScalarTest, EveryScalarFieldLandsInItsKernelField) {
  struct Case {
    const char* name;
    std::function<void(Attr&)> set;
    std::function<void(perf_event_attr&)> set_kernel;
  };
  const std::vector<Case> cases = {
      {"type", [](Attr& a) { a.type = 0xfedcba98; },
       [](perf_event_attr& k) { k.type = 0xfedcba98; }},
      {"config", [](Attr& a) { a.config = 0x0123456789abcdef; },
       [](perf_event_attr& k) { k.config = 0x0123456789abcdef; }},
      {"config1", [](Attr& a) { a.config1 = 0x1111222233334444; },
       [](perf_event_attr& k) { k.config1 = 0x1111222233334444; }},
      {"config2", [](Attr& a) { a.config2 = 0x5555666677778888; },
       [](perf_event_attr& k) { k.config2 = 0x5555666677778888; }},
      {"sample_period", [](Attr& a) { a.sample_period = 0x7000000000000123; },
       [](perf_event_attr& k) { k.sample_period = 0x7000000000000123; }},
      {"sample_type", [](Attr& a) { a.sample_type = 0x1ffffff; },
       [](perf_event_attr& k) { k.sample_type = 0x1ffffff; }},
      {"read_format", [](Attr& a) { a.read_format = 0x1f; },
       [](perf_event_attr& k) { k.read_format = 0x1f; }},
      {"wakeup_events", [](Attr& a) { a.wakeup_events = 0xabcdef01; },
       [](perf_event_attr& k) { k.wakeup_events = 0xabcdef01; }},
      {"bp_type", [](Attr& a) { a.bp_type = 0x12345678; },
       [](perf_event_attr& k) { k.bp_type = 0x12345678; }},
      {"branch_sample_type",
       [](Attr& a) { a.branch_sample_type = 0x8000000000000001; },
       [](perf_event_attr& k) { k.branch_sample_type = 0x8000000000000001; }},
      {"sample_regs_user", [](Attr& a) { a.sample_regs_user = 0xff00ff00ff; },
       [](perf_event_attr& k) { k.sample_regs_user = 0xff00ff00ff; }},
      {"sample_stack_user", [](Attr& a) { a.sample_stack_user = 0xfff8; },
       [](perf_event_attr& k) { k.sample_stack_user = 0xfff8; }},
      {"clockid", [](Attr& a) { a.clockid = -123456; },
       [](perf_event_attr& k) { k.clockid = -123456; }},
      {"sample_regs_intr", [](Attr& a) { a.sample_regs_intr = 0xdead0000beef; },
       [](perf_event_attr& k) { k.sample_regs_intr = 0xdead0000beef; }},
      {"aux_watermark", [](Attr& a) { a.aux_watermark = 0x87654321; },
       [](perf_event_attr& k) { k.aux_watermark = 0x87654321; }},
      {"sample_max_stack", [](Attr& a) { a.sample_max_stack = 0xfffe; },
       [](perf_event_attr& k) { k.sample_max_stack = 0xfffe; }},
      {"aux_sample_size", [](Attr& a) { a.aux_sample_size = 0x10203040; },
       [](perf_event_attr& k) { k.aux_sample_size = 0x10203040; }},
      {"sig_data", [](Attr& a) { a.sig_data = 0xfedcba9876543210; },
       [](perf_event_attr& k) { k.sig_data = 0xfedcba9876543210; }},
      {"size", [](Attr& a) { a.size = PERF_ATTR_SIZE_VER6; },
       [](perf_event_attr& k) { k.size = PERF_ATTR_SIZE_VER6; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Attr attr;
    attr.type = 0;  // keep the defaults explicit
    c.set(attr);
    perf_event_attr expected = Zeroed();
    expected.size = sizeof(perf_event_attr);
    c.set_kernel(expected);
    perf_event_attr k = attr.ToKernel();
    EXPECT_EQ(std::memcmp(&k, &expected, sizeof(k)), 0);
    Attr back = Attr::FromKernel(k);
    if (attr.size == 0) back.size = 0;
    EXPECT_EQ(back, attr);
  }
}

TEST(AttrScalarTest, UnionAliases) {
  Attr attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.config1 = 0x7ffc0000beef;
  attr.config2 = 8;
  attr.sample_period = 4000;
  attr.wakeup_events = 17;
  EXPECT_EQ(attr.bp_addr(), 0x7ffc0000beefu);
  EXPECT_EQ(attr.bp_len(), 8u);
  EXPECT_EQ(attr.sample_freq(), 4000u);
  perf_event_attr k = attr.ToKernel();
  EXPECT_EQ(k.bp_addr, 0x7ffc0000beefu);
  EXPECT_EQ(k.kprobe_func, 0x7ffc0000beefu);
  EXPECT_EQ(k.uprobe_path, 0x7ffc0000beefu);
  EXPECT_EQ(k.bp_len, 8u);
  EXPECT_EQ(k.kprobe_addr, 8u);
  EXPECT_EQ(k.probe_offset, 8u);
  EXPECT_EQ(k.sample_freq, 4000u);
  EXPECT_EQ(k.wakeup_watermark, 17u);

  perf_event_attr from_kernel = Zeroed();
  from_kernel.bp_addr = 0x1000;
  from_kernel.bp_len = 4;
  Attr back = Attr::FromKernel(from_kernel);
  EXPECT_EQ(back.config1, 0x1000u);
  EXPECT_EQ(back.config2, 4u);
}

TEST(AttrScalarTest, ReservedFieldsStayZero) {
  Attr attr;
  for (const OptionBit& option : OptionBits()) attr.*option.member = true;
  attr.precise_ip = 3;
  attr.sample_max_stack = 0xffff;
  attr.aux_sample_size = 0xffffffff;
  attr.aux_watermark = 0xffffffff;
  perf_event_attr k = attr.ToKernel();
  EXPECT_EQ(k.__reserved_1, 0u);
  EXPECT_EQ(k.__reserved_2, 0u);
  EXPECT_EQ(k.__reserved_3, 0u);
}

Attr RandomAttr(std::mt19937_64& rng) {
  Attr a;
  a.type = static_cast<uint32_t>(rng());
  a.config = rng();
  a.config1 = rng();
  a.config2 = rng();
  a.sample_period = rng();
  a.sample_type = rng();
  a.read_format = rng();
  for (const OptionBit& option : OptionBits()) a.*option.member = rng() & 1;
  a.precise_ip = rng() & 3;
  a.wakeup_events = static_cast<uint32_t>(rng());
  a.bp_type = static_cast<uint32_t>(rng());
  a.branch_sample_type = rng();
  a.sample_regs_user = rng();
  a.sample_stack_user = static_cast<uint32_t>(rng());
  a.clockid = static_cast<int32_t>(rng());
  a.sample_regs_intr = rng();
  a.aux_watermark = static_cast<uint32_t>(rng());
  a.sample_max_stack = static_cast<uint16_t>(rng());
  a.aux_sample_size = static_cast<uint32_t>(rng());
  a.sig_data = rng();
  // A non-zero size: 0 reads back as the size it stands for.
  a.size = PERF_ATTR_SIZE_VER0 +
           rng() % (sizeof(perf_event_attr) - PERF_ATTR_SIZE_VER0 + 1);
  return a;
}

TEST(AttrRoundTripTest, RandomisedAttrsSurviveToKernelAndBack) {
  std::mt19937_64 rng(0x5eed);
  for (int i = 0; i < 20000; ++i) {
    Attr a = RandomAttr(rng);
    ASSERT_EQ(Attr::FromKernel(a.ToKernel()), a) << "iteration " << i;
  }
}

TEST(AttrRoundTripTest, RandomisedKernelStructsSurviveFromKernelAndBack) {
  std::mt19937_64 rng(0xfeed);
  for (int i = 0; i < 20000; ++i) {
    perf_event_attr k;
    auto* bytes = reinterpret_cast<unsigned char*>(&k);
    for (size_t j = 0; j < sizeof(k); ++j) bytes[j] = rng() & 0xff;
    k.__reserved_1 = 0;
    k.__reserved_2 = 0;
    k.__reserved_3 = 0;
    k.size = sizeof(k);
    perf_event_attr back = Attr::FromKernel(k).ToKernel();
    ASSERT_EQ(std::memcmp(&back, &k, sizeof(k)), 0) << "iteration " << i;
  }
}

TEST(AttrRoundTripTest, SizeZeroReadsBackAsTheStructSize) {
  Attr a;
  a.exclude_kernel = true;
  Attr back = Attr::FromKernel(a.ToKernel());
  EXPECT_EQ(back.size, sizeof(perf_event_attr));
  back.size = 0;
  EXPECT_EQ(back, a);
}

// Validate() against the running kernel: whatever Validate() rejects the
// kernel rejects too (EINVAL/E2BIG), and the corrected attr opens.
int OpenErrno(const Attr& attr) {
  perf_event_attr k = attr.ToKernel();
  int fd = static_cast<int>(
      syscall(SYS_perf_event_open, &k, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  return errno;
}

// task-clock:u: user space only, so an ordinary user at
// perf_event_paranoid 2 may open it too.
Attr TaskClock() {
  Attr a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.disabled = true;
  a.exclude_kernel = true;
  a.exclude_hv = true;
  return a;
}

TEST(AttrValidateTest, AgreesWithTheKernel) {
  ASSERT_EQ(OpenErrno(TaskClock()), 0)
      << "cannot open task-clock at all: perf_event_paranoid?";
  struct Case {
    const char* what;
    std::function<void(Attr&)> bad;
    std::function<void(Attr&)> fix;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"sigtrap without remove_on_exec", [](Attr& a) { a.sigtrap = true; },
       [](Attr& a) { a.remove_on_exec = true; }, "remove_on_exec"},
      {"remove_on_exec with enable_on_exec",
       [](Attr& a) { a.remove_on_exec = a.enable_on_exec = true; },
       [](Attr& a) { a.enable_on_exec = false; }, "enable_on_exec"},
      {"inherit_thread without inherit",
       [](Attr& a) { a.inherit_thread = true; },
       [](Attr& a) { a.inherit = true; }, "inherit_thread"},
      {"sample_period with bit 63",
       [](Attr& a) { a.sample_period = uint64_t{1} << 63; },
       [](Attr& a) { a.sample_period = uint64_t{1} << 62; }, "sample_period"},
      {"size below PERF_ATTR_SIZE_VER0", [](Attr& a) { a.size = 32; },
       [](Attr& a) { a.size = PERF_ATTR_SIZE_VER0; }, "size"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Attr attr = TaskClock();
    c.bad(attr);
    absl::Status status = attr.Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr(c.field));
    int err = OpenErrno(attr);
    EXPECT_TRUE(err == EINVAL || err == E2BIG) << "kernel errno " << err;
    c.fix(attr);
    EXPECT_TRUE(attr.Validate().ok()) << attr.Validate();
    EXPECT_EQ(OpenErrno(attr), 0);
  }
}

TEST(AttrValidateTest, KernelAcceptsEveryPreciseIpValidateAcceptsForSoftware) {
  // Software events ignore precise_ip; the kernel takes all four values.
  for (uint8_t skid = 0; skid <= 3; ++skid) {
    Attr attr = TaskClock();
    attr.precise_ip = skid;
    EXPECT_THAT(attr.Validate(), IsOk());
    EXPECT_EQ(OpenErrno(attr), 0) << "precise_ip " << int{skid};
  }
}

}  // namespace
}  // namespace perfcounters
