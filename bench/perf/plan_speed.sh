#!/usr/bin/env bash
# plan_speed.sh [build-dir]: how fast `parbench plan` ranks every layout
# of Llama 3 405B on 16,384 H100 on one core (target: under 1 s).
# Prints the planner's own search time, and the whole command's wall time
# (process start, printing) as the median of 5 runs.
set -eu
build=${1:-build}
pb="$build/parbench"
[ -x "$pb" ] || { echo "plan_speed.sh: no $pb (build first)" >&2; exit 2; }
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
args=(plan --preset llama3-405b --gpus 16384 --gpus-per-node 8 --hw h100)
"${pin[@]}" "$pb" "${args[@]}" | grep '^searched'
walls=()
for _ in 1 2 3 4 5; do
    t0=$(date +%s.%N)
    "${pin[@]}" "$pb" "${args[@]}" >/dev/null
    t1=$(date +%s.%N)
    walls+=("$(echo "$t1 - $t0" | bc -l)")
done
median=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 3p)
printf 'llama3-405b on 16384 GPUs, one core: median wall %.3f s over 5 runs (target < 1 s)\n' "$median"
