// edit_distance.cc: Levenshtein distance and nearest-name suggestions.
#include "edit_distance.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "text_util.h"

namespace perfcounters::internal {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same =
          absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> ClosestNames(
    std::string_view word, const std::vector<std::string>& candidates,
    size_t max) {
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  struct Scored {
    size_t distance;
    size_t index;
  };
  std::vector<Scored> scored;
  for (size_t i = 0; i < candidates.size(); ++i) {
    size_t d = EditDistance(word, candidates[i]);
    const bool prefix = word.size() >= 3 && IStartsWith(candidates[i], word);
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
