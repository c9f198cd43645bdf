// tool_with_faults.cc: the `perfcounters` command with fault-injection
// points, for tests only (perfcounters_tool_faults; never installed). With
// PERFCOUNTERS_HISTORY_STOP_AFTER=N, `history add` stops itself (SIGSTOP)
// inside its transaction after N values, so a test can kill it there.
#include <signal.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "commands.h"
#include "history.h"

namespace {

int64_t stop_after = -1;

void StopAfter(size_t written) {
  if (stop_after >= 0 && written == static_cast<size_t>(stop_after)) {
    raise(SIGSTOP);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* v = std::getenv("PERFCOUNTERS_HISTORY_STOP_AFTER");
  if (v != nullptr && absl::SimpleAtoi(v, &stop_after)) {
    perfcounters::tools::SetAddProgressHook(&StopAfter);
  }
  return perfcounters::tools::RunCommandLine(argc, argv);
}
