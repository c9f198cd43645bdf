// changepoint_bench: the change-point methods on the synthetic corpus with
// known truth (tests/support/changepoint_corpus.h): per method, the
// false-alarm rate on flat series, the detection rate of steps of at least
// 5 noise SDs lasting at least 5 runs, their position and size error,
// drifts reported as one finding, and the CPU time; next to Apache Otava's
// own findings on the same corpus (tests/testdata/changepoints/, produced
// once with Otava's code; see the README there). docs/history.md has the
// table.
//
//   changepoint_bench                 the table, seed 41 (the committed one)
//   changepoint_bench --seeds N       the headline rates for seeds 1..N
//   changepoint_bench --dump FILE     the corpus as text, for Otava's run
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "history_changes.h"
#include "support/changepoint_corpus.h"
#include "support/changepoint_score.h"

namespace {

// A program of its own: the methods' and the corpus's names, unqualified.
// NOLINTBEGIN(google-build-using-namespace)
using namespace perfcounters::tools;
using namespace perfcounters::tools::testing;
// NOLINTEND(google-build-using-namespace)

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<Finding> ToFindings(const std::vector<ChangePoint>& cps) {
  std::vector<Finding> out;
  out.reserve(cps.size());
  for (const ChangePoint& c : cps) {
    out.push_back({c.index, c.last_index, c.kind == ChangeKind::kDrift,
                   c.mean_before, c.mean_after});
  }
  return out;
}

struct Result {
  std::string method;
  Tally total;
  std::map<std::string, Tally> groups;
  std::vector<std::string> order;
  double seconds = 0;  // CPU
};

Result Run(const std::vector<CorpusSeries>& corpus, ChangeMethod method) {
  Result r;
  r.method = ChangeMethodName(method);
  ChangePointOptions options;
  options.method = method;
  for (const CorpusSeries& s : corpus) {
    const std::vector<double> values = Counted(s);
    const double start = CpuSeconds();
    const std::vector<ChangePoint> cps = FindChangePoints(values, options);
    r.seconds += CpuSeconds() - start;
    const Tally t = Score(s, ToFindings(cps));
    r.total.Add(t);
    if (!r.groups.count(s.group)) r.order.push_back(s.group);
    r.groups[s.group].Add(t);
  }
  return r;
}

// Otava's findings (tests/testdata/changepoints/otava_seed41.txt): a line
// per series, "index:before:after" for each change point; "# cpu_seconds
// S" the time of its change-point function over the corpus.
std::optional<Result> OtavaResult(const std::vector<CorpusSeries>& corpus,
                                  const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  Result r;
  r.method = "Apache Otava 0.8";
  std::string line;
  size_t k = 0;
  while (std::getline(in, line)) {
    if (line.rfind("# cpu_seconds ", 0) == 0) {
      r.seconds = std::atof(line.c_str() + 14);
      continue;
    }
    if (!line.empty() && line[0] == '#') continue;  // an empty line: none
    if (k >= corpus.size()) return std::nullopt;
    std::vector<Finding> found;
    std::istringstream fields(line);
    std::string field;
    while (fields >> field) {
      Finding f;
      if (std::sscanf(field.c_str(), "%zu:%lf:%lf", &f.index, &f.before,
                      &f.after) != 3) {
        return std::nullopt;
      }
      found.push_back(f);
    }
    const CorpusSeries& s = corpus[k++];
    const Tally t = Score(s, found);
    r.total.Add(t);
    if (!r.groups.count(s.group)) r.order.push_back(s.group);
    r.groups[s.group].Add(t);
  }
  if (k != corpus.size()) return std::nullopt;
  return r;
}

double Pct(size_t a, size_t b) {
  return b == 0 ? 0 : 100.0 * static_cast<double>(a) / static_cast<double>(b);
}

void PrintTable(const std::vector<Result>& results, size_t series) {
  const Tally& t0 = results[0].total;
  std::printf("(%zu series: %zu flat, %zu target steps, %zu drifts)\n\n",
              series, t0.flat_series, t0.targets, t0.drift_series);
  std::printf("| |");
  for (const Result& r : results) std::printf(" %s |", r.method.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < results.size(); ++i) std::printf("---|");
  std::printf("\n");
  auto row = [&](const char* name, auto cell) {
    std::printf("| %s |", name);
    for (const Result& r : results)
      std::printf(" %s |", cell(r.total, r).c_str());
    std::printf("\n");
  };
  auto fmt = [](const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  row("flat series with a false alarm", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.flat_alarmed, t.flat_series));
  });
  row("false findings per flat series", [&](const Tally& t, const Result&) {
    return fmt("%.3f", static_cast<double>(t.flat_findings) /
                           static_cast<double>(t.flat_series));
  });
  row("target steps found (within 2 runs)", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.target_near, t.targets));
  });
  row("... at their run", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.target_exact, t.targets));
  });
  row("... mean position error (runs)", [&](const Tally& t, const Result&) {
    return fmt("%.3f",
               t.target_position_error /
                   std::max<double>(1, static_cast<double>(t.target_near)));
  });
  row("... size within 10 % of the data's", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.target_size_data, t.target_near));
  });
  row("... size within 10 % of the truth", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.target_size_truth, t.target_near));
  });
  row("steps of 2-3 SD found", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.other_found, t.others));
  });
  row("spurious findings per step series", [&](const Tally& t, const Result&) {
    return fmt("%.3f", static_cast<double>(t.spurious) /
                           static_cast<double>(t.step_series));
  });
  row("drifts reported as one drift", [&](const Tally& t, const Result&) {
    return fmt("%.1f %%", Pct(t.drift_one, t.drift_series));
  });
  row("findings per drift series", [&](const Tally& t, const Result&) {
    return fmt("%.2f", static_cast<double>(t.drift_findings) /
                           static_cast<double>(t.drift_series));
  });
  row("CPU time per series", [&](const Tally&, const Result& r) {
    return fmt("%.3f ms", 1e3 * r.seconds / static_cast<double>(series));
  });
  // Per group: flat groups' false alarms, step groups' detection.
  std::printf("\n| group |");
  for (const Result& r : results) std::printf(" %s |", r.method.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < results.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const std::string& g : results[0].order) {
    std::printf("| %s |", g.c_str());
    for (const Result& r : results) {
      const Tally& t = r.groups.at(g);
      if (t.flat_series) {
        std::printf(" %.1f %% alarmed |", Pct(t.flat_alarmed, t.flat_series));
      } else if (t.drift_series) {
        std::printf(" %.0f %% one drift, %.2f findings |",
                    Pct(t.drift_one, t.drift_series),
                    static_cast<double>(t.drift_findings) /
                        static_cast<double>(t.drift_series));
      } else if (t.targets) {
        std::printf(" %.1f %% found, %.1f %% at the run, %.2f spurious |",
                    Pct(t.target_near, t.targets),
                    Pct(t.target_exact, t.targets),
                    static_cast<double>(t.spurious) /
                        static_cast<double>(t.step_series));
      } else {
        std::printf(" %.1f %% found, %.2f spurious |",
                    Pct(t.other_found, t.others),
                    static_cast<double>(t.spurious) /
                        static_cast<double>(t.step_series));
      }
    }
    std::printf("\n");
  }
}

int Dump(const std::string& path) {
  std::ofstream out(path);
  for (const CorpusSeries& s : MakeCorpus(kCorpusSeed)) {
    const std::vector<double> v = Counted(s);
    for (size_t i = 0; i < v.size(); ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v[i]);
      out << (i ? " " : "") << buf;
    }
    out << "\n";
  }
  return out ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--dump") == 0) return Dump(argv[2]);
  if (argc == 3 && std::strcmp(argv[1], "--seeds") == 0) {
    const int seeds = std::atoi(argv[2]);
    std::printf(
        "| seed | method | flat alarmed | targets found | at the run "
        "| size within 10 %% (data) | drifts as one |\n"
        "|---|---|---|---|---|---|---|\n");
    for (int seed = 1; seed <= seeds; ++seed) {
      const std::vector<CorpusSeries> corpus =
          MakeCorpus(static_cast<uint64_t>(seed));
      for (ChangeMethod m : {ChangeMethod::kRobust, ChangeMethod::kOtava}) {
        const Tally t = Run(corpus, m).total;
        std::printf(
            "| %d | %s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.0f %% |\n",
            seed, ChangeMethodName(m), Pct(t.flat_alarmed, t.flat_series),
            Pct(t.target_near, t.targets), Pct(t.target_exact, t.targets),
            Pct(t.target_size_data, t.target_near),
            Pct(t.drift_one, t.drift_series));
      }
    }
    return 0;
  }
  const std::vector<CorpusSeries> corpus = MakeCorpus(kCorpusSeed);
  std::vector<Result> results = {Run(corpus, ChangeMethod::kRobust),
                                 Run(corpus, ChangeMethod::kOtava)};
  const std::string otava =
      std::string(PERFCOUNTERS_CHANGEPOINT_TESTDATA) + "/otava_seed41.txt";
  if (std::optional<Result> r = OtavaResult(corpus, otava)) {
    results.push_back(*std::move(r));
  } else {
    std::fprintf(stderr, "changepoint_bench: no Otava numbers in %s\n",
                 otava.c_str());
  }
  std::printf("Change-point methods on the synthetic corpus (seed %llu)\n",
              static_cast<unsigned long long>(kCorpusSeed));
  PrintTable(results, corpus.size());
  return 0;
}
