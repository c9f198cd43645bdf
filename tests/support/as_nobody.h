// as_nobody.h: running as an ordinary user without util-linux's setpriv
// (the emulated arm64 machine has busybox only, whose setpriv cannot change
// ids). DropToNobody() drops the calling process itself (for a forked child
// that then calls the library); AsNobodyCommand() is the shell prefix that
// runs a program that way (the perfcounters_as_nobody helper built from
// as_nobody_main.cc, which drops and then execs the program).
#ifndef PERFCOUNTERS_TESTS_SUPPORT_AS_NOBODY_H_
#define PERFCOUNTERS_TESTS_SUPPORT_AS_NOBODY_H_

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace perfcounters::testing {

// nobody:nogroup, a user that owns nothing and has no capabilities.
inline constexpr uid_t kNobodyId = 65534;

// Drops the calling process to uid and gid kNobodyId (real, effective and
// saved) with no supplementary groups, so without capabilities. Returns ""
// when done and checked (the ids are set and root cannot be regained), else
// what failed. Needs root.
inline std::string DropToNobody() {
  auto failed = [](const char* what) {
    return std::string(what) + " failed: " + std::strerror(errno);
  };
  if (setgroups(0, nullptr) != 0) return failed("setgroups(0)");
  if (setresgid(kNobodyId, kNobodyId, kNobodyId) != 0) {
    return failed("setresgid(65534)");
  }
  if (setresuid(kNobodyId, kNobodyId, kNobodyId) != 0) {
    return failed("setresuid(65534)");
  }
  uid_t r = 0, e = 0, s = 0;
  gid_t gr = 0, ge = 0, gs = 0;
  if (getresuid(&r, &e, &s) != 0 || getresgid(&gr, &ge, &gs) != 0 ||
      r != kNobodyId || e != kNobodyId || s != kNobodyId || gr != kNobodyId ||
      ge != kNobodyId || gs != kNobodyId || getgroups(0, nullptr) != 0) {
    return "the ids did not change to 65534";
  }
  if (setresuid(0, 0, 0) == 0) return "root could be regained";
  return "";
}

#ifdef PERFCOUNTERS_AS_NOBODY
// The helper program: its build path, else next to this test binary (the
// emulated arm64 machine has both).
inline std::string AsNobodyPath() {
  struct stat st;
  if (stat(PERFCOUNTERS_AS_NOBODY, &st) == 0) return PERFCOUNTERS_AS_NOBODY;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string exe(self, n > 0 ? static_cast<size_t>(n) : 0);
  return exe.substr(0, exe.rfind('/') + 1) + "perfcounters_as_nobody";
}

// `AsNobodyCommand() + " prog args"` runs prog as nobody from sh.
inline std::string AsNobodyCommand() {
  std::string q = "'";
  for (char c : AsNobodyPath())
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
#endif

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_AS_NOBODY_H_
