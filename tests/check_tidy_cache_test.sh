#!/usr/bin/env bash
# check_tidy_cache_test.sh: scripts/check-tidy's result cache passes a file
# only when an identical check passed, never a changed one.
#
#   check_tidy_cache_test.sh SOURCE_DIR
#
# Copies check-tidy, deps.sh and .clang-tidy into a scratch repository with
# one file, tests/probe.cc, including tests/probe.h, and a compilation
# database for it, then checks that: a clean file passes and, rerun, passes
# from the cache; a finding in the header fails, and fails again (failures
# are not cached); a NOLINT'ed finding passes and the same code without the
# NOLINT comment fails; the clean file passes from the cache again; when
# preprocessing fails the file is checked (a finding fails) and no pass is
# stored. Exits 77 (skipped) without clang-tidy-14 or clang++-14.
set -euo pipefail
if (($# != 1)); then
  echo "usage: $0 SOURCE_DIR" >&2
  exit 2
fi
src=$1
for tool in clang-tidy-14 clang++-14 git python3; do
  command -v "$tool" >/dev/null || { echo "skipped: no $tool" >&2; exit 77; }
done
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
mkdir -p "$repo/scripts" "$repo/tests" "$repo/build" "$repo/bin"
cp "$src/scripts/check-tidy" "$src/scripts/deps.sh" "$repo/scripts/"
cp "$src/.clang-tidy" "$repo/"
git -C "$repo" init -q
cat >"$repo/tests/probe.cc" <<'EOF'
#include "probe.h"

int main() { return probe::Value() == nullptr ? 0 : 1; }
EOF
cat >"$repo/build/compile_commands.json" <<EOF
[{"directory": "$repo/build", "file": "$repo/tests/probe.cc",
  "command": "/usr/bin/c++ -std=c++20 -o probe.o -c $repo/tests/probe.cc"}]
EOF
header() { # BODY: tests/probe.h returning BODY
  printf '#pragma once\nnamespace probe {\ninline int* Value() {\n  %s\n}\n}  // namespace probe\n' \
    "$1" >"$repo/tests/probe.h"
}
failures=0
# expect pass|fail CACHED_COUNT WHAT: runs check-tidy on tests/probe.cc.
expect() {
  local want=$1 cached=$2 what=$3 rc=0 ok=1 out
  out=$(PERFCOUNTERS_NO_APT=1 PERFCOUNTERS_TIDY_BUILD="$repo/build" PERFCOUNTERS_TIDY_JOBS=1 \
    "$repo/scripts/check-tidy" tests/probe.cc 2>&1) || rc=$?
  if [[ $want == pass ]]; then ((rc == 0)) || ok=0; else ((rc != 0)) || ok=0; fi
  grep -q "1 C++ files checked, $cached of them passed before" <<<"$out" || ok=0
  if ((!ok)); then
    echo "FAIL: $what: wanted $want with $cached from the cache, got exit $rc:" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
markers() { find "$repo/build/tidy-cache" -type f | wc -l; }

header 'return nullptr;'
expect pass 0 "a clean file is checked"
expect pass 1 "rerun, it passes from the cache"
header 'return 0;'
expect fail 0 "a finding in the header it includes fails"
expect fail 0 "and fails again: failures are not cached"
header 'return 0;  // NOLINT(modernize-use-nullptr): the probe finding'
expect pass 0 "the finding with NOLINT passes"
header 'return 0;  // the same code, no suppression'
expect fail 0 "the same code with another comment there fails"
header 'return nullptr;'
expect pass 1 "the clean file passes from the cache again"
before=$(markers)
printf '#!/bin/sh\nexit 1\n' >"$repo/bin/clang++-14"
chmod +x "$repo/bin/clang++-14"
PATH=$repo/bin:$PATH expect pass 0 "preprocessing fails: the clean file is checked"
header 'return 0;'
PATH=$repo/bin:$PATH expect fail 0 "preprocessing fails: a finding fails"
if (($(markers) != before)); then
  echo "FAIL: a pass was stored without a key (markers $before -> $(markers))" >&2
  failures=$((failures + 1))
fi
((failures == 0)) || { echo "$failures checks failed" >&2; exit 1; }
echo "all checks passed"
