#!/usr/bin/env bash
# bench/ab_experiment.sh: `perfcounters ab` against sequential `compare` on
# two builds of one benchmark, one with a 3 % slower body (tests/e2e's
# ab_bench, built as perfcounters_ab_bench and as
# perfcounters_ab_bench_slower, whose PERFCOUNTERS_AB_BENCH_SLOWER_PCT=3
# takes 3 % more steps of a dependency chain), while a busy loop holds the
# other CPU (BUSY=0: none, where the machine is busy already). Prints, per
# run, ab's cpu_time interval of new/base and sequential compare's change,
# then the counts the docs (docs/ab.md) report:
#   - slower pair: ab's interval excludes 1.0 / contains the true ratio;
#   - identical pair: ab's interval contains 1.0;
#   - sequential: the change and whether compare called it significant.
# The true ratio is measured by the benchmark's own CPU clock, with the
# statistic the interval estimates (the median of the paired ratios of
# cpu_time, new/base) on much more data than one run has: two reference ab
# runs of REF_ROUNDS rounds each (default 100), one before the 10 runs and
# one after, pooled (their rounds' paired ratios together). Also printed,
# for comparison: the ratio of the lowest cpu_time over every round (an
# extreme-value statistic with noise of its own) and the constructed 1.03.
# Usage: bench/ab_experiment.sh [BUILD_DIR] [RUNS]   (default build-quick 10)
# ROUNDS=N: ab's --max-rounds (default 30).
set -euo pipefail
build=${1:-build-quick}
runs=${2:-10}
tool=$build/tools/perfcounters
bench=$build/tests/perfcounters_ab_bench
slower=$build/tests/perfcounters_ab_bench_slower
[[ -x $tool && -x $bench && -x $slower ]] || {
  echo "ab_experiment: build perfcounters_tool, perfcounters_ab_bench and perfcounters_ab_bench_slower in $build first" >&2
  exit 2
}
work=$(mktemp -d)
busy=""
cleanup() {
  [[ -n $busy ]] && kill "$busy" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# Copies of the binaries: a rebuild during the experiment cannot touch them.
# base and same: one build, twice; slow: the other build.
cp "$bench" "$work/base"
cp "$bench" "$work/same"
cp "$slower" "$work/slow"
cp "$tool" "$work/perfcounters"
tool=$work/perfcounters
ncpu=$(nproc)
cpu=0
if ((ncpu > 1)) && [[ ${BUSY:-1} != 0 ]]; then
  taskset -c 1 sh -c 'while :; do :; done' &
  busy=$!
fi
flags=(-- --benchmark_filter='^BM_Chain/20000$' --benchmark_min_time=0.05)
# A reference: every round paired, no early stop.
reference() {
  taskset -c $cpu "$tool" ab "$work/base" "$work/slow" --format json -q \
    --min-rounds ${REF_ROUNDS:-100} --max-rounds ${REF_ROUNDS:-100} --precision 0.0001 \
    --base-out "$work/ref-b-$1.json" --new-out "$work/ref-n-$1.json" "${flags[@]}" > /dev/null
}
reference 1
for i in $(seq "$runs"); do
  taskset -c $cpu "$tool" ab "$work/base" "$work/slow" --format json -q \
    --max-rounds ${ROUNDS:-30} --base-out "$work/ab-b-$i.json" --new-out "$work/ab-n-$i.json" \
    "${flags[@]}" > "$work/slow-$i.json"
  taskset -c $cpu "$tool" ab "$work/base" "$work/same" --format json -q \
    --max-rounds ${ROUNDS:-30} "${flags[@]}" > "$work/same-$i.json"
  # Sequential: all of base's repetitions, then all of new's.
  taskset -c $cpu "$work/base" --benchmark_filter='^BM_Chain/20000$' \
    --benchmark_min_time=0.05 --benchmark_repetitions=10 \
    --benchmark_out="$work/seq-b-$i.json" --benchmark_out_format=json > /dev/null
  taskset -c $cpu "$work/slow" --benchmark_filter='^BM_Chain/20000$' \
    --benchmark_min_time=0.05 --benchmark_repetitions=10 \
    --benchmark_out="$work/seq-n-$i.json" --benchmark_out_format=json > /dev/null
  "$tool" compare "$work/seq-b-$i.json" "$work/seq-n-$i.json" --format json \
    > "$work/seq-$i.json" 2> /dev/null || true
done
reference 2
python3 - "$work" "$runs" <<'PY'
import json, math, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
def rows(path):
    return [r for r in json.load(open(path))["benchmarks"] if r.get("run_type") == "iteration"]
# The reference: the median paired ratio over both reference runs' rounds,
# and the spread of that median (the 2.5 and 97.5 % points of the median
# over 2000 bootstrap resamples of the rounds).
ref = []
for k in (1, 2):
    b = {r["repetition_index"]: r["cpu_time"] for r in rows(f"{work}/ref-b-{k}.json")}
    n = {r["repetition_index"]: r["cpu_time"] for r in rows(f"{work}/ref-n-{k}.json")}
    ref += [math.log(n[i] / b[i]) for i in b if i in n]
reference = math.exp(statistics.median(ref))
import random
rng = random.Random(1)
boot = sorted(statistics.median(rng.choices(ref, k=len(ref))) for _ in range(2000))
print(f"reference ratio (median paired cpu_time, {len(ref)} rounds): {reference:.4f} "
      f"[{math.exp(boot[50]):.4f}, {math.exp(boot[1949]):.4f}]")
def metric(path, name):
    for m in json.load(open(path))["benchmarks"][0]["metrics"]:
        if m["metric"] == name:
            return m
lows_b, lows_n = [], []
for i in range(1, runs + 1):
    for side, out in (("b", lows_b), ("n", lows_n)):
        for path in (f"{work}/ab-{side}-{i}.json", f"{work}/seq-{side}-{i}.json"):
            for row in json.load(open(path))["benchmarks"]:
                if row.get("run_type") == "iteration":
                    out.append(row["cpu_time"] * (1e3 if row["time_unit"] == "us" else 1))
lowest = min(lows_n) / min(lows_b)
print(f"lowest cpu_time, new/base: {lowest:.4f}")
truth = reference
print("run  ab slower: ratio [interval] width rounds | ab same: [interval] | sequential: change p")
excl = cont = cont_low = cont_103 = same1 = seq_sig = 0
widths, same_widths, seq_changes = [], [], []
for i in range(1, runs + 1):
    s = metric(f"{work}/slow-{i}.json", "cpu_time")
    d = metric(f"{work}/same-{i}.json", "cpu_time")
    q = metric(f"{work}/seq-{i}.json", "cpu_time")
    rounds = json.load(open(f"{work}/slow-{i}.json"))["rounds"]
    excl += s["low"] > 1 or s["high"] < 1
    cont += s["low"] <= truth <= s["high"]
    cont_low += s["low"] <= lowest <= s["high"]
    cont_103 += s["low"] <= 1.03 <= s["high"]
    same1 += d["low"] <= 1 <= d["high"]
    widths.append((s["high"] - s["low"]) * 100)
    same_widths.append((d["high"] - d["low"]) * 100)
    seq_changes.append(q["change_pct"])
    seq_sig += bool(q["significant"])
    print(f"{i:3}  {s['ratio']:.4f} [{s['low']:.4f}, {s['high']:.4f}] {widths[-1]:.2f}% {rounds:2} | "
          f"[{d['low']:.4f}, {d['high']:.4f}] | {q['change_pct']:+.2f}% p={q['p_value']:.3f}")
print(f"slower pair: interval excludes 1.0 in {excl}/{runs}, contains the reference ratio in {cont}/{runs} "
      f"(the lowest-cpu_time ratio in {cont_low}/{runs}, 1.03 in {cont_103}/{runs}); "
      f"median width {sorted(widths)[runs // 2]:.2f}%")
print(f"identical pair: interval contains 1.0 in {same1}/{runs}; median width {sorted(same_widths)[runs // 2]:.2f}%")
print(f"sequential compare (10 repetitions each): change {min(seq_changes):+.2f}% to {max(seq_changes):+.2f}%, "
      f"significant in {seq_sig}/{runs}")
PY
