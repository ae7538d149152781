#!/usr/bin/env bash
# tune_check.sh DIR LAUNCH... - parbench tune on Open MPI's all-reduce
# algorithms at 64 KiB on 4 ranks (LAUNCH: the launcher and parbench),
# run in DIR; passes when
#  - it exits 0 and writes tune.env and tune.csv;
#  - ring (coll_tuned_allreduce_algorithm=4) is judged slower than the
#    default: a ring all-reduce on p ranks takes 2(p-1) = 6 dependent
#    steps of n/p bytes, recursive doubling (what Open MPI's fixed
#    decision runs at this size, measured at a ratio near 1 below) takes
#    log2(p) = 2 steps of n bytes; at 64 KiB the steps' latency, not the
#    bytes, sets the time (measured here: ratio 1.53, interval
#    1.50-1.58; with 4 ranks on 2 cores each step also waits for a core);
#  - every candidate measured verified with 0 wrong elements;
#  - tune.env sets nothing, or sets a value tune.csv judged faster.
set -u
dir=$1
shift
cd "$dir" || exit 1
rm -f tune.env tune.csv
out=$("$@" tune --op allreduce --sizes 64K --knobs coll_tuned_allreduce_algorithm \
      --budget 2m 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- output ---\n%s\n--- tune.csv ---\n%s\n--- tune.env ---\n%s\n' \
           "$1" "$out" "$(cat tune.csv 2>/dev/null)" "$(cat tune.env 2>/dev/null)"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit $rc"
[ -s tune.env ] && [ -s tune.csv ] || fail "tune.env or tune.csv not written"
# the csv's strings are quoted and hold no commas here: split on ","
ring=$(awk -F, '$3 == "\"coll_tuned_allreduce_algorithm=4\"" { print $16 }' tune.csv)
[ "$ring" = '"slower"' ] || fail "ring's verdict is $ring, expected slower"
bad=$(awk -F, 'NR > 1 && $10 > 0 && $3 != "\"default\"" && $17 != "0"' tune.csv)
[ -z "$bad" ] || fail "measured candidates not verified to 0 wrong: $bad"
printf '%s\n' "$out" | grep -q '^coll_tuned_allreduce_algorithm=ring .* slower$' ||
  fail "the table does not show ring slower"
alg=$(sed -n 's/^export OMPI_MCA_coll_tuned_allreduce_algorithm=//p' tune.env)
if [ -n "$alg" ]; then
  v=$(awk -F, -v s="\"coll_tuned_allreduce_algorithm=$alg\"" '$3 == s { print $16 }' tune.csv)
  [ "$v" = '"faster"' ] || fail "tune.env sets algorithm $alg, judged $v"
  grep -q '^export OMPI_MCA_coll_tuned_use_dynamic_rules=1$' tune.env ||
    fail "tune.env sets an algorithm without the dynamic rules it needs"
else
  grep -q 'nothing to set' tune.env || fail "tune.env sets nothing and does not say so"
fi
echo "ok: ring slower; tune.env: ${alg:-nothing}"
