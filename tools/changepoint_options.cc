// changepoint_options.cc: the change-point options of changepoint_options.h.
#include "changepoint_options.h"

#include <string>

#include "CLI/CLI.hpp"

namespace perfcounters::tools {

void AddChangePointOptions(CLI::App& app, ChangePointOptions& cp) {
  app.add_option_function<std::string>(
         "--method",
         [&cp](const std::string& m) {
           cp.method =
               m == "otava" ? ChangeMethod::kOtava : ChangeMethod::kRobust;
         },
         "change points: robust (default: levels and drifts in units of the "
         "series' noise) or otava (Apache Otava's E-divisive means and "
         "t-test, its defaults)")
      ->check(CLI::IsMember({"robust", "otava"}))
      ->default_str("robust");
  app.add_option("--cp-min-sigmas", cp.min_sigmas,
                 "change points (robust): the smallest change, in noise "
                 "standard deviations")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 1000.0));
  app.add_option("--cp-window", cp.window,
                 "change points (otava): the E-divisive sliding window (runs)")
      ->capture_default_str()
      ->check(CLI::Range(3, 100000));
  app.add_option("--cp-p-value", cp.max_p,
                 "change points (otava): the t-test's largest p-value")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--cp-min-change", cp.min_magnitude,
                 "change points: the smallest relative change (0.01 = 1 %)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
}

}  // namespace perfcounters::tools
