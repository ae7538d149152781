#!/usr/bin/env bash
# compare_missing.sh PARBENCH SRCDIR: a row present on one side only is
# listed under its file and fails the gate (exit 1, one line counting both
# sides), unless --allow-missing, which lists it and passes.
set -u
pb=$1 fx=$2/tests/fixtures/compare
out=$("$pb" compare "$fx/base.csv" "$fx/missing.csv" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; echo "$out"; exit 1; }
printf '%s\n' "$out" | grep -q "^# only in $fx/base.csv (1 row):" || { echo "FAIL: no list"; echo "$out"; exit 1; }
printf '%s\n' "$out" | grep -Eq '^  coll +allgather +world +2 +8 ' || { echo "FAIL: row not listed"; echo "$out"; exit 1; }
# base.csv has 3 rows, missing.csv the 2 of them that match
want="^parbench: 1 row of $fx/base.csv has no match in $fx/missing.csv and 0 of $fx/missing.csv none in $fx/base.csv \\(--allow-missing accepts rows on one side only\\)$"
[ "$(printf '%s\n' "$out" | grep -c '^parbench:')" -eq 1 ] || { echo "FAIL: not one line"; echo "$out"; exit 1; }
printf '%s\n' "$out" | grep -Eq "$want" || { echo "FAIL: message"; echo "$out"; exit 1; }
# --allow-missing: listed, and the gate passes
out=$("$pb" compare "$fx/base.csv" "$fx/missing.csv" --allow-missing 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: --allow-missing exit $rc"; echo "$out"; exit 1; }
printf '%s\n' "$out" | grep -q "^# only in $fx/base.csv (1 row):" || { echo "FAIL: no list with --allow-missing"; exit 1; }
# the other way round: the row is new, and fails the gate the same way
out=$("$pb" compare "$fx/missing.csv" "$fx/base.csv" 2>&1)
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: new row: exit $rc, expected 1"; exit 1; }
printf '%s\n' "$out" | grep -q "^# only in $fx/base.csv (1 row):" || { echo "FAIL: new row not listed"; exit 1; }
printf '%s\n' "$out" | grep -q "and 1 of $fx/base.csv none in $fx/missing.csv" || { echo "FAIL: new row not counted"; echo "$out"; exit 1; }
echo ok
