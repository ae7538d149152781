#!/usr/bin/env bash
# latency_table_check.sh SCRIPT - bench/perf/latency_vs_loop.sh's table, from
# pair records made up here (FROM=..., nothing is launched), against values
# worked out by hand below; and two files pool into the table of their
# union.
set -u
script=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }

# Records are "size loop_median loop_iqm parbench_median parbench_iqm".
# 1 KiB, three pairs: ratios 1.10, 0.90, 1.05.  Sorted 0.90 1.05 1.10:
# median 1.05; 3 pairs have no 95 % interval (median_ci.awk), so ci95 is min..max;
# parbench_us is the median of 2.2, 1.8, 2.1 = 2.1; q25 is the nearest
# rank ceil(3 / 4) = 1: 1.8 / 2 = 0.900.  Listed first, so its row comes
# first.
printf '1024 2 2 2.2 2.2\n1024 2 2 1.8 1.8\n' >"$tmp/a"
# 8 B, sixteen pairs: loop 1 (median 2), parbench 0.80 + 0.02 i (median
# twice that), i = 1..16, so the ratios are 0.82, 0.84 ... 1.12:
#   ratio = (r8 + r9) / 2 = (0.96 + 0.98) / 2 = 0.970
#   k = 4 (P(Bin(16, 1/2) <= 3) = 697/65536 = 0.011 <= 0.025 < P(<= 4) = 0.038): ci95 = r4..r13
#     = 0.88..1.06
#   median_ratio: the medians' ratios are the same numbers, 0.970
#   q25 (nearest rank ceil(16 / 4) = 4): parbench 0.88, loop 1: 0.880
#   loop_us 1.000, parbench_us 0.970 (medians over pairs)
eight_b() { # eight_b FIRST LAST: the 8 B records for i = FIRST..LAST
  awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++) {
    p = 0.80 + 0.02 * i; printf "8 2 1 %.4f %.4f\n", 2 * p, p } }'
}
eight_b 1 8 >>"$tmp/a"
printf '1024 2 2 2.1 2.1\n' >"$tmp/b"
eight_b 9 16 >>"$tmp/b"
echo '# a comment line is skipped' >>"$tmp/b"

out=$(FROM="$tmp/a $tmp/b" "$script" 2>&1) || fail "exit code $?: $out"
want='1024 2.000 2.100 1.050 0.900..1.100 0.900..1.100 1.050 0.900
8 1.000 0.970 0.970 0.880..1.060 0.820..1.120 0.970 0.880'
got=$(printf '%s\n' "$out" | awk 'NR > 1 { $1 = $1; print }')
[ "$got" = "$want" ] || fail "table:
$out
want (fields):
$want"
# the header names the eight columns
printf '%s\n' "$out" | head -1 | grep -q 'size .*loop_us .*parbench_us .*ratio .*ci95 .*min..max .*median_ratio .*q25_ratio' ||
  fail "header: $(printf '%s\n' "$out" | head -1)"
printf 'ok:\n%s\n' "$out"
