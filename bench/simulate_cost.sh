#!/usr/bin/env bash
# bench/simulate_cost.sh: what the simulated counting source
# (--perf_counters_source=simulate, docs/simulate.md) costs on examples/,
# against the same binaries run natively. Per example (shapes: memory
# streams and a 16 MiB pointer chase in cache_bench, short branch loops in
# branch_bench, page faults in pages_bench, Threads(N) in threads_bench,
# the README's one loop in readme_bench): its benchmarks, native and
# simulated user+system CPU seconds (the lower of RUNS runs each: CPU
# time, not wall time, because the machine may be shared) and wall
# seconds, the simulated run's start-up alone (valgrind and the
# calibration: a filter that matches nothing) and the rest per benchmark.
# Then the cost of one more batch dump: 21 repetitions of a tiny
# benchmark against 1.
# Native runs count nothing (--benchmark_min_time=0 as the simulator
# passes with gbench 1.7, so both run the same iterations).
# Usage: bench/simulate_cost.sh [BUILD_DIR] [RUNS]   (default build-quick 2)
set -euo pipefail
build=${1:-build-quick}
runs=${2:-2}
examples=(cache_bench branch_bench pages_bench threads_bench readme_bench)
events=instructions,L1-dcache-load-misses,branch-misses
command -v valgrind >/dev/null || {
  echo "simulate_cost: valgrind is not installed (Debian's package valgrind)" >&2
  exit 2
}
for e in "${examples[@]}"; do
  [[ -x $build/examples/$e ]] || {
    echo "simulate_cost: build ${examples[*]} in $build first" >&2
    exit 2
  }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# "cpu wall" of the fastest (by CPU) of $runs runs of the command.
measure() {
  local best_cpu="" best_wall="" i out
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%U %S %e' -o "$scratch/time" "$@" \
      >"$scratch/out" 2>"$scratch/err" || {
      echo "simulate_cost: failed: $*" >&2
      cat "$scratch/err" >&2
      exit 1
    }
    out=$(awk '{printf "%.2f %.2f", $1 + $2, $3}' "$scratch/time")
    if [[ -z $best_cpu ]] || awk -v a="${out% *}" -v b="$best_cpu" \
      'BEGIN { exit !(a < b) }'; then
      best_cpu=${out% *}
      best_wall=${out#* }
    fi
  done
  echo "$best_cpu $best_wall"
}

printf '%-14s %5s %9s %9s %9s %9s %9s %11s\n' example bench native_cpu \
  native_wall sim_cpu sim_wall startup per_bench
for e in "${examples[@]}"; do
  bin=$build/examples/$e
  n=$("$bin" --benchmark_list_tests 2>/dev/null | grep -c .)
  read -r ncpu nwall < <(measure "$bin" --benchmark_min_time=0)
  read -r scpu swall < <(measure "$bin" --perf_counters=$events \
    --perf_counters_source=simulate)
  read -r s0 _ < <(measure "$bin" --perf_counters=$events \
    --perf_counters_source=simulate --benchmark_filter='^$')
  per=$(awk -v s="$scpu" -v z="$s0" -v n="$n" 'BEGIN { printf "%.2f", (s - z) / n }')
  printf '%-14s %5d %9s %9s %9s %9s %9s %11s\n' "$e" "$n" "$ncpu" "$nwall" \
    "$scpu" "$swall" "$s0" "$per"
done
echo "(seconds; cpu = user + system; startup = the simulated run with no"
echo " benchmark; per_bench = (sim_cpu - startup) / bench)"

# One batch dump and its read-back, gbench's own work per repetition
# included: 20 more repetitions of a benchmark of about 3000 simulated
# instructions.
bin=$build/examples/threads_bench
one=(--perf_counters=$events --perf_counters_source=simulate
  --benchmark_filter='BM_SharedLine/threads:1$')
read -r r1 _ < <(measure "$bin" "${one[@]}")
read -r r21 _ < <(measure "$bin" "${one[@]}" --benchmark_repetitions=21)
awk -v a="$r1" -v b="$r21" 'BEGIN {
  printf "one more simulated batch (dump, read-back, gbench'"'"'s repetition): %.0f ms CPU\n", (b - a) / 20 * 1000 }'
