#!/usr/bin/env bash
# step_bubble.sh [BUILD_DIR] [RUNS] - the executed pipeline bubble against
# its theory, 2 ranks, communication off (what is not compute is the
# bubble).  p = 2 stages, m = 4 micro-batches: (p - 1) / (m + p - 1) =
# 1/5 = 20.0 % for 1F1B and GPipe (Narayanan et al. 2021, eq. 1); with
# v = 2 interleaved chunks (p - 1) / (v m + p - 1) = 1/9 = 11.1 % (ibid.
# section 2.2).  A benchmark, not a test: on a shared machine a busy
# neighbour delays the exchanges or the stand-in's last time slice, which
# moves the share either way; run it on a quiet machine, one rank per core.
set -euo pipefail
build=${1:-build}
runs=${2:-3}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
printf '%-12s %10s %10s\n' schedule expected measured
for sched in "1f1b:20.0:" "gpipe:20.0:--schedule gpipe" "interleaved:11.1:--vp 2"; do
  IFS=: read -r name want flags <<<"$sched"
  for ((i = 0; i < runs; i++)); do
    # shellcheck disable=SC2086
    got=$(mpirun "${root[@]}" -np 2 --bind-to core "$build/parbench" step --pp 2 $flags \
            --no-comm --compute-scale 150 --steps 6 --csv /dev/null |
          sed -n 's/.*not compute: [0-9.]* ms = \([0-9.]*\)% of the step.*/\1/p')
    printf '%-12s %9s%% %9s%%\n' "$name" "$want" "$got"
  done
done
