#!/usr/bin/env bash
# pattern_acceptance.sh MPIEXEC PARBENCH CSV
# The issue's acceptance command at test sizes: both tables printed, and
# one CSV row per distinct operation with pattern = strategy and group =
# group kind: tp's all-reduces (the layers', the embedding's and the
# output layer's are one shape, 1 x 128 x 512 x 2 B; the loss's another,
# 1 x 128 x 4 B), pp's send/recv forward and backward, dp's one gradient
# bucket; 0 wrong.
set -eu
mpiexec=$1 pb=$2 csv=$3
rm -f "$csv"
out=$("$mpiexec" -np 8 --oversubscribe "$pb" --pattern all --tp 2 --pp 2 --dp 2 --size 512 \
      --layers 4 --seq 128 --vocab 1024 -n 3 --check --csv "$csv")
fail() { printf 'FAIL: %s\n--- output ---\n%s\n--- csv ---\n' "$1" "$out"; cat "$csv"; exit 1; }
printf '%s\n' "$out" | grep -q '^#strategy .*time/op' || fail "no per-operation table"
printf '%s\n' "$out" | grep -q '^#strategy .*comm time/step' || fail "no per-strategy table"
rows() { grep -c "$1" "$csv" || true; }
[ "$(rows ',"tp","allreduce","tp",2,')" -eq 2 ] || fail "tp rows"
[ "$(rows ',"pp","sendrecv","pp",2,')" -eq 2 ] || fail "pp rows"
[ "$(rows ',"dp","allreduce","dp",2,')" -eq 1 ] || fail "dp rows"
[ "$(wc -l < "$csv")" -eq 6 ] || fail "header + 5 rows expected"
# the wrong column (23rd) is 0 in every row
awk -F, 'NR > 1 && $23 != "0" { exit 1 }' "$csv" || fail "wrong elements"
echo "ok: tables printed, 5 rows, 0 wrong"
