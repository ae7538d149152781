#!/usr/bin/env bash
# compare_missing.sh PARBENCH SRCDIR: a row present on one side only is
# listed under its file, and does not by itself fail the gate.
set -u
pb=$1 fx=$2/tests/fixtures/compare
out=$("$pb" compare "$fx/base.csv" "$fx/missing.csv")
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
printf '%s\n' "$out" | grep -q "^# only in $fx/base.csv (1 row):" || { echo "FAIL: no list"; echo "$out"; exit 1; }
printf '%s\n' "$out" | grep -Eq '^  coll +allgather +world +2 +8 ' || { echo "FAIL: row not listed"; echo "$out"; exit 1; }
# the other way round: the row is new
out=$("$pb" compare "$fx/missing.csv" "$fx/base.csv")
printf '%s\n' "$out" | grep -q "^# only in $fx/base.csv (1 row):" || { echo "FAIL: new row not listed"; exit 1; }
echo ok
