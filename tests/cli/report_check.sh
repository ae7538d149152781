#!/usr/bin/env bash
# report_check.sh PARBENCH SRCDIR OUTDIR
# The report of the fixture results (tests/fixtures/report: a real 2-rank
# main-job run, plus hand-written "model" step rows of two layouts) is
# well-formed XHTML with its SVG (xmllint --noout) and has one bandwidth
# plot per collective in the file, each followed by its latency plot on
# log-log axes; --log-bw puts bandwidth on a log axis.
set -eu
pb=$1 src=$2 out=$3
fx=$src/tests/fixtures/report
mkdir -p "$out"
# the text of plot ID's labels (PLplot writes each as character references
# in a <tspan>; xmllint reads them back), one a line
texts() { xmllint --xpath "//*[@id='$1']//*[local-name()='tspan']/text()" "$2"; }
# plot ID's y tick labels (the plain numbers: 0.1, 1, 10, 100, 1e3 ...)
# are decades: each 10 x the one before, the first at or below MIN, the
# last at or above MAX
decades() {
    texts "$1" "$2" | grep -E '^([0-9.]+|1e-?[0-9]+)$' | awk -v lo="$3" -v hi="$4" -v id="$1" '
        NR > 1 && ($1 / prev < 9.999 || $1 / prev > 10.001) { bad = 1 }
        NR == 1 { first = $1 } { prev = $1; n++ }
        END { if (bad || n < 3 || first > lo + 0 || prev < hi + 0) {
                  printf "FAIL: %s y labels not decades over %s .. %s\n", id, lo, hi; exit 1 } }' ||
        { texts "$1" "$2" | grep -E '^([0-9.]+|1e-?[0-9]+)$' | tr '\n' ' '; echo; exit 1; }
}
"$pb" report "$fx/results.csv" "$fx/calib.csv" --pairs "$fx/pairs.csv" -o "$out/report.html"
xmllint --noout "$out/report.html"
# the fixture's communication collectives, counted by hand: allreduce,
# allgather, reducescatter, alltoall, alltoallv, broadcast, reduce, sendrecv
plots=$(grep -o 'id="busbw-[a-z]*"' "$out/report.html" | sort -u | wc -l)
[ "$plots" -eq 8 ] || { echo "FAIL: $plots bandwidth plots, expected 8"; exit 1; }
# and right after each, its latency plot (issue 35), one <svg> in each
for c in allreduce allgather reducescatter alltoall alltoallv broadcast reduce sendrecv; do
    next=$(xmllint --xpath "string(//*[@id='busbw-$c']/following-sibling::*[1]/@id)" "$out/report.html")
    [ "$next" = "latency-$c" ] || { echo "FAIL: after busbw-$c comes '$next', not latency-$c"; exit 1; }
    n=$(xmllint --xpath "count(//*[@id='latency-$c']/*[local-name()='svg'])" "$out/report.html")
    [ "$n" -eq 1 ] || { echo "FAIL: latency-$c holds $n <svg>"; exit 1; }
    texts "latency-$c" "$out/report.html" | grep -qx "$c: latency vs size" ||
        { echo "FAIL: latency-$c has no title"; exit 1; }
done
# 8 bandwidth plots + 8 latency plots + the step time bar + the memory bar
svgs=$(grep -o '<svg' "$out/report.html" | wc -l)
[ "$svgs" -eq 18 ] || { echo "FAIL: $svgs <svg> elements, expected 18"; exit 1; }
# Log axes.  The fixture's broadcast (18 rows, 8 B .. 1 MiB, pattern coll)
# has medians from 0.784 us (8 B) to 60.523 us (1 MiB) and bus bandwidth
# from 0.0101 to 22.07 GB/s (read here from the file, columns 18 and 22).
bc() { awk -F, -v col="$1" 'NR>1{gsub(/"/,""); if($9=="broadcast") print $col}' "$fx/results.csv" | sort -g; }
tmin=$(bc 18 | head -1) tmax=$(bc 18 | tail -1) bmin=$(bc 22 | head -1) bmax=$(bc 22 | tail -1)
# latency: log-log.  The x axis is the bandwidth plot's (sizes 16 B ..
# 1 MiB); the y labels are whole decades covering the medians, so 1, 10
# and 100 us are there
lat=$(texts latency-broadcast "$out/report.html")
for l in "16 B" "1 MiB" "median time (us)" "size (largest per-rank buffer)" 1 10 100; do
    printf '%s\n' "$lat" | grep -qx "$l" || { echo "FAIL: latency-broadcast has no '$l'"; exit 1; }
done
decades latency-broadcast "$out/report.html" "$tmin" "$tmax"
# bandwidth: linear from 0 by default (PLplot's 0 5 10 15 20 25: not decades)
yb=$(texts busbw-broadcast "$out/report.html" | grep -E '^[0-9.]+$' | head -2 | tr '\n' ' ')
[ "$yb" = "0 5 " ] || { echo "FAIL: busbw-broadcast's y labels start '$yb', expected linear '0 5'"; exit 1; }
# calib.csv has allreduce and allgather pieces: their fit tables
fits=$(grep -c '<th>fit error</th>' "$out/report.html")
[ "$fits" -eq 2 ] || { echo "FAIL: $fits fit tables, expected 2"; exit 1; }
# no network, no scripts
! grep -Eq '<script|https?://[^"]*\.(js|css|png)' "$out/report.html" || { echo "FAIL: external"; exit 1; }
# without calib.csv and pairs: still well-formed, and says what is missing
"$pb" report "$fx/results.csv" -o "$out/bare.html"
xmllint --noout "$out/bare.html"
grep -q 'No calibration given' "$out/bare.html"
grep -q 'No topology pairs given' "$out/bare.html"
# --log-bw: the bandwidth axis in decades too, and the page says so
"$pb" report "$fx/results.csv" --log-bw -q -o "$out/logbw.html"
xmllint --noout "$out/logbw.html"
decades busbw-broadcast "$out/logbw.html" "$bmin" "$bmax"
grep -q 'log-scale bandwidth axis' "$out/logbw.html" || { echo "FAIL: --log-bw not said"; exit 1; }
! grep -q 'log-scale bandwidth axis' "$out/report.html" || { echo "FAIL: log said without --log-bw"; exit 1; }
echo "ok: $plots bandwidth and latency plots, $svgs svg elements, $fits fit tables, log axes"
