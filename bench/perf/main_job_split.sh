#!/usr/bin/env bash
# main_job_split.sh [BUILD_DIR] [RUNS] - where the main job's wall time
# goes (issue 35): inside the timed operations, and around them.
#
# Runs the main job (`parbench` with no command, its own output folder)
# RUNS times (default 3) with PARBENCH_PHASES=1, which makes rank 0 print
# "# phases ..." lines (bench/run/pb_wall.h): MPI_Init and MPI_Finalize,
# the set-up before the first step (watchdog, output folder, topology,
# node map, backend), each step of the main job, and inside the
# collective sweep:
#   timed      the slowest rank's samples x batch, summed: the time inside
#              the timed operations
#   median_ops the sum over rows of median x operations (results.csv's
#              view of the same time, as issue 35 counted it)
#   setup      geometry, output poisoning and input fill before timing
#   warmup     the untimed operations before the samples
#   sampling   the sample loops; sampling - timed is the barrier before
#              each sample and the clock reads
#   rounds     between rounds: the samples' reduction and the stop rule
#   harness    the rest of the harness (sample arrays)
#   verify     the check of the outputs (and, where the operation rewrites
#              its own input, the refill and the extra run it needs)
#   agree      the sum of the wrong counts over the ranks (mostly waiting
#              for the slower rank's check)
#   emit       the row (CSV, table line); stopcheck the signal check
# launch = the wall time seen from here less everything the ranks
# counted (mpirun starting the ranks, loading, exit).
#
# MAIN_ARGS adds options to the main job (the test runs a short one:
# tests/mpi/split_script_check.sh).
#
# The split is rank 0's; the clock reads are per measurement and per
# round, never per sample.  Each run prints one line, then the median of
# each column over the runs; on this 2-core VM a run is one sample of the
# machine's state, so compare two builds with alternating runs, not with
# runs taken minutes apart.
set -euo pipefail
build=${1:-build}
runs=${2:-3}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one run: the "# phases" lines and results.csv become one record of
# name=value pairs
one() {
  local out="$tmp/run$1" t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086  # MAIN_ARGS is a list of options
  PARBENCH_PHASES=1 "$build/parbench" -o "$out" ${MAIN_ARGS:-} >"$tmp/log$1" 2>&1
  t1=$(date +%s.%N)
  awk -v wall="$(echo "$t1 - $t0" | bc)" -v csv="$out/results.csv" '
    /^# phases mpi: init/     { v["mpi_init"] = $5 }
    /^# phases mpi: finalize/ { v["mpi_fini"] = $5 }
    /^# phases set-up:/       { v["setup_ctx"] = $NF }
    /^# phases main job:/     { for (i = 5; i < NF; i += 2) v["step_" $i] = $(i + 1) }
    /^# phases sweep: rows/   { for (i = 4; i < NF; i += 2) v["sweep_" $i] = $(i + 1) }
    END {
      ranks = v["mpi_init"] + v["mpi_fini"] + v["setup_ctx"]
      for (k in v) if (k ~ /^step_/) ranks += v[k]
      v["wall"] = wall; v["launch"] = wall - ranks
      # results.csv: the sum of median x iters over every row (issue 35)
      FS = ","
      while ((getline line < csv) > 0) {
        n = split(line, f, ","); gsub(/"/, "", f[16]); gsub(/"/, "", f[18])
        if (f[16] ~ /^[0-9]+$/) { rows++; mi += f[16] * f[18] / 1e6 } }
      v["csv_rows"] = rows; v["csv_median_iters"] = mi
      for (k in v) printf "%s=%s ", k, v[k]; printf "\n" }' "$tmp/log$1"
}

for ((r = 0; r < runs; r++)); do one "$r"; done | tee "$tmp/all" >/dev/null

# the medians over the runs, in a fixed order
awk '
  function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]
      for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { for (i = 1; i <= NF; i++) { split($i, kv, "="); val[kv[1], NR] = kv[2]; key[kv[1]] = 1 } }
  END {
    n = NR
    split("wall launch mpi_init setup_ctx step_topology step_collective_sweep " \
          "step_pattern_suite step_calibration step_reference_step step_report mpi_fini " \
          "sweep_total sweep_timed sweep_median_ops sweep_setup sweep_warmup sweep_sampling " \
          "sweep_rounds sweep_harness sweep_verify sweep_agree sweep_emit sweep_stopcheck " \
          "sweep_other csv_rows csv_median_iters", order, " ")
    printf "# %d runs of the main job; seconds, per run and the median\n", n
    printf "%-22s", "part"; for (r = 1; r <= n; r++) printf " %9s", "run" r; printf " %9s\n", "median"
    for (o = 1; o in order; o++) {
      k = order[o]; if (!(k in key)) continue
      for (r = 1; r <= n; r++) a[r] = val[k, r]
      printf "%-22s", k; for (r = 1; r <= n; r++) printf " %9.3f", a[r]; m[k] = med(a, n)
      printf " %9.3f\n", m[k] }
    for (r = 1; r <= n; r++) { t[r] = val["sweep_total", r] / val["sweep_timed", r]
                               u[r] = val["sweep_total", r] / val["sweep_median_ops", r]
                               w[r] = val["wall", r] / val["csv_median_iters", r] }
    printf "%-22s", "sweep/timed"; for (r = 1; r <= n; r++) printf " %9.2f", t[r]; printf " %9.2f\n", med(t, n)
    printf "%-22s", "sweep/median_ops"; for (r = 1; r <= n; r++) printf " %9.2f", u[r]; printf " %9.2f\n", med(u, n)
    printf "%-22s", "wall/csv_median_iters"; for (r = 1; r <= n; r++) printf " %9.2f", w[r]; printf " %9.2f\n", med(w, n)
  }' "$tmp/all"
