#!/usr/bin/env bash
# import_real.sh PARBENCH FIXTURES WORKDIR: issue 32's logs as they come off
# clusters (tests/fixtures/import/real, its README.md names each form's
# source) import fully: every log's rows, in the summary and in the CSV.
# The failed nccl-tests run is refused on one line naming the failure, and
# with --partial keeps the 6 rows before it and names the failure once; a
# line over 1 MiB is refused naming file:line, never cut.
set -u
pb=$1 fix=$2/real work=$3
mkdir -p "$work"
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }
# check LOG ROWS SUMMARY [ARGS...]: imports LOG, wants SUMMARY and ROWS rows
check() {
    local log=$1 rows=$2 want=$3
    shift 3
    local csv="$work/${log%.*}.csv"
    rm -f "$csv"
    out=$("$pb" import "$fix/$log" --csv "$csv" "$@" 2>&1) || fail "$log: exit $?: $out"
    printf '%s\n' "$out" | grep -qF "# $fix/$log: $want" || fail "$log: summary: $out"
    local n=$(($(wc -l <"$csv") - 1)) # less the header
    [ "$n" -eq "$rows" ] || fail "$log: $n rows in the CSV, expected $rows"
}
check nccl-allreduce-ompi4-tag.log 6 "6 rows from nccl-tests (allreduce), world 8 on 2 nodes"
check nccl-allgather-ompi5-tag.log 6 "6 rows from nccl-tests (allgather), world 8 on 1 node"
check osu_allreduce-srun-label.txt 3 "3 rows from osu (allreduce), world 16" --np 16
check imb-allreduce-srun-label.txt 3 "3 rows from imb (allreduce), world 4"
check all_reduce_perf-no-banner.log 6 "6 rows from nccl-tests (allreduce), world 8"
check osu_bw-no-title.txt 3 "3 rows from osu (sendrecv), world 2"
check osu_allreduce-cuda-v5.7.txt 4 "4 rows from osu (allreduce), world 8" --np 8
check osu_latency-rocm-v7.3.txt 3 "3 rows from osu (sendrecv), world 2"

# the failed run: refused, exit 2, one line naming file:line and the failure
failed=nccl-allreduce-failed.log
out=$("$pb" import "$fix/$failed" --csv "$work/failed.csv" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "$failed: exit $rc, expected 2: $out"
[ "$(printf '%s\n' "$out" | grep -c '^parbench:')" -eq 1 ] || fail "$failed: not one line: $out"
printf '%s\n' "$out" | grep -q "^parbench: $failed:21: the run failed: .*Test NCCL failure common.cu:514" ||
    fail "$failed: message: $out"
# --partial: the 6 rows before it, the failure named once
check "$failed" 6 "6 rows from nccl-tests (allreduce), world 8 on 2 nodes" --partial
[ "$(printf '%s\n' "$out" | grep -c 'the run failed')" -eq 1 ] || fail "$failed --partial: $out"
printf '%s\n' "$out" | grep -q "# $fix/$failed: the run failed, the rows before it kept (--partial): $failed:21: .*Test NCCL failure common.cu:514" ||
    fail "$failed --partial: the failure not named: $out"

# a line of 1 MiB + 1 characters: refused with file:line
big="$work/big.log"
{
    echo '# OSU MPI Latency Test v7.3'
    printf '#'
    head -c 1048576 /dev/zero | tr '\0' x
    printf '\n# Size          Latency (us)\n8    1.52\n'
} >"$big"
out=$("$pb" import "$big" --csv "$work/big.csv" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "big.log: exit $rc, expected 2: $out"
printf '%s\n' "$out" | grep -q '^parbench: big.log:2: line longer than 1048576 characters$' ||
    fail "big.log: message: $out"
echo "ok: the real-world log forms import"
