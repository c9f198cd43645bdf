// report_trends.h: `report --db`, the trend charts of a history store.
#ifndef PERFCOUNTERS_TOOLS_REPORT_TRENDS_H_
#define PERFCOUNTERS_TOOLS_REPORT_TRENDS_H_

#include <string>

namespace perfcounters::tools {

// `perfcounters report --db DB [--benchmark REGEX] -o FILE`: the trend
// charts of the store, one self-contained page (report_trends.cc).
int RunReportTrends(const std::string& db, const std::string& benchmark,
                    const std::string& output, const std::string& title);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_REPORT_TRENDS_H_
