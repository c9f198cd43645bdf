# common.sh: shared by the scripts in tests/arm64/ (sourced, not run).
#
# It owns the cache (${PERFCOUNTERS_CACHE:-$HOME/.cache/perfcounters}/arm64):
#   apt/      a private apt root for arm64 (own lists, own empty dpkg status),
#             so the host's dpkg architectures and apt lists stay untouched
#   debs/     downloaded .deb files (the kernel's is deleted after use)
#   boot/     Image (the arm64 kernel), busybox, versions
#   sysroot/  arm64 -dev packages unpacked for the cross build
#   lock      flock(1) lock: one fetch at a time per cache
# Every fallible step ends with a message naming what failed and exit 125.

pc_prog=${0##*/}
pc_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pc_cache=${PERFCOUNTERS_CACHE:-${HOME:-/root}/.cache/perfcounters}/arm64
pc_verbose=${pc_verbose:-0}

# The arm64 packages the cross build needs are derived from the host's list
# in scripts/deps.sh: its -dev packages (every find_package() of the project
# has one there) plus everything they depend on that the cross toolchain does
# not already provide (pc_sysroot_closure).
pc_sysroot_roots() {
  local deps=$pc_here/../../scripts/deps.sh p
  [[ -r $deps ]] || pc_die "cannot read $deps (the project's package list)"
  (
    # shellcheck source=../../scripts/deps.sh
    source "$deps"
    for p in "${perfcounters_main_packages[@]}" "${perfcounters_test_packages[@]}"; do
      if [[ $p == *-dev && $p != *-linux-gnu* ]]; then echo "$p"; fi
    done
  )
}

pc_die() {
  echo "$pc_prog: error: $*" >&2
  exit 125
}
pc_log() { if [[ $pc_verbose == 1 ]]; then echo "$pc_prog: $*" >&2; fi; }

# pc_host_tools CMD=PACKAGE...: installs (apt-get, root or sudo) the Debian
# packages of the commands that are missing.
pc_host_tools() {
  local pair missing=()
  for pair in "$@"; do
    command -v "${pair%%=*}" >/dev/null 2>&1 || missing+=("${pair#*=}")
  done
  ((${#missing[@]})) || return 0
  command -v apt-get >/dev/null 2>&1 ||
    pc_die "missing host packages ${missing[*]} and no apt-get to install them (Debian 12 expected)"
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || pc_die "missing host packages ${missing[*]}: install them as root"
    sudo=(sudo)
  fi
  echo "$pc_prog: installing host packages: ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
  local log
  log=$("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" 2>&1) ||
    { echo "$log" >&2; pc_die "apt-get install ${missing[*]} failed"; }
}

# Runs apt-get/apt-cache against the private arm64 apt root.
pc_apt() {
  local tool=$1
  shift
  local root=$pc_cache/apt
  mkdir -p "$root/lists/partial" "$root/cache/archives/partial"
  [[ -e $root/status ]] || : >"$root/status"
  "$tool" -o "Dir::State::Lists=$root/lists" -o "Dir::Cache=$root/cache" \
    -o "Dir::State::status=$root/status" -o APT::Architecture=arm64 \
    -o APT::Architectures::=arm64 -o Acquire::Languages=none \
    -o APT::Sandbox::User=root "$@"
}

# Fetches the arm64 package lists once per cache (or again with
# PERFCOUNTERS_ARM64_REFRESH=1).
pc_apt_lists() {
  local stamp=$pc_cache/apt/updated
  if [[ -e $stamp && ${PERFCOUNTERS_ARM64_REFRESH:-0} != 1 ]]; then return 0; fi
  pc_log "fetching the arm64 package lists"
  local log
  # A broken third-party source must not stop us: what counts is whether
  # the Debian packages resolve afterwards, which pc_fetch_debs checks.
  log=$(pc_apt apt-get -q update 2>&1) || echo "$log" | grep -E '^(E|W):' >&2 || true
  grep -q 'binary-arm64_Packages' <(ls "$pc_cache/apt/lists") ||
    { echo "$log" >&2; pc_die "apt-get update found no arm64 package list (is deb.debian.org reachable?)"; }
  : >"$stamp"
}

# pc_fetch_debs PKG...: downloads each package's arm64 (or all) .deb into
# debs/ unless a version is already there; prints one path per package.
pc_fetch_debs() {
  local pkg deb want=()
  mkdir -p "$pc_cache/debs"
  for pkg in "$@"; do
    compgen -G "$pc_cache/debs/${pkg}_*.deb" >/dev/null || want+=("$pkg")
  done
  if ((${#want[@]})); then
    pc_apt_lists
    pc_log "downloading ${want[*]}"
    # One apt-get for all; when that fails, one at a time to name the culprit.
    if ! (cd "$pc_cache/debs" && pc_apt apt-get -q download "${want[@]}" >/dev/null 2>&1); then
      for pkg in "${want[@]}"; do
        local log
        log=$(cd "$pc_cache/debs" && pc_apt apt-get -q download "$pkg" 2>&1) ||
          { echo "$log" >&2; pc_die "cannot download the arm64 package '$pkg' from the Debian archive"; }
      done
    fi
  fi
  for pkg in "$@"; do
    deb=$(compgen -G "$pc_cache/debs/${pkg}_*.deb" | sort -V | tail -n1)
    [[ -n $deb ]] || pc_die "download of '$pkg' left no .deb in $pc_cache/debs"
    echo "$deb"
  done
}

# Runs "$@" holding the cache lock (parallel test runs share the cache).
pc_locked() {
  mkdir -p "$pc_cache"
  (
    flock 9 || pc_die "cannot lock $pc_cache/lock"
    "$@"
  ) 9>"$pc_cache/lock"
}

# Installs what running the machine needs on the host.
pc_vm_host_tools() {
  pc_host_tools qemu-system-aarch64=qemu-system-arm cpio=cpio readelf=binutils \
    gzip=gzip base64=coreutils flock=util-linux dpkg-deb=dpkg
}

pc_boot_ready() { [[ -s $pc_cache/boot/Image && -x $pc_cache/boot/busybox ]]; }

# Fetches Debian's current cloud-arm64 kernel and busybox-static.
pc_fetch_boot() {
  pc_boot_ready && return 0
  local boot=$pc_cache/boot tmp deb kpkg
  mkdir -p "$boot"
  tmp=$(mktemp -d "$pc_cache/.boot.XXXXXX")
  if [[ ! -s $boot/Image ]]; then
    pc_apt_lists
    kpkg=$(pc_apt apt-cache show --no-all-versions linux-image-cloud-arm64 2>/dev/null |
      sed -n 's/^Depends:.*\(linux-image-[0-9][^ ,]*-cloud-arm64\).*/\1/p' | sed -n 1p)
    [[ -n $kpkg ]] || pc_die "cannot resolve linux-image-cloud-arm64 to a kernel package"
    deb=$(pc_fetch_debs "$kpkg") || exit 125
    # The kernel is the first file of the archive; stop reading there.
    dpkg-deb --fsys-tarfile "$deb" 2>/dev/null | tar -x -C "$tmp" --wildcards --occurrence=1 './boot/vmlinuz-*' 2>/dev/null || true
    compgen -G "$tmp/boot/vmlinuz-*" >/dev/null || pc_die "no /boot/vmlinuz-* in $deb"
    mv "$tmp"/boot/vmlinuz-* "$boot/Image"
    echo "kernel $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)" >>"$boot/versions"
    rm -f "$deb"
  fi
  if [[ ! -x $boot/busybox ]]; then
    deb=$(pc_fetch_debs busybox-static) || exit 125
    dpkg-deb -x "$deb" "$tmp/bb"
    [[ -x $tmp/bb/bin/busybox ]] || pc_die "no /bin/busybox in $deb"
    mv "$tmp/bb/bin/busybox" "$boot/busybox"
    echo "busybox $(dpkg-deb -f "$deb" Version)" >>"$boot/versions"
  fi
  rm -rf "$tmp"
}

pc_sysroot() { echo "$pc_cache/sysroot"; }

# The arm64 closure of "$@" under Depends, minus the packages the cross
# toolchain itself brings (libc6-arm64-cross, libstdc++6-arm64-cross, ...:
# the installed *-arm64-cross packages, named without the suffix). Not minus
# what those depend on in the archive: libc6-dev's closure there reaches
# libssl3 and libgssapi-krb5-2 (through libtirpc), which the toolchain does
# not have and libpq5 needs at link and run time.
pc_sysroot_closure() {
  local flags=(--recurse --no-recommends --no-suggests --no-conflicts --no-breaks
    --no-replaces --no-enhances)
  comm -23 \
    <(pc_apt apt-cache depends "${flags[@]}" "$@" 2>/dev/null | grep -v '^[ <]' | sort -u) \
    <(dpkg-query -W -f='${Package}\n' '*-arm64-cross' 2>/dev/null |
      sed 's/-arm64-cross$//' | sort -u)
}

# The same set of root packages, in any order.
pc_sysroot_ready() {
  local stamp=$pc_cache/sysroot/.roots.v2
  [[ -e $stamp && $(sort "$stamp") == "$(pc_sysroot_roots | sort)" ]]
}

# Unpacks the arm64 packages into the sysroot.
pc_fetch_sysroot() {
  pc_sysroot_ready && return 0
  local root=$pc_cache/sysroot deb list roots
  local -a debs pkgs
  roots=$(pc_sysroot_roots) || exit 125
  pc_apt_lists
  mapfile -t pkgs < <(pc_sysroot_closure $roots)
  ((${#pkgs[@]})) || pc_die "cannot resolve the arm64 packages for: $(echo $roots)"
  pc_log "sysroot packages: ${pkgs[*]}"
  list=$(pc_fetch_debs "${pkgs[@]}") || exit 125
  mapfile -t debs <<<"$list"
  rm -rf "$root"
  mkdir -p "$root"
  for deb in "${debs[@]}"; do
    pc_log "unpacking ${deb##*/}"
    dpkg-deb -x "$deb" "$root" || pc_die "cannot unpack $deb"
  done
  # Absolute links (libz.so -> /lib/...) would leave the sysroot: re-aim them.
  local link
  while IFS= read -r -d '' link; do
    ln -sfnr "$root$(readlink "$link")" "$link"
  done < <(find "$root" -type l -lname '/*' -print0)
  echo "${pkgs[*]}" >"$root/.packages"
  echo "$roots" >"$root/.roots.v2"
}
