#!/usr/bin/env bash
# hang_named.sh NP R T MPIEXEC PARBENCH: rank R of NP stops before its first
# measurement (--fault hang:R) under a T-second watchdog.  The run must
# end with exit 3 within T + 10 s of its launch, and rank 0's survey must count the
# NP - 1 others as waiting in the measurement and name rank R, and only
# rank R, as not arrived.  The bound counts the launch of NP ranks, which
# on a loaded 2-core machine alone can take more than 10 s: so the same
# launch without the fault is timed first, under the same load, and the
# run may take T + 10 s more than that (a hang still fails: ctest's
# TIMEOUT and the exit code).  Each rank's own "stuck" line is printed when
# its watchdog fires first; the survey's abort may come before some do,
# so at least one is required, not all.
set -u
np=$1 r=$2 t=$3 mpiexec=$4 pb=$5
out=$(mktemp)
start=$(date +%s.%N)
"$mpiexec" -np "$np" "$pb" coll --op allreduce -b 8 -e 8 -n 1 --quiet >/dev/null 2>&1
launch=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
start=$(date +%s.%N)
"$mpiexec" -np "$np" "$pb" coll --op allreduce -b 8 -e 1K -n 3 --quiet -T "$t" \
    --fault "hang:$r" >"$out" 2>&1
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$out"
fail=0
[ "$rc" -eq 3 ] || { echo "FAIL: exit $rc, expected 3"; fail=1; }
awk -v a="$took" -v t="$t" -v l="$launch" 'BEGIN { exit !(a <= t + 10 + l) }' ||
  { echo "FAIL: took $took s (a run without the fault: $launch s)"; fail=1; }
grep -q "$((np - 1)) of $np ranks wait in step #[0-9]* (allreduce.*); not arrived: rank $r\$" "$out" ||
  { echo "FAIL: the survey does not name rank $r alone"; fail=1; }
grep -q "watchdog:   rank $r is past step" "$out" ||
  { echo "FAIL: no line saying where rank $r is"; fail=1; }
grep -q "watchdog: rank [0-9]* stuck for [0-9.]* s in step #[0-9]*: allreduce of 8 B" "$out" ||
  { echo "FAIL: no rank reported itself stuck"; fail=1; }
grep "watchdog: rank $r stuck" "$out" && { echo "FAIL: rank $r is not in a step"; fail=1; }
echo "took $took s (timeout $t s, a run without the fault $launch s); exit $rc"
rm -f "$out"
exit $fail
