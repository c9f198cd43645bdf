#!/usr/bin/env bash
# deps.sh: installs, with apt-get, the Debian 12 packages the project needs and
# that are missing. Sourced by scripts/main (perfcounters_install_deps main:
# library, Google Benchmark integration, examples, command), scripts/test
# (perfcounters_install_deps test: all that plus what the test suite needs)
# and the developer's checks, scripts/ci-quick and scripts/check-tidy
# (perfcounters_install_deps dev: all that plus clang-format and clang-tidy);
# safe to re-run. Run it to install a set yourself: scripts/deps.sh
# [main|test|dev] (default dev). Set PERFCOUNTERS_NO_APT=1 to skip (then you
# install them yourself).
set -euo pipefail

# The library, benchmark_ext, the examples and the perfcounters command.
perfcounters_main_packages=(
  build-essential cmake ninja-build pkg-config
  libabsl-dev libbenchmark-dev
  # tools: command line, JSON (fast loading for compare/report), name filters
  nlohmann-json3-dev libcli11-dev libre2-dev
  # vendor event names (INST_RETIRED:ANY_P, mem_load_retired.l3_miss); optional
  libpfm4-dev
  # profiles: in-process symbolization (functions, inlined frames, lines)
  libdw-dev
  # history: the results store's back ends (SQLite file, PostgreSQL URL)
  libsqlite3-dev libpq-dev
  # statistics (tools/statistics.cc): Boost.Math's t, normal and binomial
  # distributions, header-only
  libboost-math-dev
)

# The test suite on top of that.
perfcounters_test_packages=(
  libgtest-dev libgmock-dev
  # one compile of the core library serves the test, gbench-version and
  # consumer build trees (CMake uses ccache when it is installed)
  ccache
  # encode_test cross-checks EncodeAttr against perf stat -vv
  linux-perf
  # the report test: headless browser, and its screenshot decoded
  chromium libpng-dev
  # the history test starts a real PostgreSQL server (initdb, pg_ctl) and
  # checks its t distribution against SciPy's
  postgresql python3-scipy
  # the simulated counting source (docs/simulate.md): valgrind runs the
  # benchmarks, its headers give the client requests
  valgrind
  # the emulated arm64 machine (tests/arm64): cross compiler, qemu, initramfs tools
  g++-aarch64-linux-gnu qemu-system-arm cpio binutils xz-utils
)

# The developer's checks on top of that (scripts/check-format,
# scripts/check-tidy, scripts/check-sizes, scripts/ci-quick): clang-format
# and clang-tidy 14, the versions .clang-format and .clang-tidy are written
# for, and universal-ctags (function sizes).
perfcounters_dev_packages=(clang-format-14 clang-tidy-14 universal-ctags)

# perfcounters_install_deps main|test|dev [PACKAGE]...
perfcounters_install_deps() {
  [[ ${PERFCOUNTERS_NO_APT:-0} == 1 ]] && return 0
  local set=${1:-test}
  (($#)) && shift
  local wanted=("${perfcounters_main_packages[@]}")
  case $set in
    main) ;;
    test) wanted+=("${perfcounters_test_packages[@]}") ;;
    dev) wanted+=("${perfcounters_test_packages[@]}" "${perfcounters_dev_packages[@]}") ;;
    *) echo "deps: unknown package set '$set' (main, test or dev)" >&2; return 2 ;;
  esac
  local missing=() p
  for p in "${wanted[@]}" "$@"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'install ok installed'* ]] || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  echo "deps: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Run, not sourced: install a set (default dev).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  perfcounters_install_deps "${@:-dev}"
fi
