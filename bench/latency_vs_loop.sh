#!/usr/bin/env bash
# latency_vs_loop.sh [BUILD_DIR] [PAIRS] - does parbench add anything to
# what it times?  Its latency mode against the plainest MPI loop
# (bench/ref_allreduce.c: MPI_Init single-threaded, barrier, two clock
# reads around one MPI_Allreduce, as OSU does), 2 ranks, the same sizes,
# iterations and statistic (median over iterations of the slowest rank's
# time).
#
# This machine flips between speed states from one launch to the next, so
# one run against another taken minutes apart means nothing.  The two
# sides run as alternating pairs (loop, parbench; parbench, loop; ...),
# each pair gives a ratio parbench / loop, and the median over PAIRS
# pairs (default 5) is printed per size, with the mean of the ratios
# beside it (finer than the clock's tick).  Target: every ratio <= 1.02.
set -euo pipefail
build=${1:-build}
pairs=${2:-5}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)

loop() { mpirun "${root[@]}" -np 2 "$build/pb_ref_allreduce" "$1" "$2" 20 | awk '{ print $2 }'; }
# the CSV's median at full precision (the table rounds to 0.01 us, 4 %
# of a 0.25 us latency): column time_us_median of the one row
pb() {
  local csv
  csv=$(mktemp --suffix=.csv)
  rm -f "$csv"
  mpirun "${root[@]}" -np 2 "$build/parbench" coll --op allreduce --sizes "$1" --place out \
    -n "$2" -w 20 --quiet --csv "$csv" >/dev/null
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /time_us_median/) c = i }
           NR == 2 { gsub(/"/, "", $c); print $c }' "$csv"
  rm -f "$csv"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '# %d alternating pairs per size; loop and parbench in us (medians over pairs)\n' "$pairs"
printf '%10s %12s %12s %8s %16s %10s\n' size loop_us parbench_us ratio ratio_min..max mean_ratio
for size in 8 1024 65536 1048576 16777216; do
  iters=2000
  [ "$size" -ge 1048576 ] && iters=300
  ls=() ps=() rs=()
  for ((i = 0; i < pairs; i++)); do
    # alternate which side goes first, so a drift within a pair cancels
    if ((i % 2 == 0)); then l=$(loop "$size" $iters); p=$(pb "$size" $iters)
    else p=$(pb "$size" $iters); l=$(loop "$size" $iters); fi
    ls+=("$l") ps+=("$p") rs+=("$(awk -v l="$l" -v p="$p" 'BEGIN { print p / l }')")
  done
  lm=$(printf '%s\n' "${ls[@]}" | median)
  pm=$(printf '%s\n' "${ps[@]}" | median)
  rm=$(printf '%s\n' "${rs[@]}" | median)
  lo=$(printf '%s\n' "${rs[@]}" | sort -g | head -1)
  hi=$(printf '%s\n' "${rs[@]}" | sort -g | tail -1)
  # the mean of the pairs' ratios: at 8 B both medians sit on the clock's
  # ~10 ns grid (4 % of 0.24 us), so the median of ratios moves in 4 %
  # steps; the mean resolves less than one tick
  mr=$(printf '%s\n' "${rs[@]}" | awk '{ s += $1 } END { print s / NR }')
  printf '%10d %12.3f %12.3f %8.3f %7.3f..%-7.3f %10.3f\n' "$size" "$lm" "$pm" "$rm" "$lo" "$hi" "$mr"
done
