#!/usr/bin/env bash
# launch_signal.sh SIG RC PARBENCH CSV: parbench started without a launcher
# (it runs mpirun itself, as a person types it) gets SIG once 3 rows are
# written - what Ctrl-C (SIGINT) does to a foreground job's first
# process.  It must hand the stop to the ranks rather than let mpirun kill
# them: exit RC (128 + signal), the line saying where the rows are, and a
# CSV of whole rows.
set -u
sig=$1 want=$2 pb=$3 csv=$4
rm -f "$csv"
out=$(mktemp)
"$pb" coll --np 2 --op all --dtype all -b 8 -e 16M -f 4 --check -T 60 --csv "$csv" >"$out" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ -f "$csv" ] && [ "$(wc -l <"$csv")" -ge 4 ] && break
  sleep 0.1
done
kill -"$sig" "$pid"
wait "$pid"
rc=$?
cat "$out"
fail=0
[ "$rc" -eq "$want" ] || { echo "FAIL: exit $rc, expected $want"; fail=1; }
grep -q "parbench: stopped by SIG$sig: [0-9]* complete rows* in $csv" "$out" ||
  { echo "FAIL: no line saying where the rows are"; fail=1; }
[ "$(tail -c 1 "$csv" | od -An -c | tr -d ' ')" = '\n' ] ||
  { echo "FAIL: the CSV ends inside a row"; fail=1; }
cols=$(head -1 "$csv" | awk -F, '{ print NF }')
awk -F, -v c="$cols" 'NF != c { exit 1 }' "$csv" || { echo "FAIL: a row with a wrong field count"; fail=1; }
rm -f "$out"
exit $fail
