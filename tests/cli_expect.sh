#!/usr/bin/env bash
# cli_expect.sh RC REGEX CMD [ARGS...]
# Runs CMD and passes when it exits with RC and printed exactly one line
# starting "parbench:" on standard error (the one-line error convention:
# rank 0 only), and that line matches the extended regex REGEX.  With RC
# 0 and REGEX "-", only the exit code is checked.
#
# Standard error is read apart from standard output: under mpirun a
# rank's two streams reach the launcher through two pipes, which it
# copies in the chunks it reads, so in one merged stream the error line
# can land in the middle of a table line printed just before it.
set -u
want_rc=$1 regex=$2
shift 2
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
out=$("$@" 2>"$errf")
rc=$?
err=$(cat "$errf")
# 77: the command could not run in this build (needs_mpi.sh): a skip
if [ "$rc" -eq 77 ] && [ "$want_rc" -ne 77 ]; then printf '%s\n%s\n' "$out" "$err"; exit 77; fi
fail() { printf 'FAIL: %s\n--- output ---\n%s\n--- errors ---\n%s\n' "$1" "$out" "$err"; exit 1; }
[ "$rc" -eq "$want_rc" ] || fail "exit code $rc, expected $want_rc"
[ "$regex" = "-" ] && exit 0
lines=$(printf '%s\n' "$err" | grep -c '^parbench:')
[ "$lines" -eq 1 ] || fail "$lines lines on stderr start with 'parbench:', expected exactly 1"
printf '%s\n' "$err" | grep '^parbench:' | grep -Eq -- "$regex" || fail "message does not match /$regex/"
printf 'ok: rc %s, %s\n' "$rc" "$(printf '%s\n' "$err" | grep '^parbench:')"
