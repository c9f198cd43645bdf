// edit_distance.cc: Levenshtein distance and nearest-name suggestions.
#include "perfcounters/internal/edit_distance.h"

#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "text_util.h"

namespace perfcounters::internal {
namespace {

unsigned char Lower(char c) {
  return static_cast<unsigned char>(absl::ascii_tolower(c));
}

// How many characters of `candidate` the word lacks and how many of the
// word's it lacks, as multisets, case-insensitively; the larger of the two.
// A lower bound of the edit distance (each edit removes at most one
// difference on each side), in one pass. `counts` holds the word's
// character counts and is left as it was.
size_t BagDistance(std::array<int, 256>& counts, size_t word_size,
                   std::string_view candidate) {
  size_t extra = 0;
  for (char c : candidate) {
    if (--counts[Lower(c)] < 0) ++extra;
  }
  for (char c : candidate) ++counts[Lower(c)];
  const size_t missing = word_size - (candidate.size() - extra);
  return std::max(missing, extra);
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  return BoundedEditDistance(a, b, std::max(a.size(), b.size()));
}

size_t BoundedEditDistance(std::string_view a, std::string_view b,
                           size_t bound) {
  // The distance is at least the difference in length.
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >
      bound) {
    return bound + 1;
  }
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    size_t row_min = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = Lower(a[i - 1]) == Lower(b[j - 1]);
      row[j] =
          std::min(std::min(above, row[j - 1]) + 1, diagonal + (same ? 0 : 1));
      diagonal = above;
      row_min = std::min(row_min, row[j]);
    }
    // Every later row is at least this row's minimum.
    if (row_min > bound) return bound + 1;
  }
  return std::min(row[b.size()], bound + 1);
}

std::vector<std::string> ClosestNames(
    std::string_view word, const std::vector<std::string>& candidates,
    size_t max) {
  // Plausible only: a third of the word may change (at least one edit),
  // so a short word is not "close" to an unrelated short name (rG -> cs).
  const size_t limit = std::max<size_t>(1, (word.size() + 1) / 3);
  struct Scored {
    size_t distance;
    size_t index;
  };
  std::array<int, 256> counts{};
  for (char c : word) ++counts[Lower(c)];
  std::vector<Scored> scored;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const bool prefix = word.size() >= 3 && IStartsWith(candidates[i], word);
    // Distances beyond `limit` only matter as "too far" (or, for a prefix,
    // as `limit`), so a cheap lower bound may rule a candidate out and the
    // exact computation may stop there.
    if (!prefix && BagDistance(counts, word.size(), candidates[i]) > limit) {
      continue;
    }
    size_t d = BoundedEditDistance(word, candidates[i], limit);
    if (d > limit && !prefix) continue;
    if (prefix) d = std::min(d, limit);
    scored.push_back({d, i});
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const Scored& x, const Scored& y) { return x.distance < y.distance; });
  std::vector<std::string> out;
  for (const Scored& s : scored) {
    if (out.size() >= max) break;
    const std::string& name = candidates[s.index];
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace perfcounters::internal
