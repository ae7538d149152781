#!/usr/bin/env bash
# report_imported.sh PARBENCH SRCDIR OUTDIR: the report of imported logs
# (issue 50), from tests/fixtures/report/imported.csv and
# imported_calib.csv (gen_imported.py says how every number there was
# made; the expected values below are worked out in its docstring):
#   - "measured (UTC)" names the logs, which carry no time, instead of
#     " .. ";
#   - each fitted piece (link class LOCAL, what calibrate calls rows
#     without a class) counts the imported rows' 6 distinct sizes and
#     their worst |measured - model| / model: 10.0 %, 6.7 %, 5.0 %, never
#     "0" and "n/a 0.0 %"; the model's dashed curves are drawn;
#   - the latency plot's y labels are numbers of at most 4 characters
#     (1, 10, 100, 1e3 ...) in whole decades from 10 (the fastest median,
#     10.0001 us at 8 B, n=8) to 1e5 (the slowest, 20 + 268435456 / 25e3
#     + 1 = 10758.4 us at 256 MiB, n=32): no decade beyond the data's own,
#     where the axis once ran to 1e8 (1e12 with more lines).
set -eu
pb=$1 src=$2 out=$3
fx=$src/tests/fixtures/report
mkdir -p "$out"
html=$out/imported.html
"$pb" report "$fx/imported.csv" "$fx/imported_calib.csv" --all-runs -q -o "$html"
xmllint --noout "$html"
fail() { echo "FAIL: $*"; exit 1; }
x() { xmllint --xpath "$1" "$html"; }
# (the page is XHTML: its elements are in a namespace, named by local-name)
e() { printf "*[local-name()='%s']" "$1"; }
when=$(x "string(//$(e tr)[$(e th)='measured (UTC)']/$(e td))")
[ "$when" = "imported from a.log, b.log, c.log" ] || fail "measured (UTC) is '$when'"
# the fit table: group size, measured sizes, worst error per piece
fits=$(x "//$(e table)[$(e tr)/$(e th)='fit error']/$(e tr)[$(e td)]" |
    sed 's/<[^>]*>/|/g; s/||*/|/g')
for want in "|8|LOCAL|float|8 B .. 256 MiB|10|100|0.0 %|6|10.0 %|" \
            "|16|LOCAL|float|8 B .. 256 MiB|15|50|0.0 %|6|6.7 %|" \
            "|32|LOCAL|float|8 B .. 256 MiB|20|25|0.0 %|6|5.0 %|"; do
    printf '%s\n' "$fits" | grep -qxF "$want" || fail "no fit row $want in: $fits"
done
! grep -q 'n/a' "$html" || fail "n/a in the page"
# the model is drawn: its legend entries, one per line (6 lines)
labels() { xmllint --xpath "//*[@id='$1']//*[local-name()='tspan']/text()" "$html"; }
n=$(labels latency-allreduce | grep -c '^model n=')
[ "$n" -eq 6 ] || fail "$n model curves in latency-allreduce, expected 6"
# the y labels: after the x labels (sizes end in B) and before the title
y=$(labels latency-allreduce | grep -Ev ' B$|iB$' | sed '/latency vs size/,$d' | tr '\n' ' ')
[ "$y" = "10 100 1e3 1e4 1e5 " ] || fail "latency y labels '$y', expected '10 100 1e3 1e4 1e5 '"
# every y label of every plot of the page: a number of at most 4 characters
for id in $(grep -o 'id="\(latency\|busbw\)-[a-z]*"' "$html" | sed 's/id="//; s/"//'); do
    labels "$id" | grep -Ev ' B$|iB$' | sed '/ vs size$/,$d' | while read -r l; do
        printf '%s\n' "$l" | grep -Eqx '[0-9]+(\.[0-9]+)?|1e-?[0-9]+' || fail "$id: label '$l'"
        [ "${#l}" -le 4 ] || fail "$id: label '$l' longer than 4 characters"
    done
done
echo "ok: imported from the logs, 3 fit rows with 6 sizes, 6 model curves, y 10 .. 1e5"
