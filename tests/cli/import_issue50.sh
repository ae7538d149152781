#!/usr/bin/env bash
# import_issue50.sh PARBENCH FIXTURES WORKDIR: issue 50, import and
# calibrate read as meant, through the commands (FIXTURES is tests/fixtures;
# the logs are tests/fixtures/import/issue50, whose README names each one's
# print formats).  Each check names what it failed before the fix.
set -u
pb=$1 fix=$2 work=$3
i50=$fix/import/issue50
mkdir -p "$work"
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }
# run NAME WANT_RC ARGS...: $out is stdout and stderr, the exit status checked
run() {
    local name=$1 want=$2
    shift 2
    out=$("$pb" "$@" 2>&1)
    local rc=$?
    [ "$rc" -eq "$want" ] || fail "$name: exit $rc, expected $want: $out"
}
has() { printf '%s\n' "$out" | grep -qF -- "$2" || fail "$1: wanted '$2' in: $out"; }
hasnt() { printf '%s\n' "$out" | grep -qF -- "$2" && fail "$1: did not want '$2' in: $out"; }

# 1. a failed data check is refused (before: exit 0, calibrate fitted the
# wrong rows); --partial keeps the rows, and calibrate leaves the wrong out
run wrong 2 import "$i50/nccl-allreduce-wrong.log" --csv "$work/w.csv"
has wrong "parbench: nccl-allreduce-wrong.log:19: the run failed nccl-tests' data check: 16777216 B out-of-place, 1.83501e+06 wrong elements; the footer: Out of bounds values : 7 FAILED"
rm -f "$work/e.csv"
run error 0 import "$i50/nccl-allreduce-error-failed.log" --partial --csv "$work/e.csv" -o "$work/e-cal.csv"
has error "the run failed its data check, every row kept, 4 marked wrong (--partial; calibrate leaves them out)"
has error "# parbench calibrate: 4 points, 4 rows skipped"
# the first nccl-tests format, failed (before: "no result rows found")
run first 2 import "$i50/all_reduce_perf-2017-failed.log" --csv "$work/f.csv"
has first "all_reduce_perf-2017-failed.log:12: the run failed nccl-tests' data check: 1048576 B out-of-place, error 1 past the 3e-05 float allows on 4 ranks"

# 2. a 16-node OSU run's placement is unknown unless given (before: 128
# LOCAL, per_node 128)
rm -f "$work/o.csv"
run place 2 import "$i50/osu_allreduce-16n8g-v7.4.txt" --np 128 --csv "$work/o.csv" -o "$work/o-cal.csv"
has place "placement unknown: the log does not say how its processes sat on nodes (link class '?' on 5 rows)"
has place "parbench: 5 rows (the first: osu_allreduce-16n8g-v7.4.txt, allreduce on 128 processes) do not say how their processes sat on nodes"
rm -f "$work/o.csv"
run place16 0 import "$i50/osu_allreduce-16n8g-v7.4.txt" --np 128 --nodes 16 --csv "$work/o.csv" -o "$work/o-cal.csv"
has place16 "5 rows from osu (allreduce), world 128 on 16 nodes"
# calib.csv: collective,group_size,link_class,...,per_node (15th column)
awk -F, 'NR > 1 && ($2 != 128 || $3 != "\"NET\"" || $15 != 8) { bad = 1 } END { exit bad || NR < 2 }' \
    "$work/o-cal.csv" || fail "place16: curves not 128 NET per_node 8: $(cat "$work/o-cal.csv")"

# 3. --partial gives the real reason (before: "no result rows found")
run partial 2 import "$fix/import/osu_allreduce-f-v7.4.txt" --partial --csv "$work/p.csv"
has partial "OSU logs do not say how many processes ran 'OSU MPI Allreduce Latency Test v7.4': give --np N"
run cut 2 import "$i50/allreduce-1440r-cut.log" --partial --csv "$work/p.csv"
has cut "allreduce-1440r-cut.log:3: the world size is unknown"
rm -f "$work/p.csv"
run cut1440 0 import "$i50/allreduce-1440r-cut.log" --np 1440 --csv "$work/p.csv"
has cut1440 "4 rows from nccl-tests (allreduce), world 1440"

# 5. nccl-tests' average counts the 0-byte rows (before: "rows missing or edited?")
run avg 0 import "$i50/all_gather_perf-16r-b8.log" --csv "$work/a.csv"
has avg "Avg bus bandwidth 1.796 GB/s in the log, 1.796 GB/s from its rows"
hasnt avg "rows missing or edited"

# 6. --op names the collective (before: no such option)
run noop 2 import "$i50/slurm-4711.out" --csv "$work/s.csv"
has noop "slurm-4711.out:9: which collective? no '# Collective test starting' line, and the file name names none: give --op"
rm -f "$work/s.csv"
run op 0 import "$i50/slurm-4711.out" --op allreduce --csv "$work/s.csv"
has op "4 rows from nccl-tests (allreduce), world 4 on 1 node"

# 7. a flat piece is latency-only (before: 121662041773637.578 GB/s)
rm -f "$work/l.csv"
run flat 0 import "$i50/osu_allreduce-flat-v7.4.txt" --np 2 --nodes 1 --csv "$work/l.csv" -o "$work/l-cal.csv"
has flat "5.000 latency-only      6"
printf '%s\n' "$out" | grep -Eq '[0-9]{7,}\.[0-9]{3}' && fail "flat: a bandwidth of noise: $out"

# 4. a type moved along another's curve carries the ratio measured where
# both were (tests/fixtures/main-job-f32-bf16.csv: float 8 B-64 MiB on
# 20 us + 2e-5 us/B, bf16 at 1 MiB only, 3.3x float's time there)
run ratio 0 calibrate "$fix/main-job-f32-bf16.csv" -o "$work/r-cal.csv"
has ratio "# allreduce n=8 NV18 bfloat16: measured at 1048576 B only; past that the model takes the float curve x 3.300 (bfloat16's time over float's at 1048576 B)"
# tiny at tp 8, mbs 8: 36 bf16 all-reduces of 8 MiB a step, each 3.3 x
# (20 + 2e-5 x 8388608) = 619.648 us (float's curve as is: 187.772 us),
# 22.307 ms, and the loss's 6 fp32 ones of at most 16 KiB (20.3 us each):
# the TP total before overlap 0.0224 s (before: 0.0069)
run model 0 model --preset tiny --tp 8 --gpus 8 --gpus-per-node 8 --mbs 8 --calib "$work/r-cal.csv"
has model "4 from another type's curve times their own type's time over it where both were measured (the farthest: x3.3 at 1 MiB)"
printf '%s\n' "$out" | grep -Eq '^TP +[0-9.]+ +[0-9.]+% +0\.0224$' || fail "model: TP total: $out"

# 8. import counts a recording as profile does (before: "36 operations,
# 0.1331 MB over all ranks" against profile's "18 ops, 65 KiB")
rm -f "$work/ops.csv"
run traces 0 import "$fix/pytorch/gloo-tp2-dp2" --csv "$work/ops.csv"
has traces "world 4, 5 communicators, 100 records, 47 operations"
imp=$(printf '%s\n' "$out" | sed -n 's/^#   .*): \([0-9]*\) ops, \(.*\)$/\1 \2/p')
run profile 0 profile "$work/ops.csv"
has profile "100 records, 47 operations"
# profile's communicators table: comm dim ranks members... ops bytes(2 words) time share
prof=$(printf '%s\n' "$out" | awk '/^# communicators/ { on = 1; getline; next }
    on && NF == 0 { on = 0 } on { print $(NF - 4), $(NF - 3), $(NF - 2) }')
[ -n "$imp" ] && [ "$imp" = "$prof" ] ||
    fail "traces: import counted '$imp', profile '$prof'"
echo "ok: issue 50's logs read as meant"
