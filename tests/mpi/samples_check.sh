#!/bin/sh
# samples_check.sh ROWS.csv SAMPLES.csv WORLD -- CMD...
# Runs CMD (a run writing --csv ROWS.csv --samples SAMPLES.csv on WORLD
# ranks), then checks the samples file against the rows it stands behind:
# - the header is the documented one (reports/pb_samples_csv.h);
# - every result row has iters x WORLD sample lines (latency mode: one
#   operation per sample), ranks 0..WORLD-1 in each sample;
# - in each sample exactly one rank is marked slowest, and it holds the
#   sample's largest time;
# - over a row's samples, the smallest and largest of the slowest ranks'
#   times are the row's time_us_min and time_us_max, and with an odd
#   count the middle one is its time_us_median (the row's statistics are
#   taken over exactly these values; 1 ns printing and the row's 4
#   significant digits allow 0.2 % + 2 ns).
# Exit 77 from CMD (a skipped launch) is passed on.
set -u
rows=$1 samples=$2 world=$3
shift 3
[ "${1:-}" = "--" ] && shift
rm -f "$rows" "$samples"
"$@"
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: the run exited $rc"; exit 1; }
want="run_id,pattern,collective,group,bytes,dtype,in_place,mode,sample,rank,time_us,slowest"
got=$(head -1 "$samples")
[ "$got" = "$want" ] || { echo "FAIL: header '$got'"; exit 1; }
# strings are quoted without commas, numbers bare: split on commas.  Keys
# join pattern, collective, group, bytes, in_place.
awk -F, -v world="$world" '
function unq(s) { gsub(/"/, "", s); return s }
function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 0.002 * (b < 0 ? -b : b) + 0.002 }
FNR == 1 { file++; if (file == 1) for (i = 1; i <= NF; i++) col[unq($i)] = i; next }
file == 1 {
    k = unq($col["pattern"]) "/" unq($col["collective"]) "/" unq($col["group"]) "/" $col["bytes"] "/" $col["in_place"]
    nrow++; rowkey[nrow] = k; iters[k] = $col["iters"]
    tmin[k] = $col["time_us_min"]; tmed[k] = $col["time_us_median"]; tmax[k] = $col["time_us_max"]
    next
}
{
    k = unq($2) "/" unq($3) "/" unq($4) "/" $5 "/" $7
    s = k "#" $9
    lines[k]++; per[s]++; ranks[s] = ranks[s] " " $10
    if ($12 == 1) { nslow[s]++; slow[s] = $11 }
    if (!(s in top) || $11 > top[s]) top[s] = $11
    if (!(k in seen)) { seen[k] = 1; nk++ }
    n[k] = ($9 + 1 > n[k]) ? $9 + 1 : n[k]
}
END {
    fail = 0
    if (nrow == 0) { print "FAIL: no result rows"; exit 1 }
    if (nk != nrow) { printf "FAIL: %d rows but samples for %d\n", nrow, nk; fail = 1 }
    for (r = 1; r <= nrow; r++) {
        k = rowkey[r]
        if (lines[k] != iters[k] * world) {
            printf "FAIL: %s: %d sample lines, want %d x %d\n", k, lines[k], iters[k], world; fail = 1; continue
        }
        m = 0
        for (i = 0; i < n[k]; i++) {
            s = k "#" i
            if (per[s] != world || nslow[s] != 1 || slow[s] != top[s]) {
                printf "FAIL: %s sample %d: %d ranks (%s), %d marked slowest\n", k, i, per[s], ranks[s], nslow[s]; fail = 1
            }
            v[++m] = slow[s]
        }
        # sort the slowest times (insertion: a handful of samples)
        for (i = 2; i <= m; i++) { x = v[i]; j = i - 1; while (j > 0 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
        if (!near(v[1], tmin[k]) || !near(v[m], tmax[k]) || (m % 2 && !near(v[(m + 1) / 2], tmed[k]))) {
            printf "FAIL: %s: samples min/median/max %s/%s/%s, row %s/%s/%s\n", k, v[1], v[(m + 1) / 2], v[m], tmin[k], tmed[k], tmax[k]; fail = 1
        } else
            printf "%s: %d samples x %d ranks; min %s median %s max %s as the row\n", k, m, world, v[1], v[(m + 1) / 2], v[m]
    }
    exit fail
}' "$rows" "$samples"
