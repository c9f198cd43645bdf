// grammar_catalog_test.cc: an EventCatalog (event_catalog.h) gives exactly
// what fresh sysfs and tracefs reads give, for every input of grammar_test's
// tables (support/grammar_cases.h), their prefixes and mutations, and broken
// PMUs and tracepoints; and the suggestions for a mistyped name are exactly
// those of the plain edit-distance definition.
#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "perfcounters/event_catalog.h"
#include "perfcounters/generic_events.h"
#include "perfcounters/grammar.h"
#include "support/fake_sysfs.h"
#include "support/grammar_cases.h"
#include "support/hw.h"

namespace perfcounters {
namespace {

using ::perfcounters::testing::BadCase;
using ::perfcounters::testing::Case;
using ::perfcounters::testing::MalformedCases;
using ::perfcounters::testing::ValidCases;
using ::perfcounters::testing::WriteGrammarTree;

// Every input of the tests above, and their prefixes and mutations, parse to
// exactly the same EventSpecs (or the same error code and message) through
// one catalog as with fresh reads, and get the same suggestions.
TEST(GrammarCatalogTest, CatalogGivesExactlyWhatFreshReadsGive) {
  testing::FakeTree tree;
  WriteGrammarTree(tree);
  // Broken PMUs and tracepoints: their errors must be the same too.
  tree.Pmu("odd", "type", "30");
  tree.Pmu("odd", "format/event", "config:9-3");
  tree.Pmu("odd_alias", "type", "31");
  tree.Pmu("odd_alias", "events/a", "event=");
  tree.Pmu("no_type", "format/event", "config:0-7");
  tree.Tracepoint("broken", "bad_id", "x12");
  tree.Write("tracing/events/broken/not_a_dir", "1");
  ParseOptions fresh;
  fresh.paths = tree.Paths();
  ParseOptions cached = fresh;
  cached.catalog = EventCatalog::Create(tree.Paths());

  std::vector<std::string> texts;
  for (const Case& c : ValidCases()) texts.push_back(c.text);
  for (const BadCase& c : MalformedCases()) texts.push_back(c.text);
  for (const char* extra :
       {"odd/event=1/", "odd_alias/a/", "no_type/event=1/", "broken:bad_id",
        "broken:not_a_dir", "broken:nosuch", "nosuchcategory:x",
        "cpu/cpu-cycle/", "power/energy-pk/", "{cycles,odd/event=1/}:u"}) {
    texts.push_back(extra);
  }
  const size_t whole = texts.size();
  const std::string noise = ",{}/:=x0-";
  for (size_t i = 0; i < whole; ++i) {
    const std::string seed = texts[i];
    for (size_t n = 0; n < seed.size(); ++n) {
      texts.push_back(seed.substr(0, n));
      texts.push_back(seed.substr(0, n) + noise[n % noise.size()]);
    }
  }
  for (const std::string& text : texts) {
    for (bool user_only : {false, true}) {
      fresh.default_user_only = cached.default_user_only = user_only;
      const absl::StatusOr<EventSpec> want_one = ParseEvent(text, fresh);
      const absl::StatusOr<EventSpec> got_one = ParseEvent(text, cached);
      EXPECT_EQ(got_one.status(), want_one.status()) << text;
      if (want_one.ok() && got_one.ok()) {
        EXPECT_EQ(*got_one, *want_one) << text;
      }
      const absl::StatusOr<std::vector<GroupSpec>> want_list =
          ParseEventList(text, fresh);
      const absl::StatusOr<std::vector<GroupSpec>> got_list =
          ParseEventList(text, cached);
      EXPECT_EQ(got_list.status(), want_list.status()) << text;
      if (want_list.ok() && got_list.ok()) {
        EXPECT_EQ(*got_list, *want_list) << text;
      }
    }
    EXPECT_EQ(SuggestEventNames(text, cached), SuggestEventNames(text, fresh))
        << text;
  }
}

// The suggestions skip candidates by cheap lower bounds of the edit distance;
// they must be exactly those of the plain definition (grammar.h): nearest
// first, ties in table order, within max(2, |word| / 3) edits or starting
// with a word of 3+ characters, no duplicates.
size_t PlainEditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = tolower(static_cast<unsigned char>(a[i - 1])) ==
                        tolower(static_cast<unsigned char>(b[j - 1]));
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1)});
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> PlainSuggestions(const std::string& word,
                                          const std::vector<std::string>& all,
                                          size_t max) {
  const size_t limit = std::max<size_t>(1, (word.size() + 1) / 3);
  std::vector<std::pair<size_t, size_t>> scored;  // distance, index
  for (size_t i = 0; i < all.size(); ++i) {
    std::string lower_word = word;
    std::string lower_name = all[i].substr(0, word.size());
    for (char& c : lower_word) c = static_cast<char>(tolower(c));
    for (char& c : lower_name) c = static_cast<char>(tolower(c));
    const bool prefix = word.size() >= 3 && lower_name == lower_word;
    size_t d = PlainEditDistance(word, all[i]);
    if (d > limit && !prefix) continue;
    if (prefix) d = std::min(d, limit);
    scored.push_back({d, i});
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, i] : scored) {
    if (out.size() >= max) break;
    if (std::find(out.begin(), out.end(), all[i]) == out.end()) {
      out.push_back(all[i]);
    }
  }
  return out;
}

TEST(SuggestionsTest, MatchThePlainEditDistanceDefinition) {
  std::vector<std::string> all;
  for (auto table : {HardwareEvents(), SoftwareEvents()}) {
    for (const GenericEvent& e : table) {
      all.emplace_back(e.symbol);
      if (!e.alias.empty()) all.emplace_back(e.alias);
    }
  }
  for (const HwCacheEvent& e : AllHwCacheEvents()) {
    all.push_back(e.CanonicalName());
  }
  std::vector<std::string> words = {"", "c", "cs", "CYC", "xyzzy"};
  for (const std::string& name : all) {
    words.push_back(name);
    for (size_t i = 0; i < name.size(); ++i) {
      words.push_back(name.substr(0, i));
      words.push_back(name.substr(0, i) + name.substr(i + 1));
      std::string changed = name;
      changed[i] = changed[i] == 'x' ? 'y' : 'x';
      words.push_back(changed);
      words.push_back(name.substr(0, i) + "QQ" + name.substr(i));
    }
  }
  std::mt19937 random(1);
  const std::string letters = "abcdeilmnorstuyBCDLT-";
  for (int n = 0; n < 1000; ++n) {
    std::string word(1 + random() % 40, ' ');
    for (char& c : word) c = letters[random() % letters.size()];
    words.push_back(word);
  }
  // Every word natively, in every build type. In the emulated arm64 machine
  // (QEMU, instruction by instruction: 80-100 s for this binary when
  // optimized; a Debug build ran past the runner's 270 s) every 5th word:
  // the same kinds of words (names, prefixes, one letter deleted, changed
  // or doubled, random) in a fifth of the time.
  const size_t stride = perfcounters::testing::ExactUserInstructions() ? 5 : 1;
  for (size_t w = 0; w < words.size(); w += stride) {
    const std::string& word = words[w];
    const std::vector<std::string> plain = PlainSuggestions(word, all, 1000);
    for (size_t max : {size_t{1}, size_t{3}, size_t{1000}}) {
      const std::vector<std::string> want(
          plain.begin(), plain.begin() + std::min(max, plain.size()));
      EXPECT_EQ(SuggestEventNames(word, {}, max), want)
          << "'" << word << "' max " << max;
    }
  }
}

}  // namespace
}  // namespace perfcounters
