#!/usr/bin/env bash
# latency_script_check.sh BUILD_DIR - bench/perf/latency_vs_loop.sh still runs:
# one pair at 8 B, both sides launch, parbench's --samples file parses,
# the size's row carries its eight fields, and RAW= keeps the pair.
# Structure only: the ratio's value is the benchmark's business, never a
# test's (timing luck).
set -u
here=$(cd "$(dirname "$0")" && pwd)
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
out=$(SIZES=8 RAW="$raw" "$here/../../bench/perf/latency_vs_loop.sh" "$1" 1 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit code $rc"
row=$(printf '%s\n' "$out" | grep -E '^ +8 ') || fail "no row for 8 B"
# size loop_us parbench_us ratio ci95 min..max median_ratio q25_ratio;
# with one pair, ci95 and min..max are that pair's ratio
printf '%s\n' "$row" | awk '{ if (NF != 8) exit 1; split($5, ci, "\\.\\."); split($6, mm, "\\.\\.");
    if ($2 <= 0 || $3 <= 0 || $4 <= 0 || mm[1] <= 0 || mm[2] < mm[1] || ci[1] != mm[1] ||
        ci[2] != mm[2] || $7 <= 0 || $8 <= 0)
        exit 1 }' || fail "row does not hold eight positive fields: $row"
# the pair's record: size, then the loop's and parbench's median and iqm
awk 'END { if (NR != 1 || NF != 5 || $1 != 8) exit 1
           for (i = 2; i <= 5; i++) if ($i <= 0) exit 1 }' "$raw" ||
  fail "RAW file: $(cat "$raw")"
printf 'ok: %s\n' "$row"
