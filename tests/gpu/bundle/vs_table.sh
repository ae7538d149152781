#!/usr/bin/env bash
# vs_table.sh PARBENCH.csv NCCL_TESTS.csv [TOL_PCT] [MIN_BYTES] [NCCL_TESTS2.csv]
# - parbench's NCCL times beside nccl-tests' on the same GPU, size by
# size: the gate of the GPU acceptance run (doc/gpus.md).
#
# PARBENCH.csv: `parbench coll --backend nccl --mode throughput --place out
# --csv`; NCCL_TESTS.csv: nccl-tests logs read by `parbench import` (backend
# nccl-tests).  Both are parbench's result schema (reports/pb_csv_schema.c),
# so the columns are found by name in the header.  Compared: out-of-place
# rows only (nccl-tests prints both, parbench writes what --place asks for),
# the median time of parbench's throughput samples against nccl-tests' time
# (the mean over its -n iterations of a back-to-back batch), matched on
# collective, size and type.  Times, not bus bandwidth: at one rank
# nccl-tests prints busbw 0 for all-reduce.
#
# A size is judged when it is at least MIN_BYTES (default 1 MiB) and
# nccl-tests took at least twice as long there as at its fastest size of
# that collective: below that the time is mostly each tool's fixed cost
# per operation (host launch), not data moved, and the two tools' launch
# paths differ by design (on one H200 parbench issued a one-GPU operation
# every 4.7 us, nccl-tests every 7.4-8.3 us, flat from 1 to 4 MiB).  The
# rest are shown, not judged.  A judged size passes when the two times
# are within TOL_PCT (default 5) percent of each other; one that only one
# side measured fails.  NCCL_TESTS2.csv: nccl-tests run again (the runs
# alternating with parbench's, as this project compares speeds): its time
# is then the two runs' mean, and a size passes within TOL_PCT or within
# how far nccl-tests' own two runs lie apart, whichever is wider: a gate
# cannot ask parbench to agree with nccl-tests more closely than
# nccl-tests agrees with itself.
# Exit 0: every judged size passed (and there was one); 1: one did not;
# 2: a file is missing or not a results CSV.
set -u
[ $# -ge 2 ] || { echo "usage: $0 PARBENCH.csv NCCL_TESTS.csv [TOL_PCT] [MIN_BYTES] [NCCL_TESTS2.csv]" >&2; exit 2; }
PBF=$1 NTF=$2 TOL=${3:-5} MINB=${4:-1048576} NT2=${5:-}
for f in "$PBF" "$NTF" ${NT2:+"$NT2"}; do
    [ -s "$f" ] || { echo "vs_table: $f: missing or empty" >&2; exit 2; }
done

awk -v tol="$TOL" -v minb="$MINB" -v pbf="$PBF" -v ntf="$NTF" -v nt2f="$NT2" '
# one CSV line into f[1..n]: quoted fields may hold commas and "" quotes
function split_csv(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c != "\"") cur = cur c
            else if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
            else q = 0
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}
# FILE, BACKEND, SIDE: the out-of-place rows of BACKEND; the last row of a
# (collective, bytes, dtype) wins, as in parbench compare
function load(file, backend, side,    line, f, n, i, col, k, rows) {
    if ((getline line < file) <= 0) { print "vs_table: " file ": empty" > "/dev/stderr"; exit 2 }
    sub(/\r$/, "", line)
    n = split_csv(line, f)
    for (i = 1; i <= n; i++) col[f[i]] = i
    if (!("backend" in col) || !("time_us_median" in col) || !("in_place" in col)) {
        print "vs_table: " file ": not a parbench results CSV (no backend, in_place or time_us_median column)" > "/dev/stderr"
        exit 2
    }
    rows = 0
    while ((getline line < file) > 0) {
        sub(/\r$/, "", line)
        if (line == "") continue
        split_csv(line, f)
        if (f[col["backend"]] != backend || f[col["in_place"]] != "0") continue
        if (side == "pb" && f[col["mode"]] != "throughput") continue
        k = f[col["collective"]] SUBSEP f[col["bytes"]] SUBSEP f[col["dtype"]]
        t[side, k] = f[col["time_us_median"]] + 0
        keys[k] = 1
        rows++
    }
    close(file)
    return rows
}
BEGIN {
    npb = load(pbf, "nccl", "pb")
    nnt = load(ntf, "nccl-tests", "nt")
    if (nt2f != "") nnt2 = load(nt2f, "nccl-tests", "nt2")
    printf "# parbench (%s, %d rows) vs nccl-tests (%s, %d rows%s): out-of-place, time in us\n", pbf, npb, ntf, nnt, nt2f != "" ? sprintf("; again: %s, %d rows", nt2f, nnt2) : ""
    printf "# ratio = parbench / nccl-tests%s; PASS within %g %%%s at >= %.0f B where nccl-tests took >= 2 x its fastest time; the rest shown, not judged\n", nt2f != "" ? " (mean of its two runs)" : "", tol, nt2f != "" ? " or the spread of nccl-tests\047 two runs (spread%), the wider" : "", minb
    printf "%-10s %-8s %12s %12s %12s %7s %7s %7s  %s\n", "collective", "dtype", "bytes", "parbench_us", "nccltests_us", "ratio", "diff%", "spread%", "result"
    # sorted by collective, dtype, then size (keys have no order in awk)
    m = 0
    for (k in keys) { split(k, p, SUBSEP); srt[++m] = sprintf("%s %s %020.0f", p[1], p[3], p[2]) SUBSEP k }
    for (i = 2; i <= m; i++) { v = srt[i]; for (j = i - 1; j >= 1 && srt[j] > v; j--) srt[j + 1] = srt[j]; srt[j + 1] = v }
    # the fastest nccl-tests time of each collective (the mean of two runs)
    for (k in keys) {
        split(k, p, SUBSEP); c = p[1] SUBSEP p[3]
        v = (("nt" SUBSEP k) in t) ? t["nt", k] : 0
        if (nt2f != "" && ("nt2" SUBSEP k) in t && v > 0) v = (v + t["nt2", k]) / 2
        if (v > 0 && (!(c in floor) || v < floor[c])) floor[c] = v
    }
    judged = bad = 0
    for (i = 1; i <= m; i++) {
        split(srt[i], q, SUBSEP); k = q[2] SUBSEP q[3] SUBSEP q[4]
        split(k, p, SUBSEP); bytes = p[2] + 0
        a = ((("pb" SUBSEP k) in t) ? t["pb", k] : -1); b = ((("nt" SUBSEP k) in t) ? t["nt", k] : -1)
        b2 = nt2f == "" ? 0 : ((("nt2" SUBSEP k) in t) ? t["nt2", k] : -1)
        judge = bytes >= minb
        if (a <= 0 || b <= 0 || b2 < 0) {
            res = judge ? "FAIL (only " (a > 0 ? "parbench" : "nccl-tests") " measured it)" : "-"
            if (a > 0 && b > 0) res = judge ? "FAIL (nccl-tests measured it once)" : "-"
            printf "%-10s %-8s %12.0f %12s %12s %7s %7s %7s  %s\n", p[1], p[3], bytes, (a > 0 ? sprintf("%.2f", a) : "-"), (b > 0 ? sprintf("%.2f", b) : "-"), "-", "-", "-", res
        } else {
            # two runs: their mean, and how far apart they lie (% of it)
            spread = 0
            if (b2 > 0) { m2 = (b + b2) / 2; spread = 100 * (b > b2 ? b - b2 : b2 - b) / m2; b = m2 }
            lim = spread > tol ? spread : tol
            r = a / b; d = 100 * (r - 1)
            launch = judge && b < 2 * floor[p[1], p[3]]
            if (launch) judge = 0
            res = launch ? sprintf("(launch-bound: < 2 x %.2f us, not judged)", floor[p[1], p[3]]) : !judge ? "(not judged)" : (d <= lim && d >= -lim ? "PASS" : "FAIL")
            printf "%-10s %-8s %12.0f %12.2f %12.2f %7.3f %+7.1f %7.1f  %s\n", p[1], p[3], bytes, a, b, r, d, spread, res
        }
        if (judge) { judged++; if (res != "PASS") bad++ }
    }
    if (judged == 0) { print "# verdict: FAIL (no size >= " minb " B measured by either side)"; exit 1 }
    printf "# verdict: %s (%d of %d sizes >= %.0f B outside %g %%%s)\n", bad ? "FAIL" : "PASS", bad, judged, minb, tol, nt2f != "" ? " or nccl-tests\047 spread" : ""
    exit bad ? 1 : 0
}'
