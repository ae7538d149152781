#!/usr/bin/env bash
# signal_stop.sh SIG RC MPIEXEC PARBENCH CSV: a sweep under mpirun gets SIG
# (TERM or INT) on every rank once it has written 3 rows; it must exit RC
# (128 + signal), say where the rows are, and leave a CSV of whole rows
# only: every line ends in a newline and has the header's column count.
set -u
sig=$1 want=$2 mpiexec=$3 pb=$4 csv=$5
rm -f "$csv"
out=$(mktemp)
"$mpiexec" -np 2 "$pb" coll --op all --dtype all -b 8 -e 16M -f 4 --check -T 60 \
    --csv "$csv" >"$out" 2>&1 &
pid=$!
# wait (at most 60 s) for three rows past the header, then signal the ranks
for _ in $(seq 600); do
  [ -f "$csv" ] && [ "$(wc -l <"$csv")" -ge 4 ] && break
  sleep 0.1
done
ranks=$(pgrep -P "$pid")
[ -n "$ranks" ] || { echo "FAIL: no ranks under mpirun $pid"; cat "$out"; exit 1; }
# shellcheck disable=SC2086
kill -"$sig" $ranks
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
