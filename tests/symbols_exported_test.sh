#!/usr/bin/env bash
# symbols_exported_test.sh: what a shared libperfcounters exports is the
# API of the exporting headers, nothing that only perfcounters/src declares.
#
#   symbols_exported_test.sh ARCHIVE HEADER_DIR...
#
# Lists ARCHIVE's defined global symbols of default visibility (the ones a
# shared build exports; template instantiations and inline functions, weak,
# aside), demangled. Each must be perfcounters' own, and the name it
# belongs to (the first one after `perfcounters::` and `internal::`: the
# class of a member, or the function) must be declared in a header under
# HEADER_DIR (outside comments). Prints every offender and exits 1; prints
# the count checked and exits 0 when none. Needs readelf and c++filt
# (binutils).
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 ARCHIVE HEADER_DIR..." >&2
  exit 2
fi
archive=$1
shift
[[ -f $archive ]] || { echo "no archive at $archive" >&2; exit 2; }

# The words of the exporting headers, comments left out.
words=$(mktemp)
trap 'rm -f "$words"' EXIT
find "$@" -name '*.h' -print0 | xargs -0 sed -e 's|//.*||' |
  grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u >"$words"

readelf -sW "$archive" |
  awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" && NF >= 8 {print $8}' |
  sort -u | c++filt |
  awk -v words="$words" '
    BEGIN { while ((getline w < words) > 0) declared[w] = 1 }
    NF == 0 { next }
    {
      checked++
      sym = $0
      # The vtable, typeinfo and thunks of a class (GLOBAL in clang objects,
      # WEAK in GCC ones) belong to the class.
      sub(/^(vtable|VTT|typeinfo|typeinfo name|construction vtable|guard variable) for /, "", sym)
      sub(/^(non-virtual thunk to|virtual thunk to|covariant return thunk to) /, "", sym)
      if (substr(sym, 1, 14) != "perfcounters::") {
        print "not perfcounters\047 own: " $0; bad++; next
      }
      rest = substr(sym, 15)
      sub(/^internal::/, "", rest)
      name = rest
      sub(/[^A-Za-z0-9_].*/, "", name)
      if (name == "operator") {
        # A free operator: named by the first perfcounters type it takes.
        args = substr(rest, index(rest, "("))
        name = ""
        if (match(args, /perfcounters::(internal::)?[A-Za-z_][A-Za-z0-9_]*/)) {
          name = substr(args, RSTART, RLENGTH)
          sub(/.*::/, "", name)
        }
      }
      if (name == "" || !(name in declared)) {
        print "exported, but no exporting header declares \047" name "\047: " $0
        bad++
      }
    }
    END {
      if (checked == 0) {
        print "no exported symbols found: is it the library?" > "/dev/stderr"
        exit 1
      }
      if (bad > 0) {
        printf "%d of %d exported symbols are internal: declare them in " \
          "perfcounters/src/ only (hidden), or in a header between " \
          "PERFCOUNTERS_EXPORT_BEGIN and PERFCOUNTERS_EXPORT_END\n", bad, checked > "/dev/stderr"
        exit 1
      }
      printf "%d exported symbols, each declared by an exporting header\n", checked
    }'
