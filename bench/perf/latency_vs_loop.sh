#!/usr/bin/env bash
# latency_vs_loop.sh [BUILD_DIR] [PAIRS] - does parbench add anything to
# what it times?  Its latency mode against the plainest MPI loop
# (bench/perf/ref_allreduce.c: MPI_Init single-threaded, barrier, two clock
# reads around one MPI_Allreduce, as OSU does), 2 ranks, the same sizes,
# iterations and per-sample value (the slowest rank's time).
#
# This machine flips between speed states from one launch to the next, so
# one run against another taken minutes apart means nothing.  The two
# sides run as alternating pairs (loop, parbench; parbench, loop; ...),
# each pair gives a ratio parbench / loop, and the median over PAIRS pairs
# (default 31) is printed per size (SIZES="8 1024" picks sizes).  Target:
# every ratio <= 1.02.  How many pairs: a launch lands in one of the
# machine's speed states, so single ratios spread from 0.4 to 3, and at
# 8 B and 1 KiB 101 pairs or more (SIZES="8 1024", a few minutes) are
# needed to decide a 1 % question; ci95 says how well a run decided it.
#
# Each side's value in a run is the interquartile mean of its samples
# (the mean of the middle half), taken from parbench's --samples file and
# from the loop's own output alike.  The median, which parbench reports,
# sits on the clock's grid: this VM's clock moves in ~10 ns steps, 4 % of
# an 8 B all-reduce, so a median ratio can only read 0.96, 1.00 or 1.04
# there.  The interquartile mean is as robust and resolves less than a
# tick; the median ratio is printed beside it.
#
# Columns: ratio = the median over pairs of parbench / loop; ci95 = its
# distribution-free 95 % confidence interval (order statistics of the
# per-pair ratios, so no assumption on their spread, which is wide and
# two-humped here); min..max = the widest pair ratios; median_ratio = the
# same median from each run's median sample; q25_ratio = the lower
# quartile of parbench's per-run values over the loop's (the two sides in
# the machine's fast state).
#
# Runs taken hours apart differ by more than ci95 says: on this VM the
# same code read an 8 B ratio of 1.050 in one session and 0.956 in the
# next (301 pairs each, both intervals about +-0.015), so the verdict of
# one run is the verdict of one period.  RAW=FILE appends every
# pair's values to FILE ("size loop_median loop_iqm parbench_median
# parbench_iqm", us); FROM="FILE..." measures nothing and prints the
# table of the pairs those files hold, so runs from several periods pool
# into one verdict.
set -euo pipefail
build=${1:-build}
pairs=${2:-31}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Order statistics of a sorted awk array a[1..n], for both awk programs
# below: the median, the lower quartile (nearest rank) and the
# interquartile mean (the mean of the middle half).
stats_awk=$(cat "$(dirname "$0")/median_ci.awk")'
    function sortv(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]
        for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
    function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    function q25(a, n,   i) { i = int((n + 3) / 4); return a[i < 1 ? 1 : i] }
    function iqm(a, n,   lo, hi, i, s) { lo = int(n / 4); hi = n - lo
        for (i = lo + 1; i <= hi; i++) s += a[i]; return s / (hi - lo) }'

# The table of pair records ("size lmed liqm pmed piqm" per line), sizes in
# the order they first appear.  ci95 takes the k-th smallest and k-th
# largest ratio, k = ci_rank(n) (median_ci.awk: util/pb_stats.c's rule;
# the extremes below 6 pairs, where no 95 % interval exists).
table() {
  awk "$stats_awk"'
    NF == 5 && $1 ~ /^[0-9]+$/ {
      s = $1; if (!(s in n)) order[++ns] = s
      k = ++n[s]; lm[s, k] = $2; li[s, k] = $3; pm[s, k] = $4; pi[s, k] = $5 }
    END {
      printf "%10s %12s %12s %8s %16s %16s %13s %10s\n", "size", "loop_us", "parbench_us",
             "ratio", "ci95", "min..max", "median_ratio", "q25_ratio"
      for (o = 1; o <= ns; o++) {
        s = order[o]; m = n[s]; delete r; delete rm; delete l; delete p
        for (i = 1; i <= m; i++) { r[i] = pi[s, i] / li[s, i]; rm[i] = pm[s, i] / lm[s, i]
                                   l[i] = li[s, i]; p[i] = pi[s, i] }
        sortv(r, m); sortv(rm, m); sortv(l, m); sortv(p, m)
        k = ci_rank(m)
        printf "%10d %12.3f %12.3f %8.3f %7.3f..%-7.3f %7.3f..%-7.3f %13.3f %10.3f\n", s,
               med(l, m), med(p, m), med(r, m), r[k], r[m + 1 - k], r[1], r[m],
               med(rm, m), q25(p, m) / q25(l, m) }
    }' "$@"
}

if [ -n "${FROM:-}" ]; then
  # shellcheck disable=SC2086  # FROM is a list of files
  table $FROM
  exit 0
fi

# SAME_LIBS=1: the loop runs with every shared library parbench links and
# it does not preloaded (LD_PRELOAD), so that both processes map the same
# code and data and differ in what they run only.  Why: at 16 MiB the
# plain loop was slower than parbench, while parbench linked cuBLAS, by
# what that library's ~100 MB written before main changes in Open MPI's
# single-copy path (doc/benchmarks.md, issue 35; gemm opens it now).
# TOUCH_MB=N: the loop writes N MiB before MPI_Init (pb_ref_allreduce's
# PB_REF_TOUCH_MB), what loading such a library does to its memory,
# without the library.
preload=()
[ -n "${TOUCH_MB:-}" ] && preload=(-x "PB_REF_TOUCH_MB=$TOUCH_MB")
if [ "${SAME_LIBS:-0}" = 1 ]; then
  libs() { ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u; }
  extra=$(comm -23 <(libs "$build/parbench") <(libs "$build/pb_ref_allreduce") | paste -sd: -)
  [ -n "$extra" ] && preload+=(-x "LD_PRELOAD=$extra")
fi

# "median iqm" in us
loop() { mpirun "${root[@]}" "${preload[@]}" -np 2 "$build/pb_ref_allreduce" "$1" "$2" 20 | awk '{ print $2, $3 }'; }
# the same two statistics of parbench's samples: per sample, the slowest
# rank's time (the row marked slowest)
pb() {
  rm -f "$tmp/s.csv"
  mpirun "${root[@]}" -np 2 "$build/parbench" coll --op allreduce --sizes "$1" --place out \
    -n "$2" -w 20 --quiet --samples "$tmp/s.csv" >/dev/null
  awk -F, 'NR > 1 && $NF == 1 { print $(NF - 1) }' "$tmp/s.csv" | sort -g |
    awk "$stats_awk"'{ v[NR] = $1 } END { printf "%.3f %.4f\n", med(v, NR), iqm(v, NR) }'
}

# each pair goes to this run's table, and to RAW as it is taken
keep=("$tmp/run")
[ -n "${RAW:-}" ] && keep+=("$RAW")
printf '# %d alternating pairs per size; per run the interquartile mean of the samples\n' "$pairs"
for size in ${SIZES:-8 1024 65536 1048576 16777216}; do
  iters=2000
  [ "$size" -ge 1048576 ] && iters=300
  for ((i = 0; i < pairs; i++)); do
    # alternate which side goes first, so a drift within a pair cancels
    if ((i % 2 == 0)); then l=$(loop "$size" $iters); p=$(pb "$size" $iters)
    else p=$(pb "$size" $iters); l=$(loop "$size" $iters); fi
    printf '%s %s %s\n' "$size" "$l" "$p" | tee -a "${keep[@]}" >/dev/null
  done
done
table "$tmp/run"
