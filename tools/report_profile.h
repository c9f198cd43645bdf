// report_profile.h: the profile part of `perfcounters report`: per profiled
// benchmark a flame graph of each run's profile (an inline SVG built from
// the profile's stacks) and a table of its top functions with their share
// in each run and, with two or more runs, the change of each share in
// percentage points against the first run.
#ifndef PERFCOUNTERS_TOOLS_REPORT_PROFILE_H_
#define PERFCOUNTERS_TOOLS_REPORT_PROFILE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "gbench_json.h"
#include "profile_data.h"

namespace perfcounters::tools {

// How a flame graph is drawn.
struct FlameGraphOptions {
  // Width of the SVG in px; frames span it in proportion to their samples.
  int width = 1180;
  int row_height = 18;
  // Frames narrower than this are not drawn (their count is in the
  // caption and the SVG's data-hidden attribute).
  double min_frame_px = 0.5;
};

// A flame graph of `profile` (root at the bottom, outermost frame first, as
// flamegraph.pl draws them): one <g class="frame"> per frame with its
// <title> (name, samples, share of all samples), a <rect> whose width is
// frame samples / all samples of the width, and a label where it fits.
// The bottom frame "all" stands for every sample; samples of stacks the
// writer left out (stacks_truncated) leave a gap. Without stacks, the
// functions' self samples are one-frame stacks. Each frame carries
// data-name, data-samples, data-depth; the SVG data-samples (the total)
// and data-frames / data-hidden (frames drawn / too narrow to draw).
std::string FlameGraphSvg(const BenchmarkProfile& profile,
                          const std::string& benchmark,
                          const std::string& run_label,
                          const FlameGraphOptions& options = {});

// The page's profile section (`labels` name the runs, as RunLabels()
// gives): nothing when no run carries a profile. `top` functions per run
// go into each table.
std::string ReportProfileSection(const std::vector<BenchmarkFile>& runs,
                                 const std::vector<std::string>& labels,
                                 size_t top = 20);

}  // namespace perfcounters::tools

#endif  // PERFCOUNTERS_TOOLS_REPORT_PROFILE_H_
