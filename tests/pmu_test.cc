// pmu_test.cc: the sysfs PMU model (pmu.h) — format fields with split
// ranges, placing values by format, term and value parsing, aliases with
// .scale/.unit, cpumask, malformed files — against fake sysfs trees, and the
// real PMUs of this machine.
#include "perfcounters/pmu.h"

#include <linux/perf_event.h>

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/grammar.h"
#include "support/event_helpers.h"
#include "support/fake_sysfs.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ::perfcounters::testing::Message;

TEST(FormatFieldTest, ParsesRangesSingleBitsAndSplitRanges) {
  struct Want {
    std::string contents;
    ConfigWord word;
    uint64_t mask;
    int width;
  };
  const Want wants[] = {
      {"config:0-7", ConfigWord::kConfig, 0xff, 8},
      {"config:0-7,32-35", ConfigWord::kConfig, 0xf000000ffull, 12},
      {"config:21", ConfigWord::kConfig, 1ull << 21, 1},
      {"config1:0", ConfigWord::kConfig1, 1, 1},
      {"config1:0-15", ConfigWord::kConfig1, 0xffff, 16},
      {"config2:0-63", ConfigWord::kConfig2, ~0ull, 64},
      {"config:0-7,21", ConfigWord::kConfig, 0x2000ff, 9},
      {"  config:8-15\n", ConfigWord::kConfig, 0xff00, 8},
  };
  for (const Want& w : wants) {
    absl::StatusOr<FormatField> f = FormatField::Parse("event", w.contents);
    ASSERT_TRUE(f.ok()) << w.contents << ": " << f.status();
    EXPECT_EQ(f->word, w.word) << w.contents;
    EXPECT_EQ(f->mask, w.mask) << w.contents;
    EXPECT_EQ(f->width(), w.width) << w.contents;
    EXPECT_EQ(f->name, "event");
  }
  EXPECT_EQ(FormatField::Parse("x", "config2:0-63")->max_value(), ~0ull);
  EXPECT_EQ(FormatField::Parse("x", "config:0-7,32-35")->max_value(), 0xfffu);
}

TEST(FormatFieldTest, MalformedFormatsNameTheFileAndTheProblem) {
  const std::pair<std::string, std::string> bad[] = {
      {"config0-7", "no ':'"},   {"config4:0", "'config4'"},
      {"period:0", "'period'"},  {"config:5-3", "'5-3'"},
      {"config:64", "'64'"},     {"config:", "no bits"},
      {"config:a-b", "'a-b'"},   {"config:0-7,,8", "''"},
      {"config:0-7x", "'0-7x'"},
  };
  for (const auto& [contents, part] : bad) {
    absl::StatusOr<FormatField> f =
        FormatField::Parse("umask", contents, "/fake/format/umask");
    ASSERT_FALSE(f.ok()) << contents;
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(f.status()), HasSubstr(part)) << contents;
    EXPECT_THAT(Message(f.status()), HasSubstr("/fake/format/umask"));
    EXPECT_THAT(Message(f.status()), HasSubstr("'umask'"));
  }
}

TEST(PlaceFormatValueTest, FillsFormatBitsFromTheLowestUp) {
  Attr attr;
  const FormatField split = *FormatField::Parse("event", "config:0-7,32-35");
  ASSERT_THAT(PlaceFormatValue(split, 0x129, attr), IsOk());
  EXPECT_EQ(attr.config, 0x29u | 1ull << 32);
  // The field's bits are cleared first; other bits stay.
  attr.config |= 0xff00;
  ASSERT_THAT(PlaceFormatValue(split, 0x2, attr), IsOk());
  EXPECT_EQ(attr.config, 0xff02u);
  const FormatField scattered = *FormatField::Parse("s", "config1:1,3,5");
  ASSERT_THAT(PlaceFormatValue(scattered, 0b101, attr), IsOk());
  EXPECT_EQ(attr.config1, 0b100010u);
  const FormatField wide = *FormatField::Parse("w", "config2:0-63");
  ASSERT_THAT(PlaceFormatValue(wide, ~0ull, attr), IsOk());
  EXPECT_EQ(attr.config2, ~0ull);
  EXPECT_EQ(attr.config, 0xff02u);  // untouched by other words
}

TEST(PlaceFormatValueTest, Config3LoadsButCannotBePlaced) {
  absl::StatusOr<FormatField> f =
      FormatField::Parse("threshold", "config3:0-11");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->word, ConfigWord::kConfig3);
  Attr attr;
  absl::Status status = PlaceFormatValue(*f, 1, attr);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Message(status), HasSubstr("'threshold'"));
  EXPECT_THAT(Message(status), HasSubstr("config3"));
  EXPECT_EQ(attr, Attr{});
}

TEST(PlaceFormatValueTest, ValueTooWideNamesTermValueAndWidth) {
  Attr attr;
  attr.config = 0x55;
  const FormatField umask = *FormatField::Parse("umask", "config:8-15");
  absl::Status status = PlaceFormatValue(umask, 0x100, attr);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), HasSubstr("'umask'"));
  EXPECT_THAT(Message(status), HasSubstr("0x100"));
  EXPECT_THAT(Message(status), HasSubstr("8-bit"));
  EXPECT_THAT(Message(status), HasSubstr("0xff"));
  EXPECT_EQ(attr.config, 0x55u);  // unchanged on error
}

TEST(ParseTermValueTest, DecimalAndHexUpTo64Bits) {
  EXPECT_EQ(*ParseTermValue("0"), 0u);
  EXPECT_EQ(*ParseTermValue("42"), 42u);
  EXPECT_EQ(*ParseTermValue("0x2A"), 42u);
  EXPECT_EQ(*ParseTermValue("0XfF"), 255u);
  EXPECT_EQ(*ParseTermValue("18446744073709551615"), ~0ull);
  EXPECT_EQ(*ParseTermValue("0xffffffffffffffff"), ~0ull);
  for (const char* bad : {"18446744073709551616", "0x10000000000000000", "",
                          "0x", "12a", "-1", "0x1g"}) {
    absl::StatusOr<uint64_t> v = ParseTermValue(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_THAT(Message(v.status()), HasSubstr(std::string("'") + bad + "'"));
  }
  EXPECT_THAT(Message(ParseTermValue("18446744073709551616").status()),
              HasSubstr("64 bits"));
}

TEST(ParsePmuTermsTest, SplitsTermsWithOffsets) {
  absl::StatusOr<std::vector<PmuTerm>> terms =
      ParsePmuTerms("event=0x3c, umask = 0x00,edge", 10);
  ASSERT_TRUE(terms.ok()) << terms.status();
  ASSERT_EQ(terms->size(), 3u);
  EXPECT_EQ((*terms)[0], (PmuTerm{"event", "0x3c", true, 10}));
  EXPECT_EQ((*terms)[1], (PmuTerm{"umask", "0x00", true, 22}));
  EXPECT_EQ((*terms)[2], (PmuTerm{"edge", "", false, 35}));
  const std::pair<std::string, std::string> bad[] = {
      {"event=", "'event' at offset 0 has no value"},
      {"event=1,", "empty term at offset 8"},
      {"=3", "no name"},
      {"", "empty term at offset 0"},
  };
  for (const auto& [text, part] : bad) {
    absl::StatusOr<std::vector<PmuTerm>> t = ParsePmuTerms(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_THAT(Message(t.status()), HasSubstr(part)) << text;
  }
}

TEST(ParseCpuListTest, RangesAndSingles) {
  EXPECT_THAT(*ParseCpuList("0-3,8"), ElementsAre(0, 1, 2, 3, 8));
  EXPECT_THAT(*ParseCpuList("0"), ElementsAre(0));
  EXPECT_TRUE(ParseCpuList("")->empty());
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("x").ok());
  EXPECT_FALSE(ParseCpuList("1,,2").ok());
}

class FakePmuTest : public ::testing::Test {
 protected:
  FakePmuTest() {
    tree_.AddX86Cpu();
    tree_.AddSplitRangePmu();
    tree_.AddArmPmu();
    tree_.AddUncorePmus();
    paths_ = tree_.Paths();
  }
  testing::FakeTree tree_;
  SystemPaths paths_;
};

TEST_F(FakePmuTest, ListsPmusSorted) {
  absl::StatusOr<std::vector<std::string>> names = ListPmus(paths_);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ElementsAre("amd_like", "armv8_pmuv3_0", "cpu", "power",
                                  "uncore_fake"));
}

TEST_F(FakePmuTest, LoadsX86CpuFormatsAndAliases) {
  absl::StatusOr<Pmu> pmu = LoadPmu("cpu", paths_);
  ASSERT_TRUE(pmu.ok()) << pmu.status();
  EXPECT_EQ(pmu->name, "cpu");
  EXPECT_EQ(pmu->type, 4u);
  std::vector<std::string> formats;
  for (const FormatField& f : pmu->formats) formats.push_back(f.name);
  EXPECT_THAT(formats, ElementsAre("any", "cmask", "edge", "event", "frontend",
                                   "in_tx", "inv", "ldlat", "pc", "umask"));
  ASSERT_NE(pmu->FindFormat("cmask"), nullptr);
  EXPECT_EQ(pmu->FindFormat("cmask")->mask, 0xff000000u);
  EXPECT_EQ(pmu->FindFormat("ldlat")->word, ConfigWord::kConfig1);
  EXPECT_EQ(pmu->FindFormat("frontend")->word, ConfigWord::kConfig2);
  EXPECT_EQ(pmu->FindFormat("nope"), nullptr);
  const PmuAlias* loads = pmu->FindAlias("MEM-LOADS");
  ASSERT_NE(loads, nullptr);
  EXPECT_EQ(loads->name, "mem-loads");
  EXPECT_EQ(loads->terms_text, "event=0xcd,umask=0x1,ldlat=3");
  ASSERT_EQ(loads->terms.size(), 3u);
  EXPECT_EQ(loads->terms[2].name, "ldlat");
  EXPECT_EQ(loads->terms[2].value, "3");
  EXPECT_EQ(loads->scale, 1.0);
  EXPECT_EQ(loads->unit, "");
  EXPECT_EQ(pmu->aliases.size(), 4u);
  EXPECT_TRUE(pmu->cpus.empty());
}

TEST_F(FakePmuTest, LoadsScaleUnitAndCpus) {
  absl::StatusOr<Pmu> power = LoadPmu("power", paths_);
  ASSERT_TRUE(power.ok()) << power.status();
  EXPECT_EQ(power->type, 20u);
  ASSERT_EQ(power->aliases.size(), 1u);  // .scale/.unit are not aliases
  EXPECT_DOUBLE_EQ(power->aliases[0].scale, 2.3283064365386962890625e-10);
  EXPECT_EQ(power->aliases[0].unit, "Joules");
  EXPECT_THAT(power->cpus, ElementsAre(0, 2, 3));
  absl::StatusOr<Pmu> arm = LoadPmu("armv8_pmuv3_0", paths_);
  ASSERT_TRUE(arm.ok()) << arm.status();
  EXPECT_EQ(arm->type, 10u);
  EXPECT_THAT(arm->cpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(arm->FindFormat("long")->word, ConfigWord::kConfig1);
  EXPECT_EQ(arm->FindAlias("cpu_cycles")->terms_text, "event=0x0011");
  absl::StatusOr<Pmu> amd = LoadPmu("amd_like", paths_);
  ASSERT_TRUE(amd.ok()) << amd.status();
  EXPECT_EQ(amd->FindFormat("event")->mask, 0xf000000ffull);
}

TEST_F(FakePmuTest, MissingPmuListsTheExistingOnes) {
  absl::StatusOr<Pmu> pmu = LoadPmu("nosuch", paths_);
  ASSERT_FALSE(pmu.ok());
  EXPECT_EQ(pmu.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(pmu.status()), HasSubstr("'nosuch'"));
  EXPECT_THAT(Message(pmu.status()), HasSubstr("amd_like, armv8_pmuv3_0, cpu"));
  EXPECT_FALSE(LoadPmu("../cpu", paths_).ok());
  EXPECT_FALSE(LoadPmu("", paths_).ok());
  // Regression (grammar_fuzzer): the NUL cut the path to .../cpu, which
  // loaded the PMU cpu under the name "cpu\0".
  EXPECT_EQ(LoadPmu(std::string("cpu\0", 4), paths_).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(MalformedSysfsTest, ErrorsNameTheFile) {
  testing::FakeTree tree;
  const struct {
    std::string pmu, file, contents, expect_file, expect_part;
  } cases[] = {
      {"bad_type", "type", "abc", "bad_type/type", "'abc'"},
      {"neg_type", "type", "-4", "neg_type/type", "'-4'"},
      {"bad_format", "format/event", "config:0-7x", "bad_format/format/event",
       "'0-7x'"},
      {"bad_word", "format/event", "config9:0", "bad_word/format/event",
       "'config9'"},
      {"bad_alias", "events/foo", "event=", "bad_alias/events/foo", "'event'"},
      {"bad_alias2", "events/foo", "event=1,,umask=2", "bad_alias2/events/foo",
       "empty term"},
      {"bad_scale", "events/foo.scale", "abc", "bad_scale/events/foo.scale",
       "'abc'"},
      {"bad_cpumask", "cpumask", "3-1", "bad_cpumask/cpumask", "'3-1'"},
  };
  for (const auto& c : cases) {
    tree.Pmu(c.pmu, "type", "30");
    tree.Pmu(c.pmu, "events/foo", "event=1");
    tree.Pmu(c.pmu, "format/event", "config:0-7");
    tree.Pmu(c.pmu, c.file, c.contents);
    absl::StatusOr<Pmu> pmu = LoadPmu(c.pmu, tree.Paths());
    ASSERT_FALSE(pmu.ok()) << c.pmu;
    EXPECT_EQ(pmu.status().code(), absl::StatusCode::kInvalidArgument)
        << pmu.status();
    EXPECT_THAT(Message(pmu.status()), HasSubstr(c.expect_file)) << c.pmu;
    EXPECT_THAT(Message(pmu.status()), HasSubstr(c.expect_part)) << c.pmu;
  }
  // A PMU without a type file cannot be used: NotFound naming the file.
  tree.Pmu("no_type", "format/event", "config:0-7");
  absl::StatusOr<Pmu> pmu = LoadPmu("no_type", tree.Paths());
  ASSERT_FALSE(pmu.ok());
  EXPECT_THAT(Message(pmu.status()), HasSubstr("no_type/type"));
}

// --- The real sysfs of this machine.

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(RealSysfsTest, SoftwareTracepointAndBreakpointPmusHaveTheKernelTypes) {
  const SystemPaths paths;
  absl::StatusOr<std::vector<std::string>> names = ListPmus(paths);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, ::testing::Contains("software"));
  EXPECT_THAT(*names, ::testing::Contains("tracepoint"));
  absl::StatusOr<Pmu> software = LoadPmu("software", paths);
  ASSERT_TRUE(software.ok()) << software.status();
  EXPECT_EQ(software->type, uint32_t{PERF_TYPE_SOFTWARE});
  absl::StatusOr<Pmu> tracepoint = LoadPmu("tracepoint", paths);
  ASSERT_TRUE(tracepoint.ok()) << tracepoint.status();
  EXPECT_EQ(tracepoint->type, uint32_t{PERF_TYPE_TRACEPOINT});
  if (std::find(names->begin(), names->end(), "breakpoint") != names->end()) {
    EXPECT_EQ(LoadPmu("breakpoint", paths)->type,
              uint32_t{PERF_TYPE_BREAKPOINT});
  }
}

TEST(RealSysfsTest, EveryRealPmuLoadsAndEveryAliasParses) {
  const SystemPaths paths;
  absl::StatusOr<std::vector<std::string>> names = ListPmus(paths);
  ASSERT_TRUE(names.ok()) << names.status();
  ASSERT_FALSE(names->empty());
  int aliases = 0;
  for (const std::string& name : *names) {
    absl::StatusOr<Pmu> pmu = LoadPmu(name, paths);
    ASSERT_TRUE(pmu.ok()) << name << ": " << pmu.status();
    EXPECT_EQ(std::to_string(pmu->type),
              ReadFirstLine(paths.EventSourceDevices() + "/" + name + "/type"));
    for (const FormatField& f : pmu->formats) {
      EXPECT_NE(f.mask, 0u) << name << "/format/" << f.name;
    }
    for (const PmuAlias& alias : pmu->aliases) {
      bool needs_user_value = false;
      for (const PmuTerm& t : alias.terms) needs_user_value |= t.value == "?";
      if (needs_user_value) continue;
      const std::string text = name + "/" + alias.name + "/";
      absl::StatusOr<EventSpec> spec = ParseEvent(text);
      ASSERT_TRUE(spec.ok()) << text << ": " << spec.status();
      EXPECT_EQ(spec->attr.type, pmu->type) << text;
      EXPECT_EQ(spec->pmu, name) << text;
      ++aliases;
    }
  }
  RecordProperty("aliases_parsed", aliases);
}

}  // namespace
}  // namespace perfcounters
