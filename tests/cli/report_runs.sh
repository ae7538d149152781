#!/usr/bin/env bash
# report_runs.sh PARBENCH SRCDIR: a results file that holds two runs (r1,
# then r2 appended: tests/fixtures/compare's base.csv and slow.csv) is
# drawn one run at a time - the newest by default, --run r1 the other,
# --all-runs both - so that no page adds up two runs.
set -u
pb=$1 fx=$2/tests/fixtures/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ cat "$fx/base.csv"; tail -n +2 "$fx/slow.csv"; } >"$tmp/two.csv"
fail() { echo "FAIL: $*"; exit 1; }
# the run ids a page lists in its "run ids" row
ids() { grep -o '<th class="l">run ids</th><td class="l">[^<]*' "$1" | sed 's/.*>//'; }
out=$("$pb" report "$tmp/two.csv" -o "$tmp/new.html") || fail "default: exit $?"
printf '%s\n' "$out" | grep -q "^# $tmp/two.csv holds 2 runs: this page shows run r2 only" ||
  fail "default: no note ($out)"
[ "$(ids "$tmp/new.html")" = r2 ] || fail "default page lists run ids '$(ids "$tmp/new.html")'"
grep -q "holds 2 runs: this page shows run r2 only" "$tmp/new.html" || fail "page has no note"
"$pb" report "$tmp/two.csv" --run r1 -o "$tmp/r1.html" >/dev/null || fail "--run r1: exit $?"
[ "$(ids "$tmp/r1.html")" = r1 ] || fail "--run r1 page lists '$(ids "$tmp/r1.html")'"
"$pb" report "$tmp/two.csv" --all-runs -o "$tmp/all.html" >/dev/null || fail "--all-runs: exit $?"
[ "$(ids "$tmp/all.html")" = "r1, r2" ] || fail "--all-runs page lists '$(ids "$tmp/all.html")'"
# one run: no note, as before
out=$("$pb" report "$fx/base.csv" -o "$tmp/one.html") || fail "one run: exit $?"
printf '%s\n' "$out" | grep -q "holds" && fail "one run: a note ($out)"
echo ok
