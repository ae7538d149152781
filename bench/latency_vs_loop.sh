#!/usr/bin/env bash
# latency_vs_loop.sh [BUILD_DIR] - parbench's latency mode against the
# plainest MPI loop (bench/ref_allreduce.c), 2 ranks, same sizes, same
# statistic (median over iterations of the slowest rank's time).  Runs
# alternate, three rounds each, and the best median of each side is
# compared, so one noisy round on a shared machine does not decide.
# Target: parbench / loop <= 1.02.
set -euo pipefail
build=${1:-build}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
iters=2000
printf '%10s %14s %14s %8s\n' size loop_us parbench_us ratio
for size in 8 65536 1048576 16777216; do
  [ "$size" -ge 1048576 ] && iters=300
  loop=1e9 pb=1e9
  for round in 1 2 3; do
    l=$(mpirun "${root[@]}" -np 2 "$build/pb_ref_allreduce" "$size" "$iters" 20 | awk '{print $2}')
    # the table row of that size: size count type redop root time ...
    p=$(mpirun "${root[@]}" -np 2 "$build/parbench" coll --op allreduce --sizes "$size" \
          --place out -n "$iters" -w 20 | awk -v s="$size" '$1 == s { print $6 }')
    loop=$(awk -v a="$loop" -v b="$l" 'BEGIN { print (b < a) ? b : a }')
    pb=$(awk -v a="$pb" -v b="$p" 'BEGIN { print (b < a) ? b : a }')
  done
  awk -v s="$size" -v l="$loop" -v p="$pb" 'BEGIN { printf "%10d %14.3f %14.3f %8.3f\n", s, l, p, p / l }'
done
