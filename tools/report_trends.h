// report_trends.h: `report --db`, the trend charts of a history store.
#ifndef PERFCOUNTERS_TOOLS_REPORT_TRENDS_H_
#define PERFCOUNTERS_TOOLS_REPORT_TRENDS_H_

#include <cstddef>
#include <string>

#include "history_changes.h"

namespace perfcounters::tools {

// What `report --db` draws.
struct TrendsArgs {
  std::string db;
  // Only benchmarks matching this regex; only this metric (empty: all).
  std::string benchmark;
  std::string metric;
  std::string output;
  std::string title;
  // Charts on the page at most (changed series first); 0: every series.
  // The page says how many were left out and how to see them.
  size_t max_series = 200;
  // --method, --cp-min-sigmas, ...: as `history changes` finds them.
  ChangePointOptions cp;
};

// `perfcounters report --db DB [--benchmark REGEX] [--metric NAME]
// [--max-series N] -o FILE`: the trend charts of the store, one
// self-contained page (report_trends.cc).
int RunReportTrends(const TrendsArgs& args);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_REPORT_TRENDS_H_
