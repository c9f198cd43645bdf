// changepoint_robust.h: the default change-point method (`--method robust`,
// docs/history.md): steps and drifts of a series judged in units of the
// series' own noise.
//  1. noise scale: sigma = 1.4826 MAD(first differences) / sqrt(2), which a
//     step (one difference), a drift (a constant in every difference) and
//     outliers barely move;
//  2. outliers: each point clipped to within 3 sigma of the running median
//     of 9 points (a spike is no level; a level lasting 5 runs keeps the
//     median; at the ends, a ramp's median is carried to the point);
//  3. segmentation: the exact minimum (PELT, Killick et al. 2012) of the
//     squared residuals in sigma units plus a penalty of 4 ln(n) per
//     segment, each segment a level or a line (a line costs 3 ln(n) more),
//     each at least 5 runs: the penalty grows with the number of candidate
//     splits, as a Bonferroni bound does;
//  4. findings: a boundary whose levels differ by at least `min_sigmas` is a
//     step (twice that where a line meets it); adjacent levels closer than
//     that are merged; lines joined without a step, sloping the same way,
//     are one drift (first and last run from the best continuous bend,
//     total change), kept when it moves at least `min_sigmas`.
#ifndef PERFCOUNTERS_TOOLS_CHANGEPOINT_ROBUST_H_
#define PERFCOUNTERS_TOOLS_CHANGEPOINT_ROBUST_H_

#include <cstddef>
#include <vector>

#include "history_changes.h"

namespace perfcounters::tools {

// The steps and drifts of `series`, by index (options.min_sigmas and
// options.min_magnitude apply; the kOtava options do not).
std::vector<ChangePoint> FindRobustChanges(const std::vector<double>& series,
                                           const ChangePointOptions& options);

// The noise scale of step 1: at least a millionth of the series' range (an
// exact series); 0 for a constant one or fewer than 3 points.
double RobustNoiseScale(const std::vector<double>& series);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_CHANGEPOINT_ROBUST_H_
