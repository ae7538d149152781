#!/usr/bin/env bash
# latency_script_check.sh BUILD_DIR - bench/latency_vs_loop.sh still runs:
# one pair at 8 B, both sides launch, parbench's --samples file parses,
# and the size's row carries its seven fields.  Structure only: the ratio's
# value is the benchmark's business, never a test's (timing luck).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(SIZES=8 "$here/../../bench/latency_vs_loop.sh" "$1" 1 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit code $rc"
row=$(printf '%s\n' "$out" | grep -E '^ +8 ') || fail "no row for 8 B"
# size loop_us parbench_us ratio min..max median_ratio q25_ratio
printf '%s\n' "$row" | awk '{ if (NF != 7) exit 1; split($5, mm, "\\.\\.");
    if ($2 <= 0 || $3 <= 0 || $4 <= 0 || mm[1] <= 0 || mm[2] < mm[1] || $6 <= 0 || $7 <= 0)
        exit 1 }' || fail "row does not hold seven positive fields: $row"
printf 'ok: %s\n' "$row"
