#!/usr/bin/env bash
# deps.sh: installs, with apt-get, the Debian 12 packages the project needs and
# that are missing. Sourced by scripts/main and scripts/test; safe to re-run.
# Set PERFCOUNTERS_NO_APT=1 to skip (then you install them yourself).
set -euo pipefail

perfcounters_host_packages=(
  build-essential cmake ninja-build pkg-config
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  # vendor event names (INST_RETIRED:ANY_P, mem_load_retired.l3_miss); optional
  libpfm4-dev
  # encode_test cross-checks EncodeAttr against perf stat -vv
  linux-perf
  # tools: fast JSON loading (compare/report), headless browser for the report test
  libsimdjson-dev libre2-dev chromium libpng-dev
  # the emulated arm64 machine (tests/arm64): cross compiler, qemu, initramfs tools
  g++-aarch64-linux-gnu qemu-system-arm cpio binutils xz-utils
)

perfcounters_install_deps() {
  [[ ${PERFCOUNTERS_NO_APT:-0} == 1 ]] && return 0
  local missing=() p
  for p in "${perfcounters_host_packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  echo "deps: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
