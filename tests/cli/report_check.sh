#!/usr/bin/env bash
# report_check.sh PARBENCH SRCDIR OUTDIR
# The report of the fixture results (tests/fixtures/report: a real 2-rank
# main-job run, plus hand-written "model" step rows of two layouts) is
# well-formed XHTML with its SVG (xmllint --noout) and has one bandwidth
# plot per collective in the file.
set -eu
pb=$1 src=$2 out=$3
fx=$src/tests/fixtures/report
mkdir -p "$out"
"$pb" report "$fx/results.csv" "$fx/calib.csv" --pairs "$fx/pairs.csv" -o "$out/report.html"
xmllint --noout "$out/report.html"
# the fixture's communication collectives, counted by hand: allreduce,
# allgather, reducescatter, alltoall, alltoallv, broadcast, reduce, sendrecv
plots=$(grep -o 'id="busbw-[a-z]*"' "$out/report.html" | sort -u | wc -l)
[ "$plots" -eq 8 ] || { echo "FAIL: $plots bandwidth plots, expected 8"; exit 1; }
# 8 bandwidth plots + the step time bar + the memory bar
svgs=$(grep -o '<svg' "$out/report.html" | wc -l)
[ "$svgs" -eq 10 ] || { echo "FAIL: $svgs <svg> elements, expected 10"; exit 1; }
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
echo "ok: $plots plots, $svgs svg elements, $fits fit tables"
