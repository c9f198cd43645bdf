// edit_distance.h (internal): "did you mean" suggestions by edit distance.
#ifndef PERFCOUNTERS_INTERNAL_EDIT_DISTANCE_H_
#define PERFCOUNTERS_INTERNAL_EDIT_DISTANCE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "perfcounters/export.h"

PERFCOUNTERS_EXPORT_BEGIN
namespace perfcounters::internal {

// Case-insensitive Levenshtein distance (insert, delete, substitute).
size_t EditDistance(std::string_view a, std::string_view b);

// EditDistance(a, b) when it is at most `bound`, else bound + 1; stops as
// soon as the distance must exceed `bound`.
size_t BoundedEditDistance(std::string_view a, std::string_view b,
                           size_t bound);

// Up to `max` candidates closest to `word`, nearest first (ties in candidate
// order), keeping only those within max(1, (|word| + 1) / 3) edits, or that
// start with `word` (case-insensitively) when `word` has 3+ characters.
// Duplicates are dropped.
std::vector<std::string> ClosestNames(
    std::string_view word, const std::vector<std::string>& candidates,
    size_t max);

}  // namespace perfcounters::internal
PERFCOUNTERS_EXPORT_END

#endif  // PERFCOUNTERS_INTERNAL_EDIT_DISTANCE_H_
