#!/usr/bin/env bash
# main_job_check.sh PARBENCH OUTDIR MPIEXEC ARGS...: the main job (small
# sizes) writes its folder and says where everything went.
set -eu
pb=$1 out=$2
shift 2
rm -rf "$out" "$out.jsonl" # JSON Lines append: start both afresh
log=$("$@" "$pb" -o "$out" -e 4K -f 8 -n 3 -w 1 --json "$out.jsonl")
for f in results.csv topo-pairs.csv report.html; do
  [ -s "$out/$f" ] || { echo "FAIL: $out/$f missing"; exit 1; }
done
printf '%s\n' "$log" | grep -q "everything is in $out/" || { echo "FAIL: no summary"; exit 1; }
xmllint --noout "$out/report.html"
# the JSON file has one line per CSV row (the CSV adds its header)
[ "$(wc -l < "$out.jsonl")" -eq "$(($(wc -l < "$out/results.csv") - 1))" ] ||
  { echo "FAIL: JSON and CSV row counts differ"; exit 1; }
rm -f "$out.jsonl"
echo ok
