#!/usr/bin/env bash
# gpu_bandwidth.sh [BUILD_DIR] [SIZE] - on one GPU: NCCL broadcast and
# all-reduce at SIZE (default 1G) against a plain device-to-device
# cudaMemcpy of the same size, in one run.  A one-rank NCCL collective
# is a copy (out of place) or nothing (in place), so the copy's
# bandwidth is its ceiling; the ratio shows NCCL's own overhead.
set -euo pipefail
build=${1:-build}
size=${2:-1G}
bytes=$(numfmt --from=iec "$size")
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
read -r _ copy_us copy_gbs < <("$build/pb_memcpy_bw" "$bytes" 20)
printf '%-22s %12s %10s %8s\n' what time_us GB/s vs_copy
printf '%-22s %12.2f %10.1f %8s\n' "cudaMemcpy D2D" "$copy_us" "$copy_gbs" 1.00
for op in broadcast allreduce; do
  # table row: size count type redop root | time p99 algbw busbw ... (out of place or in place)
  line=$(mpirun "${root[@]}" -np 1 "$build/parbench" coll --backend nccl --op "$op" \
           --sizes "$size" -n 20 -w 3 --mode throughput | awk -v s="$bytes" '$1 == s')
  if [ "$op" = broadcast ]; then t=$(awk '{print $12}' <<<"$line"); bw=$(awk '{print $14}' <<<"$line")
  else t=$(awk '{print $6}' <<<"$line"); bw=$(awk '{print $8}' <<<"$line"); fi
  awk -v n="nccl $op" -v t="$t" -v b="$bw" -v c="$copy_gbs" \
      'BEGIN { printf "%-22s %12.2f %10.1f %8.2f\n", n, t, b, b / c }'
done
