// oom_safe_map.h: the hash map and set the tools use for data that grows
// with the input (names, indexes, sums while loading and comparing).
//
// The command turns running out of memory into a clear error (exit 2), so a
// container must survive an allocation that throws. abseil's Swiss tables
// (flat_hash_map/set) do not: a rehash records the new capacity before it
// allocates, and when that allocation throws, the table's destructor walks
// the old array as if it were the new one (seen: free(): invalid pointer
// under `ulimit -v`). std::unordered_map/set keep the strong guarantee on
// insert, so they are used instead, with abseil's hash. The test tools_layers
// fails on a tools/ file that includes a Swiss table
// (cmake/CheckToolsLayers.cmake names the few that hold no input).
#ifndef PERFCOUNTERS_TOOLS_OOM_SAFE_MAP_H_
#define PERFCOUNTERS_TOOLS_OOM_SAFE_MAP_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace perfcounters::tools {

namespace oom_safe_internal {

// std::string keys are looked up by absl::string_view too, as in abseil's
// own string maps.
struct StringHash {
  using is_transparent = void;
  size_t operator()(absl::string_view s) const {
    return absl::Hash<absl::string_view>{}(s);
  }
};

template <class K>
struct KeyTraits {
  using Hash = absl::Hash<K>;
  using Eq = std::equal_to<K>;
};
template <>
struct KeyTraits<std::string> {
  using Hash = StringHash;
  using Eq = std::equal_to<>;
};

}  // namespace oom_safe_internal

template <class K, class V>
using OomSafeMap =
    std::unordered_map<K, V, typename oom_safe_internal::KeyTraits<K>::Hash,
                       typename oom_safe_internal::KeyTraits<K>::Eq>;

template <class K>
using OomSafeSet =
    std::unordered_set<K, typename oom_safe_internal::KeyTraits<K>::Hash,
                       typename oom_safe_internal::KeyTraits<K>::Eq>;

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_OOM_SAFE_MAP_H_
