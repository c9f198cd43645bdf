// event_catalog_test.cc: EventCatalog (event_catalog.h), the snapshot of
// sysfs PMUs and tracefs tracepoints that parses can share: its lookups give
// exactly what the free functions of pmu.h, hybrid.h and tracepoint.h give,
// errors from broken files included; it does not see what appears after it
// read it (the default reads do); and one catalog serves parses on many
// threads at once. That every grammar form parses the same through a catalog
// is in grammar_test.cc (GrammarTest/Catalog) and grammar_catalog_test.cc.
#include "perfcounters/event_catalog.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perfcounters/grammar.h"
#include "perfcounters/hybrid.h"
#include "perfcounters/pmu.h"
#include "perfcounters/tracepoint.h"
#include "support/event_helpers.h"
#include "support/fake_sysfs.h"
#include "support/status_matchers.h"

using ::perfcounters::testing::IsOk;

namespace perfcounters {
namespace {

using ::testing::HasSubstr;

using ::perfcounters::testing::Message;

// PMUs and tracepoints of every kind the grammar reads, with broken files.
void WriteTree(testing::FakeTree& tree) {
  tree.AddX86Cpu();
  tree.AddSplitRangePmu();
  tree.AddArmPmu();
  tree.AddUncorePmus();
  tree.AddTracefs();
  tree.AddHybridCorePmus();
  tree.Pmu("uncore_cpus", "type", "40");  // not a core PMU by name
  tree.Pmu("uncore_cpus", "cpus", "0");
  tree.Pmu("uncore_cpus", "format/event", "config:0-7");
  // The broken PMUs of pmu_test.cc's MalformedSysfsTest.
  const struct {
    std::string pmu, file, contents;
  } broken[] = {
      {"bad_type", "type", "abc"},
      {"bad_format", "format/event", "config:0-7x"},
      {"bad_word", "format/event", "config9:0"},
      {"bad_alias", "events/foo", "event="},
      {"bad_scale", "events/foo.scale", "abc"},
      {"bad_cpumask", "cpumask", "3-1"},
  };
  for (const auto& b : broken) {
    tree.Pmu(b.pmu, "type", "30");
    tree.Pmu(b.pmu, "events/foo", "event=1");
    tree.Pmu(b.pmu, "format/event", "config:0-7");
    tree.Pmu(b.pmu, b.file, b.contents);
  }
  tree.Pmu("no_type", "format/event", "config:0-7");
  tree.Write("sys/bus/event_source/devices/not_a_dir", "x");
  tree.Tracepoint("broken", "bad_id", "x12");
  tree.Tracepoint("broken", "huge_id", "99999999999999999999999");
  tree.Write("tracing/events/broken/dir_id/id/inside", "1");
  tree.Write("tracing/events/broken/no_id/format", "x");
  tree.Write("tracing/events/sched/enable", "0");  // a file among the events
  tree.Write("tracing/events/enable", "0");
}

// The specs that reach every sysfs and tracefs lookup of the grammar.
std::vector<std::string> Specs() {
  return {"cycles:u",
          "L1-dcache-load-misses",
          "r01c2",
          "cpu/event=0x3c,umask=0/",
          "cpu/mem-loads,ldlat=10/u",
          "cpu/cycles/",
          "cpu_core/cycles/",
          "cpu_atom/event=1/",
          "uncore_cpus/event=1/",
          "amd_like/ls_dispatch/",
          "armv8_pmuv3/inst_retired/",
          "power/energy-pkg/",
          "uncore_fake/chip-reads,chip=3/",
          "cpu/cpu-cycle/",
          "nosuchpmu/x/",
          "bad_type/event=1/",
          "bad_format/event=1/",
          "bad_word/foo/",
          "bad_alias/event=1/",
          "bad_scale/foo/",
          "bad_cpumask/event=1/",
          "no_type/event=1/",
          "not_a_dir/event=1/",
          "sched:sched_switch",
          "sched:sched_swich",
          "sched:enable",
          "schde:sched_switch",
          "cycles:foo",
          "broken:bad_id",
          "broken:huge_id",
          "broken:dir_id",
          "broken:no_id",
          "enable:x",
          "cyclez:u",
          "{cycles,instructions}:u,cs,power/energy-pkg/"};
}

// The same value, or the same status (code and message).
template <typename T>
void ExpectSame(const absl::StatusOr<T>& got, const absl::StatusOr<T>& want,
                const std::string& what) {
  EXPECT_EQ(got.status(), want.status()) << what;
  if (got.ok() && want.ok()) {
    EXPECT_TRUE(*got == *want) << what;
  }
}

void ExpectSamePmu(const absl::StatusOr<std::shared_ptr<const Pmu>>& got,
                   const absl::StatusOr<Pmu>& want, const std::string& name) {
  ASSERT_EQ(got.status(), want.status()) << name;
  if (!want.ok()) return;
  const Pmu& pmu = **got;
  EXPECT_EQ(pmu.name, want->name);
  EXPECT_EQ(pmu.type, want->type) << name;
  EXPECT_EQ(pmu.formats, want->formats) << name;
  EXPECT_EQ(pmu.aliases, want->aliases) << name;
  EXPECT_EQ(pmu.cpus, want->cpus) << name;
}

class EventCatalogTest : public ::testing::Test {
 protected:
  EventCatalogTest() {
    WriteTree(tree_);
    paths_ = tree_.Paths();
  }
  testing::FakeTree tree_;
  SystemPaths paths_;
};

TEST_F(EventCatalogTest, LookupsGiveWhatTheFreeFunctionsGive) {
  const std::shared_ptr<const EventCatalog> catalog =
      EventCatalog::Create(paths_);
  EXPECT_EQ(catalog->paths().sysfs, paths_.sysfs);
  const absl::StatusOr<std::vector<std::string>> pmus = ListPmus(paths_);
  ASSERT_TRUE(pmus.ok()) << pmus.status();
  ExpectSame(catalog->ListPmus(), pmus, "ListPmus");
  std::vector<std::string> names = *pmus;
  for (const char* other : {"nosuch", "", ".", "..", "../cpu", "cpu/format"}) {
    names.push_back(other);
  }
  names.push_back(std::string("cpu\0", 4));
  for (int round = 0; round < 2; ++round) {  // read, then kept
    for (const std::string& name : names) {
      ExpectSamePmu(catalog->LoadPmu(name), LoadPmu(name, paths_), name);
    }
  }
  EXPECT_EQ(catalog->HybridCorePmus(), HybridCorePmus(paths_));
  EXPECT_EQ(catalog->HybridCorePmus().size(), 2u);

  ExpectSame(catalog->FindTracefs(), FindTracefs(paths_), "FindTracefs");
  const absl::StatusOr<std::vector<std::string>> categories =
      ListTracepointCategories(paths_);
  ASSERT_TRUE(categories.ok()) << categories.status();
  ExpectSame(catalog->ListTracepointCategories(), categories, "categories");
  std::vector<std::string> category_names = *categories;
  for (const char* other : {"nosuch", "", "..", "enable", "a/b"}) {
    category_names.push_back(other);
  }
  for (const std::string& category : category_names) {
    const absl::StatusOr<std::vector<std::string>> tracepoints =
        ListTracepoints(category, paths_);
    ExpectSame(catalog->ListTracepoints(category), tracepoints, category);
    std::vector<std::string> tracepoint_names = {"nosuch", "",       ".",
                                                 "enable", "dir_id", "no_id"};
    if (tracepoints.ok()) {
      tracepoint_names.insert(tracepoint_names.end(), tracepoints->begin(),
                              tracepoints->end());
    }
    for (const std::string& name : tracepoint_names) {
      ExpectSame(catalog->TracepointId(category, name),
                 TracepointId(category, name, paths_), category + ":" + name);
    }
  }
  EXPECT_EQ(*catalog->TracepointId("sched", "sched_switch"), 316u);
}

TEST_F(EventCatalogTest, BrokenFilesGiveTheSameErrorsEveryTime) {
  ParseOptions fresh;
  fresh.paths = paths_;
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(paths_);
  for (int round = 0; round < 2; ++round) {
    for (const std::string& spec : Specs()) {
      ExpectSame(ParseEventList(spec, cached), ParseEventList(spec, fresh),
                 spec);
      EXPECT_EQ(SuggestEventNames(spec, cached), SuggestEventNames(spec, fresh))
          << spec;
    }
  }
  // The broken files are errors that name them.
  absl::StatusOr<EventSpec> scale = ParseEvent("bad_scale/foo/", cached);
  ASSERT_FALSE(scale.ok());
  EXPECT_THAT(Message(scale.status()), HasSubstr("bad_scale/events/foo.scale"));
  absl::StatusOr<EventSpec> id = ParseEvent("broken:bad_id", cached);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(Message(id.status()), HasSubstr("broken/bad_id/id"));
}

TEST_F(EventCatalogTest, DoesNotSeeAPmuAddedAfterItWasMade) {
  ParseOptions fresh;
  fresh.paths = paths_;
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(paths_);
  // Hot-plugged after the catalog was made.
  tree_.Pmu("late", "type", "50");
  tree_.Pmu("late", "format/event", "config:0-7");
  tree_.Tracepoint("late_category", "ev", "77");

  absl::StatusOr<EventSpec> seen = ParseEvent("late/event=1/", fresh);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(seen->attr.type, 50u);
  absl::StatusOr<EventSpec> unseen = ParseEvent("late/event=1/", cached);
  ASSERT_FALSE(unseen.ok());
  EXPECT_EQ(unseen.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(unseen.status()), HasSubstr("unknown PMU 'late'"));
  EXPECT_EQ(cached.catalog->LoadPmu("late").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_THAT(ParseEvent("late_category:ev", fresh), IsOk());
  EXPECT_EQ(ParseEvent("late_category:ev", cached).status().code(),
            absl::StatusCode::kNotFound);

  // A new catalog sees them.
  cached.catalog = EventCatalog::Create(paths_);
  absl::StatusOr<EventSpec> now = ParseEvent("late/event=1/", cached);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->attr.type, 50u);
  EXPECT_THAT(ParseEvent("late_category:ev", cached), IsOk());
}

TEST_F(EventCatalogTest, ReadsEachPmuOnFirstUseAndKeepsIt) {
  ParseOptions fresh;
  fresh.paths = paths_;
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(paths_);
  ASSERT_EQ(ParseEvent("power/energy-pkg/", cached)->attr.type, 20u);
  // Changed after the catalog read power, before it read amd_like.
  tree_.Pmu("power", "type", "22");
  tree_.Pmu("amd_like", "type", "12");
  EXPECT_EQ(ParseEvent("power/energy-pkg/", fresh)->attr.type, 22u);
  EXPECT_EQ(ParseEvent("power/energy-pkg/", cached)->attr.type, 20u);
  EXPECT_EQ(ParseEvent("amd_like/event=1/", cached)->attr.type, 12u);
}

TEST(EventCatalogWithoutTreesTest, GivesTheErrorsOfFreshReads) {
  testing::FakeTree empty;
  ParseOptions fresh;
  fresh.paths = empty.Paths();
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(fresh.paths);
  EXPECT_FALSE(cached.catalog->ListPmus().ok());
  EXPECT_FALSE(cached.catalog->FindTracefs().ok());
  for (const std::string& spec : Specs()) {
    ExpectSame(ParseEventList(spec, cached), ParseEventList(spec, fresh), spec);
  }
  EXPECT_THAT(ParseEvent("cycles:u", cached), IsOk());
  EXPECT_EQ(cached.catalog->LoadPmu("cpu").status(),
            LoadPmu("cpu", fresh.paths).status());
}

// Many threads parse through one new catalog, so they race to load the same
// PMUs and tracepoints; every result is the one fresh reads give. (The suite
// also runs under TSan.)
TEST_F(EventCatalogTest, ThreadsShareOneCatalog) {
  ParseOptions fresh;
  fresh.paths = paths_;
  const std::vector<std::string> specs = Specs();
  std::vector<absl::StatusOr<std::vector<GroupSpec>>> want;
  for (const std::string& spec : specs) {
    want.push_back(ParseEventList(spec, fresh));
  }
  for (int round = 0; round < 3; ++round) {
    ParseOptions cached = fresh;
    cached.catalog = EventCatalog::Create(paths_);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 20; ++i) {
          // Each thread walks the specs from a different place.
          for (size_t k = 0; k < specs.size(); ++k) {
            const size_t j = (k + t * 5) % specs.size();
            const absl::StatusOr<std::vector<GroupSpec>> got =
                ParseEventList(specs[j], cached);
            if (got.status() != want[j].status() ||
                (got.ok() && *got != *want[j])) {
              ++mismatches;
            }
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(mismatches.load(), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace perfcounters
