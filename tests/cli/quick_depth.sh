#!/usr/bin/env bash
# quick_depth.sh LAUNCH... - `--pattern pp` on 3 ranks with no depth given
# (LAUNCH: the launcher with -n 3 and parbench): the tiny preset's 4
# layers do not split over 3 stages, so they rise to 6 and the run goes
# on; worked by hand: 2 layers a stage, 2 x pp = 6 micro-batches, each
# one send of b x s x h x 2 B = 1 x 512 x 1024 x 2 = 1048576 B each way.
# Standard output alone is read: under mpirun a rank's standard error
# reaches the launcher through its own pipe and can land inside a table
# line in a merged stream (tests/cli_expect.sh).
set -u
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
out=$("$@" --pattern pp -n 2 -w 1 2>"$errf")
rc=$?
fail() { printf 'FAIL: %s\n--- output ---\n%s\n--- errors ---\n%s\n' "$1" "$out" "$(cat "$errf")"
         exit 1; }
has() { printf '%s\n' "$out" | grep -Eq -- "$1" || fail "no line matching /$1/"; }
[ "$rc" -eq 0 ] || fail "exit $rc"
has '^# model tiny: layers 6, hidden 1024,'
has "^# layers: 6, the quick run's 4 raised to a multiple of pp 3 x vp 1 so that every stage holds whole layers; --layers N sets them$"
has '^# per step: 6 micro-batches per replica, 2 layers on the busiest stage;'
has '^pp +fwd +sendrecv +pp +3 .* 1048576 +1\.0 MiB +6 '
has '^pp +bwd +sendrecv +pp +3 .* 1048576 +1\.0 MiB +6 '
echo "ok: the quick depth rose to 6 on 3 stages and ran"
