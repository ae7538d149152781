#!/usr/bin/env bash
# split_script_check.sh BUILD_DIR - bench/perf/main_job_split.sh still runs
# and its numbers add up: one short main job (two collectives to 64 KiB),
# the table's rows present, every part >= 0, the sweep's parts summing to
# its total (by construction: "other" is the rest), the sweep inside its
# step (nested intervals on one rank's clock, so never timing luck).
# Structure only: how the seconds split is the benchmark's business,
# never a test's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(MAIN_ARGS="--op allreduce,broadcast -e 64K" "$here/../../bench/perf/main_job_split.sh" "$1" 1 2>&1)
rc=$?
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"; exit 1; }
[ "$rc" -eq 0 ] || fail "exit code $rc"
for k in wall launch mpi_init step_collective_sweep sweep_total sweep_timed sweep_median_ops \
         sweep_setup sweep_warmup sweep_sampling sweep_verify sweep_other csv_rows; do
  printf '%s\n' "$out" | grep -qE "^$k +[0-9.]+ +[0-9.]+$" || fail "no row $k"
done
printf '%s\n' "$out" | awk '
  $1 ~ /^(sweep|step|mpi|setup|wall|csv)/ { v[$1] = $NF; if ($NF < 0) bad = bad " " $1 }
  END {
    if (bad != "") { print "negative:" bad; exit 1 }
    s = 0; split("setup warmup sampling rounds harness verify agree emit stopcheck other", p, " ")
    for (i = 1; i in p; i++) s += v["sweep_" p[i]]
    # 10 parts printed to the millisecond: 0.005 s of rounding at most
    if (s < v["sweep_total"] - 0.006 || s > v["sweep_total"] + 0.006) { print "parts " s " != total " v["sweep_total"]; exit 1 }
    if (v["sweep_total"] > v["step_collective_sweep"] + 0.001) { print "sweep longer than its step"; exit 1 }
    if (v["csv_rows"] < 1) { print "no rows"; exit 1 } }' || fail "the numbers do not add up"
printf 'ok\n'
