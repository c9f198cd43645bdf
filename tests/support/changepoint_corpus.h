// changepoint_corpus.h: a synthetic corpus of series with known change
// points (flat at several noise levels, single and double steps of several
// sizes, spikes, drifts, missing values, heavy-tailed noise), made by a
// deterministic generator from a seed, and the scoring of a change-point
// method's findings against its truth: false-alarm rate, detection rate,
// position and size error. tools_changepoint_test asserts the rates of the
// default method; bench/changepoint_bench prints them per method.
//
// The generator draws from std::mt19937_64's raw output (portable) with its
// own uniform and Gaussian transforms (no std:: distributions, whose
// results are implementation-defined).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_CHANGEPOINT_CORPUS_H_
#define PERFCOUNTERS_TESTS_SUPPORT_CHANGEPOINT_CORPUS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace perfcounters::tools::testing {

// The seed of the committed corpus (and of Otava's numbers on it,
// tests/testdata/changepoints/).
inline constexpr uint64_t kCorpusSeed = 41;

// A step planted at `index` (the first run at the new level), of `sigmas`
// noise standard deviations (signed), `size` in the series' units.
struct TrueStep {
  size_t index = 0;
  double sigmas = 0;
  double size = 0;
};

// A linear drift from run `first` to run `last` (inclusive).
struct TrueDrift {
  size_t first = 0;
  size_t last = 0;
  double total = 0;  // in the series' units
};

struct CorpusSeries {
  std::string group;  // the table row: "flat, Gaussian", ...
  bool flat = false;
  // NaN: missing (not counted), no point of the series.
  std::vector<double> values;
  double sigma = 0;  // the noise's standard deviation (its Gaussian core)
  std::vector<TrueStep> steps;
  std::vector<TrueDrift> drifts;
};

class CorpusRng {
 public:
  explicit CorpusRng(uint64_t seed) : engine_(seed) {}
  double Uniform() {  // [0, 1)
    return static_cast<double>(engine_() >> 11) * 0x1p-53;
  }
  size_t Below(size_t n) {
    return std::min(n - 1, static_cast<size_t>(Uniform() * n));
  }
  double Gaussian() {  // Box-Muller
    const double u = 1 - Uniform(), v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }
  double Sign() { return Uniform() < 0.5 ? -1 : 1; }

 private:
  std::mt19937_64 engine_;
};

enum class Noise { kGaussian, kHeavy };

// Noise of standard deviation `sigma` (Gaussian), or heavy-tailed like real
// timings: the same Gaussian core, and in 5 % of the runs a slow outlier of
// 2 + Exp(6) sigmas (one-sided).
inline double Draw(CorpusRng& rng, Noise noise, double sigma) {
  double e = rng.Gaussian();
  if (noise == Noise::kHeavy && rng.Uniform() < 0.05) {
    e += 2 - 6 * std::log(1 - rng.Uniform());
  }
  return sigma * e;
}

struct SeriesSpec {
  std::string group;
  size_t n = 200;
  Noise noise = Noise::kGaussian;
  std::vector<double> step_sigmas;  // one per step (signed)
  double drift_sigmas = 0;          // total (signed); 0: none
  size_t spikes = 0;
  double missing = 0;  // fraction of runs not counted
};

inline CorpusSeries MakeSeries(CorpusRng& rng, const SeriesSpec& spec) {
  static constexpr double kRelativeNoise[] = {0.001, 0.005, 0.02};
  CorpusSeries s;
  s.group = spec.group;
  s.flat = spec.step_sigmas.empty() && spec.drift_sigmas == 0;
  const double level = 100 * std::pow(10.0, 4 * rng.Uniform());
  s.sigma = level * kRelativeNoise[rng.Below(3)];
  const size_t n = spec.n;
  std::vector<double> mean(n, level);
  // Steps: each level lasts at least 5 runs.
  if (!spec.step_sigmas.empty()) {
    const size_t k = spec.step_sigmas.size();
    std::vector<size_t> at;
    size_t lo = 5;
    for (size_t j = 0; j < k; ++j) {
      const size_t hi = n - 5 * (k - j);  // room for the later levels
      const size_t i = lo + rng.Below(hi - lo + 1);
      at.push_back(i);
      lo = i + 5;
    }
    for (size_t j = 0; j < k; ++j) {
      const double size = spec.step_sigmas[j] * s.sigma;
      s.steps.push_back({at[j], spec.step_sigmas[j], size});
      for (size_t i = at[j]; i < n; ++i) mean[i] += size;
    }
  }
  if (spec.drift_sigmas != 0) {
    TrueDrift d;
    d.first = rng.Below(n / 3);
    d.last = n - 1 - rng.Below(n / 3);
    d.total = spec.drift_sigmas * s.sigma;
    const double slope = d.total / static_cast<double>(d.last - d.first);
    for (size_t i = d.first; i < n; ++i) {
      mean[i] += slope * static_cast<double>(std::min(i, d.last) - d.first);
    }
    s.drifts.push_back(d);
  }
  for (size_t i = 0; i < n; ++i) {
    s.values.push_back(mean[i] + Draw(rng, spec.noise, s.sigma));
  }
  for (size_t j = 0; j < spec.spikes; ++j) {
    const size_t at = rng.Below(n);
    const double sign = rng.Sign();
    s.values[at] += sign * (8 + 12 * rng.Uniform()) * s.sigma;
  }
  if (spec.missing > 0) {
    for (double& v : s.values) {
      if (rng.Uniform() < spec.missing) {
        v = std::numeric_limits<double>::quiet_NaN();
      }
    }
  }
  return s;
}

// The corpus: 1,800 series of 50 to 400 runs.
inline std::vector<CorpusSeries> MakeCorpus(uint64_t seed) {
  CorpusRng rng(seed);
  std::vector<CorpusSeries> out;
  const size_t kFlatLengths[] = {50, 100, 200, 400};
  const size_t kLengths[] = {60, 120, 200};
  const double kSizes[] = {5, 8, 12, 20};
  auto add = [&](int count, auto spec_of) {
    for (int i = 0; i < count; ++i) {
      out.push_back(MakeSeries(rng, spec_of(static_cast<size_t>(i))));
    }
  };
  auto flat = [&](const char* group, Noise noise, size_t spikes,
                  double missing) {
    return [=](size_t i) {
      SeriesSpec s;
      s.group = group;
      s.n = kFlatLengths[i % 4];
      s.noise = noise;
      s.spikes = spikes;
      s.missing = missing;
      return s;
    };
  };
  add(600, flat("flat, Gaussian", Noise::kGaussian, 0, 0));
  add(200, flat("flat, heavy-tailed", Noise::kHeavy, 0, 0));
  add(100, flat("flat, 3 spikes", Noise::kGaussian, 3, 0));
  add(100, flat("flat, 10 % missing", Noise::kGaussian, 0, 0.1));
  auto steps = [&](const char* group, Noise noise, int count, double missing,
                   const std::vector<double>& sizes) {
    return [=, &rng](size_t i) {
      SeriesSpec s;
      s.group = group;
      s.n = kLengths[i % 3];
      s.noise = noise;
      s.missing = missing;
      for (int j = 0; j < count; ++j) {
        const double sign = rng.Sign();
        s.step_sigmas.push_back(sign * sizes[rng.Below(sizes.size())]);
      }
      return s;
    };
  };
  const std::vector<double> sizes(std::begin(kSizes), std::end(kSizes));
  add(200, steps("step 5-20 sd, Gaussian", Noise::kGaussian, 1, 0, sizes));
  add(100, steps("step 5-20 sd, heavy-tailed", Noise::kHeavy, 1, 0, sizes));
  add(100,
      steps("step 5-20 sd, 10 % missing", Noise::kGaussian, 1, 0.1, sizes));
  add(200, steps("two steps 5-20 sd", Noise::kGaussian, 2, 0, sizes));
  add(100,
      steps("step 2-3 sd (below the target)", Noise::kGaussian, 1, 0, {2, 3}));
  add(100, [&](size_t i) {
    SeriesSpec s;
    s.group = "drift 10-40 sd";
    s.n = kLengths[1 + i % 2];
    const double sign = rng.Sign();
    s.drift_sigmas = sign * (10 + 30 * rng.Uniform());
    return s;
  });
  return out;
}

}  // namespace perfcounters::tools::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_CHANGEPOINT_CORPUS_H_
