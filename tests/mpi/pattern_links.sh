#!/bin/sh
# pattern_links.sh CSV [GROUP=CLASS | GROUP!=CLASS]... -- CMD...
# Runs CMD (a pattern run that writes CSV with --csv CSV), then reads the
# CSV back: it must hold pattern rows (pattern tp, sp, pp, dp, ep or cp),
# every one with a non-empty link_class (column 12 of the stable schema,
# doc/design.md "CSV schema"), the group's slowest link as `coll` rows carry it.
# Each GROUP=CLASS (GROUP!=CLASS) asserts that every row of that group
# kind (column 10) has (has not) that class.  Exit 77 from CMD (a skipped
# launch) is passed on.
set -u
csv=$1
shift
want=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    want="$want $1"
    shift
done
[ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
    echo "FAIL: usage: pattern_links.sh CSV [GROUP=CLASS]... -- CMD..." >&2
    exit 2
fi
rm -f "$csv"
"$@"
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: the pattern run exited $rc"; exit 1; }
[ -r "$csv" ] || { echo "FAIL: no CSV at $csv"; exit 1; }
# fields are quoted strings without commas, or numbers: split on commas
awk -F, -v want="$want" '
function unq(s) { gsub(/"/, "", s); return s }
BEGIN { nw = split(want, w, " "); fail = 0 }
NR == 1 { next } # the header
unq($8) ~ /^(tp|sp|pp|dp|ep|cp)$/ {
    rows++
    grp = unq($10); cls = unq($12)
    seen[grp]++
    printf "%s row: %s %s group %s of %s ranks: link_class \"%s\"\n", unq($8), unq($9), unq($13), grp, $11, cls
    if (cls == "") { print "FAIL: a " unq($8) " row without link_class"; fail = 1 }
    for (i = 1; i <= nw; i++) {
        neg = index(w[i], "!=") > 0
        split(w[i], kv, neg ? "!=" : "=")
        if (kv[1] != grp)
            continue
        if (!neg && cls != kv[2]) { print "FAIL: group " grp " has " cls ", expected " kv[2]; fail = 1 }
        if (neg && cls == kv[2]) { print "FAIL: group " grp " has " cls ", expected anything else"; fail = 1 }
    }
}
END {
    if (rows == 0) { print "FAIL: no pattern rows"; fail = 1 }
    for (i = 1; i <= nw; i++) {
        split(w[i], kv, "!?=")
        if (!(kv[1] in seen)) { print "FAIL: no row of group " kv[1]; fail = 1 }
    }
    if (!fail) print "ok: " rows " pattern rows, each with its link class"
    exit fail
}' "$csv"
