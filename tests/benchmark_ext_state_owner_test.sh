#!/usr/bin/env bash
# benchmark_ext_state_owner_test.sh: benchmark_ext's mutable process state
# has one owner, the Registry (benchmark_ext/src/registry.h and
# process_state.h).
#
#   benchmark_ext_state_owner_test.sh ARCHIVE
#
# Lists the writable data objects that ARCHIVE (libperfcounters_benchmark_ext.a)
# defines itself (.bss, .data, .data.rel, .tbss, .tdata: namespace-scope variables,
# function statics and thread_locals; the compiler's own and the inline
# functions' and static objects of other libraries' headers aside) and fails on each one that is not
# process_state.h's listed exceptions. A new global or function static in
# benchmark_ext/src fails here: move it into the Registry's ProcessState, or
# list it (with why) in process_state.h and below. Needs objdump and
# c++filt (binutils).
set -euo pipefail
if (($# != 1)); then
  echo "usage: $0 ARCHIVE" >&2
  exit 2
fi
archive=$1
[[ -f $archive ]] || { echo "no archive at $archive" >&2; exit 2; }

# process_state.h's exceptions, as the ends of their demangled names.
allowed=(
  '::t_active'            # measure_loop.cc: per thread
  '::t_counters'          # thread_setup.cc: per thread
  '::t_profiler'          # sampling_run.cc: per thread
  '::t_in_region'         # sampling_run.cc: per thread
  'SimDumpText()::dumps'  # simulate_measure.cc: per thread
  '::g_wake'              # out_file.cc: a signal handler's
  '::g_child'             # simulate_run.cc: a signal handler's
  '::calibration_body'    # extra_run_counting.cc: inside a calibrated bracket
  'Registry::Get()::registry'        # the owner itself
  'GbenchArgs(int, char**, bool)::kDevNull'  # constant text
  '::kStats'              # rows.cc: a constant set
)

objects=$(objdump -t "$archive" |
  awk '$2 == "l" || $2 == "g" {
         for (i = 3; i <= NF; ++i) if ($i ~ /^\.(bss|data|tbss|tdata|data\.rel|data\.rel\.local)$/) {
           print $NF; break
         }
       }' | c++filt | sed -e 's/\[abi:[^]]*\]//g' | sort -u)

checked=0
bad=0
while IFS= read -r name; do
  [[ -n $name ]] || continue
  case $name in
    # The compiler's (guards, TLS guard, ARM mapping symbols, sections) and
    # the statics of other libraries' headers (gbench's, the standard's).
    "guard variable for "* | __* | '$'* | .* | std::* | benchmark::* | \
      absl::*) continue ;;
  esac
  checked=$((checked + 1))
  ok=0
  for a in "${allowed[@]}"; do
    if [[ $name == *"$a" ]]; then ok=1; break; fi
  done
  if ((ok == 0)); then
    echo "mutable state outside the Registry: $name" >&2
    bad=$((bad + 1))
  fi
done <<<"$objects"

if ((bad > 0)); then
  echo "$bad object(s) of mutable process state outside the one owner:" \
       "move them into ProcessState (process_state.h) or list them there" \
       "with why" >&2
  exit 1
fi
if ((checked == 0)); then
  echo "no writable data objects found in $archive: the check saw nothing" >&2
  exit 1
fi
echo "$checked writable data objects, each a listed exception"
