#!/usr/bin/env bash
# main_interrupted.sh PARBENCH DIR: the main job (self-launched, 2 ranks)
# gets SIGINT while its collective sweep runs.  It must stop measuring,
# still write calib.csv and report.html of what finished, say so, and
# exit 130.
set -u
pb=$1 dir=$2
rm -rf "$dir"
out=$(mktemp)
"$pb" --np 2 -o "$dir" >"$out" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ -f "$dir/results.csv" ] && [ "$(wc -l <"$dir/results.csv")" -ge 6 ] && break
  sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$out"
fail=0
[ "$rc" -eq 130 ] || { echo "FAIL: exit $rc, expected 130"; fail=1; }
grep -q "stopped early; what finished is in $dir/" "$out" || { echo "FAIL: no closing line"; fail=1; }
grep -q "pattern suite" "$out" && { echo "FAIL: measured the pattern suite after the stop"; fail=1; }
[ -s "$dir/report.html" ] || { echo "FAIL: no report.html"; fail=1; }
[ -s "$dir/calib.csv" ] || { echo "FAIL: no calib.csv"; fail=1; }
rm -f "$out"
exit $fail
