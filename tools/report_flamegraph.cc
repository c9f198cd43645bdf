// report_flamegraph.cc: FlameGraphSvg (see report_profile.h).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "report_html.h"
#include "report_profile.h"

namespace perfcounters::tools {
namespace {

using report_internal::Esc;

constexpr int kMargin = 4;
constexpr double kCharPx = 7.0;  // 12 px monospace

struct Node {
  std::string name;
  double samples = 0;
  std::map<std::string, size_t> children;  // alphabetical, as flamegraph.pl
};

// The stacks as a tree under "all".
std::vector<Node> BuildTree(const BenchmarkProfile& p) {
  std::vector<Node> nodes(1);
  nodes[0].name = "all";
  nodes[0].samples = p.samples;
  auto add = [&](absl::string_view stack, double samples) {
    size_t at = 0;
    for (absl::string_view frame : absl::StrSplit(stack, ';')) {
      auto [it, inserted] =
          nodes[at].children.try_emplace(std::string(frame), nodes.size());
      if (inserted) {
        nodes.push_back({});
        nodes.back().name = std::string(frame);
      }
      at = it->second;
      nodes[at].samples += samples;
    }
  };
  if (!p.stacks.empty()) {
    for (const ProfileStack& s : p.stacks) add(s.stack, s.samples);
  } else {
    for (const ProfileFunction& f : p.functions) add(f.name, f.samples);
  }
  return nodes;
}

// flamegraph.pl's warm palette, the colour fixed by the name (the same
// function has the same colour in every graph).
std::string FrameColour(const std::string& name) {
  if (name == "all") return "#d9d9d9";
  if (name.starts_with("[unknown]")) return "#c0c0c0";
  uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  const int r = 205 + static_cast<int>(h % 51);
  const int g = static_cast<int>((h >> 8) % 231);
  const int b = static_cast<int>((h >> 16) % 56);
  return absl::StrFormat("#%02x%02x%02x", r, g, b);
}

// `name` cut to `chars` characters ("..." at the end), not inside a UTF-8
// sequence.
std::string Fit(const std::string& name, size_t chars) {
  if (name.size() <= chars) return name;
  size_t cut = chars - 2;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return name.substr(0, cut) + "..";
}

class Drawer {
 public:
  Drawer(const std::vector<Node>& nodes, double total,
         const FlameGraphOptions& o, int height, std::string unit)
      : nodes_(nodes),
        total_(total),
        o_(o),
        height_(height),
        unit_(std::move(unit)) {}

  void Draw(size_t node, int depth, double x) {
    const Node& n = nodes_[node];
    const double inner = o_.width - 2 * kMargin;
    const double w = total_ > 0 ? n.samples / total_ * inner : 0;
    if (w < o_.min_frame_px) {
      hidden_ += Count(node);
      return;
    }
    ++drawn_;
    const double y = height_ - kMargin - (depth + 1) * o_.row_height;
    const std::string label = ShortFunctionName(n.name);
    absl::StrAppendFormat(
        &svg_,
        "<g class=\"frame\" data-name=\"%s\" data-samples=\"%.17g\" "
        "data-depth=\"%d\"><title>%s — %.17g %s, %.2f%%</title>"
        "<rect x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\" rx=\"2\" "
        "fill=\"%s\"/>",
        Esc(n.name), n.samples, depth, Esc(n.name), n.samples, Esc(unit_),
        total_ > 0 ? n.samples / total_ * 100 : 0.0, x, static_cast<int>(y), w,
        o_.row_height - 1, FrameColour(n.name));
    const size_t chars = static_cast<size_t>((w - 6) / kCharPx);
    if (chars >= 3) {
      absl::StrAppendFormat(&svg_, "<text x=\"%.3f\" y=\"%d\">%s</text>", x + 3,
                            static_cast<int>(y) + o_.row_height - 5,
                            Esc(Fit(label, chars)));
    }
    svg_ += "</g>\n";
    double cx = x;
    for (const auto& [unused, child] : n.children) {
      Draw(child, depth + 1, cx);
      cx += total_ > 0 ? nodes_[child].samples / total_ * inner : 0;
    }
  }

  std::string& svg() { return svg_; }
  size_t drawn() const { return drawn_; }
  size_t hidden() const { return hidden_; }

 private:
  size_t Count(size_t node) const {
    size_t n = 1;
    for (const auto& [unused, child] : nodes_[node].children) {
      n += Count(child);
    }
    return n;
  }

  const std::vector<Node>& nodes_;
  double total_;
  const FlameGraphOptions& o_;
  int height_;
  // "samples", or a simulated profile's event and its label.
  const std::string unit_;
  std::string svg_;
  size_t drawn_ = 0, hidden_ = 0;
};

int Depth(const std::vector<Node>& nodes, size_t node) {
  int d = 0;
  for (const auto& [unused, child] : nodes[node].children) {
    d = std::max(d, Depth(nodes, child));
  }
  return d + 1;
}

}  // namespace

std::string FlameGraphSvg(const BenchmarkProfile& profile,
                          const std::string& benchmark,
                          const std::string& run_label,
                          const FlameGraphOptions& options) {
  const std::vector<Node> nodes = BuildTree(profile);
  const int height = Depth(nodes, 0) * options.row_height + 2 * kMargin;
  // A simulated profile counts its event (docs/profiles.md).
  Drawer drawer(
      nodes, profile.samples, options, height,
      profile.simulated
          ? absl::StrCat(profile.event.empty() ? "events" : profile.event,
                         " [simulated]")
          : std::string("samples"));
  drawer.Draw(0, 0, kMargin);
  return absl::StrFormat(
      "<svg class=\"flamegraph\" "
      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" data-benchmark=\"%s\" "
      "data-run=\"%s\" data-samples=\"%.17g\" data-frames=\"%d\" "
      "data-hidden=\"%d\" role=\"img\"><title>%s</title>\n%s</svg>",
      options.width, height, options.width, height, Esc(benchmark),
      Esc(run_label), profile.samples, drawer.drawn(), drawer.hidden(),
      Esc(absl::StrCat("Flame graph of ", benchmark, " in ", run_label)),
      drawer.svg());
}

}  // namespace perfcounters::tools
