// main.cc: the `perfcounters` command (commands.h's RunCommandLine).
#include "commands.h"

int main(int argc, char** argv) {
  return perfcounters::tools::RunCommandLine(argc, argv);
}
