#!/usr/bin/env bash
# tune_check.sh DIR LAUNCH... - parbench tune on Open MPI's all-reduce
# algorithms at 64 KiB on 8 ranks (LAUNCH: the launcher and parbench),
# run in DIR; passes when
#  - it exits 0 and writes tune.env and tune.csv;
#  - ring (coll_tuned_allreduce_algorithm=4) is judged slower than the
#    default.  At 64 KiB the steps' latency, not the bytes, sets the time:
#    a ring all-reduce on p ranks is 2(p-1) = 14 dependent steps, the
#    default here 2 log2(p) = 6 (Open MPI 4.1.4's fixed decision runs
#    Rabenseifner's algorithm at this size: forced, it measures 1.00-1.01
#    of the default), so ring should take about 14/6 = 2.3 times as long;
#    measured here over 10 runs: 1.41-1.92, the intervals' lower ends
#    1.32-1.81.  (On 4 ranks, 6 steps against 4, ring measured 1.05-1.52
#    and once inside the noise: too close to test without luck.)
#    20 pairs, not the default 10: up to 8 pairs the verdict's interval
#    is the ratios' whole range, and at 10 it drops one ratio at each end
#    only (util/pb_stats.h's exact ranks 2 and 9), so one or two pairs whose
#    default side a descheduled rank stalled (8 ranks share 2 cores here)
#    turns ring's 2.4 into "no change": it did once in a full ctest run
#    (ring 2.40, interval 0.007-4.22).  At 20 the interval runs from the
#    6th ratio to the 15th (P(Bin(20, 1/2) <= 5) = 0.021 <= 0.025 <
#    P(<= 6) = 0.058): six such pairs out of 20 would be needed.
#  - every candidate measured verified with 0 wrong elements;
#  - tune.env sets nothing, or names Open MPI's rules file (issue 49: an
#    algorithm held to the sizes it won, never exported as the knob,
#    which would reach every all-reduce), and every rule of that file is
#    an algorithm tune.csv judged faster on that communicator and size.
set -u
dir=$1
shift
cd "$dir" || exit 1
rm -f tune.env tune.csv
out=$("$@" tune --op allreduce --sizes 64K --knobs coll_tuned_allreduce_algorithm \
      --pairs 20 --budget 4m 2>&1)
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
grep -q '^export OMPI_MCA_coll_tuned_allreduce_algorithm=' tune.env &&
  fail "tune.env forces an algorithm for every all-reduce of the job"
rules=$(sed -n "s/^export OMPI_MCA_coll_tuned_dynamic_rules_filename=//p" tune.env)
if [ -n "$rules" ]; then
  grep -q '^export OMPI_MCA_coll_tuned_use_dynamic_rules=1$' tune.env ||
    fail "tune.env names a rules file without the dynamic rules it needs"
  [ -s "$rules" ] || fail "the rules file $rules is missing"
  # the file's numbers, comments dropped, read as Open MPI reads them:
  # collectives; per collective its id and sizes; per size its rules
  got=$(sed 's/#.*//' "$rules" | tr -s ' \n' '\n\n' | grep . | awk '
    { v[NR] = $1 } END { i = 1; nc = v[i++]
      for (c = 0; c < nc; c++) { id = v[i++]; ns = v[i++]
        for (s = 0; s < ns; s++) { size = v[i++]; nm = v[i++]
          for (m = 0; m < nm; m++) { b = v[i]; a = v[i + 1]; i += 4
            if (a > 0) print id, size, b, a } } }
      if (i != NR + 1) print "bad", i, NR }')
  [ -n "$got" ] || fail "the rules file $rules sets no algorithm"
  printf '%s\n' "$got" | grep -q '^bad' && fail "the rules file does not read back whole"
  printf '%s\n' "$got" | while read -r id size bytes a; do
    [ "$id" = 2 ] || { echo "rule for collective $id"; exit 1; }
    v=$(awk -F, -v s="\"coll_tuned_allreduce_algorithm=$a\"" -v n="$size" -v b="$bytes" \
          '$3 == s && $5 == n && $7 == b { print $16 }' tune.csv)
    [ "$v" = '"faster"' ] || { echo "algorithm $a on $size ranks at $bytes B judged $v"; exit 1; }
  done || fail "a rule of $rules was not judged faster there"
  alg=$(printf '%s\n' "$got" | awk '{ printf "%s%s", NR > 1 ? "," : "", $4 }')
else
  grep -q 'nothing to set' tune.env || fail "tune.env sets nothing and does not say so"
fi
echo "ok: ring slower; tune.env: ${alg:-nothing}"
