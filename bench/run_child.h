// run_child.h: runs the built `perfcounters` command as a child process for
// the tools' benchmarks and reads what it cost from wait4(2): its exit
// status, peak RSS, CPU time (user + system) and wall time.
#ifndef PERFCOUNTERS_BENCH_RUN_CHILD_H_
#define PERFCOUNTERS_BENCH_RUN_CHILD_H_

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace perfcounters::bench_support {

struct Child {
  int status = -1;  // exit status, or 128 + the signal
  uint64_t peak_rss = 0;
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // user + system
};

// Runs `tool` with `args`, its stdout and stderr to /dev/null.
inline Child RunChild(const std::string& tool,
                      const std::vector<std::string>& args) {
  Child c;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(tool.c_str()));
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(127);
    if (std::freopen("/dev/null", "w", stderr) == nullptr) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  struct rusage ru;
  int status = 0;
  if (wait4(pid, &status, 0, &ru) == pid) {
    c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    c.peak_rss = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
    c.cpu_seconds =
        static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
        static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  }
  c.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return c;
}

}  // namespace perfcounters::bench_support

#endif  // PERFCOUNTERS_BENCH_RUN_CHILD_H_
