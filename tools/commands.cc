// commands.cc: what every subcommand's Command has in common.
#include "commands.h"

#include <utility>

#include "CLI/CLI.hpp"

namespace perfcounters::tools {

Command WhenGiven(const CLI::App* subcommand, std::function<int()> run) {
  return [subcommand, run = std::move(run)]() -> std::optional<int> {
    if (!subcommand->parsed()) return std::nullopt;
    return run();
  };
}

}  // namespace perfcounters::tools
