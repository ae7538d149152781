#!/usr/bin/env bash
# signal_stop.sh SIG RC MPIEXEC PARBENCH CSV: a sweep gets SIG (TERM or
# INT) once it has written 3 rows; it must exit RC (128 + signal), say
# where the rows are, and leave a CSV of whole rows only: every line ends
# in a newline and has the header's column count.
#   MPIEXEC a launcher (mpirun): the signal goes to every rank, as srun
#           and kill deliver it;
#   MPIEXEC "-": parbench is typed without a launcher and starts mpirun
#           itself; the signal goes to parbench alone, as Ctrl-C does to
#           a foreground job's first process, and parbench must hand it
#           to the ranks rather than let mpirun kill them.
set -u
sig=$1 want=$2 mpiexec=$3 pb=$4 csv=$5
rm -f "$csv"
out=$(mktemp)
args=(coll --op all --dtype all -b 8 -e 16M -f 4 --check -T 60 --csv "$csv")
if [ "$mpiexec" = - ]; then
  "$pb" "${args[@]}" --np 2 >"$out" 2>&1 &
else
  "$mpiexec" -np 2 "$pb" "${args[@]}" >"$out" 2>&1 &
fi
pid=$!
# wait (at most 60 s) for three rows past the header, then signal
for _ in $(seq 600); do
  [ -f "$csv" ] && [ "$(wc -l <"$csv")" -ge 4 ] && break
  sleep 0.1
done
if [ "$mpiexec" = - ]; then
  targets=$pid
else
  targets=$(pgrep -P "$pid")
  [ -n "$targets" ] || { echo "FAIL: no ranks under mpirun $pid"; cat "$out"; exit 1; }
fi
# shellcheck disable=SC2086
kill -"$sig" $targets
wait "$pid"
rc=$?
cat "$out"
fail=0
[ "$rc" -eq "$want" ] || { echo "FAIL: exit $rc, expected $want"; fail=1; }
grep -q "parbench: stopped by SIG$sig: [0-9]* complete rows* in $csv" "$out" ||
  { echo "FAIL: no line saying where the rows are"; fail=1; }
[ "$(tail -c 1 "$csv" | od -An -c | tr -d ' ')" = '\n' ] ||
  { echo "FAIL: the CSV ends inside a row"; fail=1; }
cols=$(head -1 "$csv" | awk -F, '{print NF}')
bad=$(awk -F, -v c="$cols" 'NF != c' "$csv" | wc -l)
rows=$(($(wc -l <"$csv") - 1))
[ "$bad" -eq 0 ] || { echo "FAIL: $bad torn rows"; fail=1; }
[ "$rows" -ge 3 ] || { echo "FAIL: only $rows rows"; fail=1; }
echo "rows: $rows whole rows of $cols columns; exit $rc"
rm -f "$out"
exit $fail
