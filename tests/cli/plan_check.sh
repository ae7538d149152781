#!/usr/bin/env bash
# plan_check.sh PARBENCH: parbench plan compares like with like.
#  - Llama 3 70B on 1,024 H100 at its published batch (2,048 sequences of
#    8,192 tokens, Llama 3 paper Table 4: 16M tokens) ranks first a layout
#    that replicates data at least 8 ways (dp >= 8): with the batch fixed,
#    a layout of dp 1 runs 2,048 micro-batches through one pipeline;
#  - no two printed lines are exact ties (exact ties are one line);
#  - every line carries its likely range, and the first is not marked '='.
set -u
pb=$1
out=$("$pb" plan --preset llama3-70b --gpus 1024 --gpus-per-node 8 --hw h100 --gbs 2048 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit $rc"
lines=$(printf '%s\n' "$out" | grep -E '^ +[0-9]+=? +[0-9.]+ +[0-9.]+-[0-9.]+ ')
[ "$(printf '%s\n' "$lines" | wc -l)" -eq 10 ] || fail "not 10 ranked lines"
first=$(printf '%s\n' "$lines" | head -1)
[[ "$first" =~ ^\ +1\  ]] || fail "the first line is not rank 1 (unmarked)"
dp=$(printf '%s\n' "$first" | sed -E 's/.* dp ([0-9]+).*/\1/')
[ "$dp" -ge 8 ] || fail "the fastest layout has dp $dp < 8"
steps=$(printf '%s\n' "$lines" | awk '{ print $2 }')
[ "$(printf '%s\n' "$steps" | sort -u | wc -l)" -eq 10 ] || fail "two lines print the same step time"
printf '%s\n' "$out" | grep -q '^gbs\|gbs 2048 (16777216 tokens)' || fail "the header does not state the batch"
echo "ok: dp $dp first, 10 distinct lines"
