#!/usr/bin/env bash
# hang_stopped.sh NP R T MPIEXEC PARBENCH: rank R of NP stops before its
# first measurement (--fault hang:R) and is then frozen with SIGSTOP, its
# watchdog thread included, so it can answer nobody.  The watchdogs' tree
# is reshaped so that every rank stands for a node and each leader has 2
# children (PARBENCH_WD_NODE_RANKS=1, PARBENCH_WD_FANOUT=2): with NP = 8,
# rank 0's questions and the answers of ranks 3..7 cross two levels of
# forwarding (e.g. 6 -> 2 -> 0).  The run must end with exit 3 within
# T + 15 s (T, then the 5 s survey), rank 0 must name rank R as not
# answering, and no other rank.
set -u
np=$1 r=$2 t=$3 mpiexec=$4 pb=$5
out=$(mktemp)
export PARBENCH_WD_NODE_RANKS=1 PARBENCH_WD_FANOUT=2
start=$(date +%s.%N)
"$mpiexec" -x PARBENCH_WD_NODE_RANKS -x PARBENCH_WD_FANOUT -np "$np" "$pb" coll --op allreduce \
    -b 8 -e 1K -n 3 -T "$t" --fault "hang:$r" >"$out" 2>&1 &
pid=$!
# rank R is the parbench process whose environment says so; it is frozen
# once rank 0 has printed the run's header: every rank is then past the
# set-up (the watchdogs' channel included), and R sleeps in its fault
for _ in $(seq 600); do
  grep -q "^# allreduce" "$out" && break
  sleep 0.1
done
# only this run's ranks (mpirun's children): another test may run the
# same binary with its own rank R at the same time (ctest -j)
victim=
for p in $(pgrep -P "$pid"); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$r" && victim=$p
done
[ -n "$victim" ] || { echo "FAIL: rank $r not found"; kill "$pid"; cat "$out"; exit 1; }
kill -STOP "$victim"
wait "$pid"
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
kill -KILL "$victim" 2>/dev/null
cat "$out"
fail=0
[ "$rc" -eq 3 ] || { echo "FAIL: exit $rc, expected 3"; fail=1; }
awk -v a="$took" -v t="$t" 'BEGIN { exit !(a <= t + 20) }' || { echo "FAIL: took $took s"; fail=1; }
grep -q "$((np - 1)) of $np ranks wait in step #[0-9]* (allreduce.*); not arrived: none of those that answered\$" "$out" ||
  { echo "FAIL: the survey does not count the $((np - 1)) others as waiting"; fail=1; }
grep -q "no answer within 5 s from rank $r (" "$out" ||
  { echo "FAIL: rank $r is not named as silent (alone)"; fail=1; }
echo "took $took s (timeout $t s); exit $rc"
rm -f "$out"
exit $fail
