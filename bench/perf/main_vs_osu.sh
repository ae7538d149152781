#!/usr/bin/env bash
# main_vs_osu.sh [BUILD_DIR] [PAIRS] - how long the main job takes next to
# what a user would otherwise run: OSU's eight sweeps (issue 35's target:
# the main job <= 0.2x).
#
# One side is the main job as a user starts it (`parbench -o DIR`, the
# self-launch on 2 ranks: topology, the verified sweep of 8 collectives,
# 8 B to 64 MiB, in and out of place, the pattern suite, calibration,
# report).  The other is OSU Micro-Benchmarks' eight sweeps over the same
# sizes, one mpirun each, 2 ranks, OSU's own iteration and warm-up
# counts: osu_allreduce, osu_allgather, osu_reduce_scatter,
# osu_alltoall, osu_alltoallv, osu_bcast, osu_reduce (reductions as
# -T mpi_float, parbench's type) and osu_latency for send/recv.  OSU
# checks nothing (no -c) and measures one placement.  The wall time of
# each side is taken from here, launches included.  The ratio is
# main job / OSU's eight.
#
# OSU is not part of this repository: build it outside the checkout and
# point OSU at its c/mpi folder, e.g. OSU Micro-Benchmarks 7.4
#   ./configure CC=mpicc CXX=mpicxx && \
#   make -C c/mpi/collective/blocking && make -C c/mpi/pt2pt/standard
# (c/util has no Makefile of its own; each benchmark folder builds it)
#   OSU=/path/to/osu-micro-benchmarks-7.4/c/mpi bench/perf/main_vs_osu.sh build 7
# OSU_SIZES (default 8:67108864, the main job's range) is OSU's -m.
#
# This machine flips between speed states from one launch to the next:
# the two sides run as alternating pairs (main, OSU; OSU, main; ...) and
# the median of the per-pair ratios is printed with its distribution-free
# 95 % interval (order statistics; the extremes below 9 pairs).  A pair
# takes about 2 minutes here, most of it osu_latency's 1000 round trips
# per size above 8 KiB.
set -euo pipefail
build=${1:-build}
pairs=${2:-5}
osu=${OSU:?set OSU to the c/mpi folder of a built OSU Micro-Benchmarks (see the comment at the top)}
sizes=${OSU_SIZES:-8:67108864}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

main_job() {
  local t0 t1
  rm -rf "$tmp/out"
  t0=$(now)
  "$build/parbench" -o "$tmp/out" --quiet >/dev/null
  t1=$(now)
  echo "$t1 - $t0" | bc
}

# -M: OSU's per-process memory cap (default 512 MiB) must hold an
# all-to-all's n x 64 MiB buffers
osu_eight() {
  local t0 t1 c=collective/blocking opts=(-m "$sizes" -M 2147483648)
  t0=$(now)
  for b in osu_allreduce osu_reduce_scatter osu_reduce; do
    mpirun "${root[@]}" -np 2 "$osu/$c/$b" "${opts[@]}" -T mpi_float >/dev/null
  done
  for b in osu_allgather osu_alltoall osu_alltoallv osu_bcast; do
    mpirun "${root[@]}" -np 2 "$osu/$c/$b" "${opts[@]}" >/dev/null
  done
  # osu_latency takes no -M (its buffers hold the largest size anyway)
  mpirun "${root[@]}" -np 2 "$osu/pt2pt/standard/osu_latency" -m "$sizes" >/dev/null
  t1=$(now)
  echo "$t1 - $t0" | bc
}

printf '# %d alternating pairs: main job wall / OSU eight sweeps wall (2 ranks, sizes %s)\n' \
  "$pairs" "$sizes"
printf '%6s %10s %10s %8s\n' pair main_s osu_s ratio
for ((i = 0; i < pairs; i++)); do
  if ((i % 2 == 0)); then m=$(main_job); o=$(osu_eight)
  else o=$(osu_eight); m=$(main_job); fi
  printf '%6d %10.2f %10.2f %8.3f\n' "$((i + 1))" "$m" "$o" "$(echo "$m / $o" | bc -l)" |
    tee -a "$tmp/pairs"
done
# ci95: the k-th smallest and largest ratio, k = ci_rank(n) (median_ci.awk:
# util/pb_stats.c's rule; the extremes below 6 pairs)
awk "$(cat "$(dirname "$0")/median_ci.awk")"'
  function sortv(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]
      for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
  function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { m[NR] = $2; o[NR] = $3; r[NR] = $4 }
  END { n = NR; sortv(m, n); sortv(o, n); sortv(r, n)
        k = ci_rank(n)
        printf "median: main %.2f s, OSU %.2f s, ratio %.3f, ci95 %.3f..%.3f, min..max %.3f..%.3f\n",
               med(m, n), med(o, n), med(r, n), r[k], r[n + 1 - k], r[1], r[n] }' "$tmp/pairs"
