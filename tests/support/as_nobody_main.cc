// perfcounters_as_nobody PROGRAM [ARGS...]: runs PROGRAM as nobody:nogroup
// with no supplementary groups (DropToNobody), what `setpriv --reuid=65534
// --regid=65534 --clear-groups` does, for machines without util-linux.
// Exit status 126 when it cannot drop or exec, with the reason on stderr.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "support/as_nobody.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: perfcounters_as_nobody PROGRAM [ARGS...]\n");
    return 126;
  }
  const std::string why = perfcounters::testing::DropToNobody();
  if (!why.empty()) {
    std::fprintf(stderr, "perfcounters_as_nobody: cannot drop to 65534: %s\n",
                 why.c_str());
    return 126;
  }
  execvp(argv[1], argv + 1);
  std::fprintf(stderr, "perfcounters_as_nobody: cannot run %s: %s\n", argv[1],
               std::strerror(errno));
  return 126;
}
