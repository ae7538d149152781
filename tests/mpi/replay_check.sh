#!/usr/bin/env bash
# replay_check.sh CASE WORK SYNTH FIXTURES PARBENCH LAUNCH... - parbench
# replay on 4 ranks of a recorded job, in WORK (made afresh); LAUNCH is
# the launcher up to its rank count ("mpiexec -np").  SYNTH is
# pb_jp_synth (tests/unit/jp_synth.h: what each group issues per step, 2
# steps of 2 micro-batches); FIXTURES is tests/fixtures, holding the real
# traces of pytorch/gloo-tp2-dp2 and replay/crossed.csv (their READMEs
# say what each rank issued).
# Every count below is worked out from those constructions:
#  tp2-dp2    pb_jp_synth 2 1 2 1: TP groups {0,1} {2,3}: 4 x 2 micro x 2
#             steps = 16 all-reduces each; DP groups {0,2} {1,3}: a
#             reduce-scatter and an all-gather per step = 4; world: one
#             loss all-reduce per step = 2; the job 2x16 + 2x4 + 2 = 42.
#             Recorded (every op runs bytes / 100 GB/s + 10 us): TP 16 x
#             (8 MiB / 1e11 + 1e-5) = 0.001502 s, DP 4 x (64 MiB / 1e11 +
#             1e-5) = 0.002724 s, world 2 x (4 B / 1e11 + 1e-5) = 0.000020
#             s; the slowest rank, in one of each: 0.004247 s.
#  dp2-pp2    pb_jp_synth 1 1 2 2: DP groups {0,1} {2,3}: 4 each; PP groups
#             {0,2} {1,3}: per micro-batch one send forward and one back,
#             2 x 2 x 2 = 8 pairs each, 16 in all; 10 collectives.  Recorded
#             PP: each member's 4 sends and 4 receives of 4 MiB: 8 x (4 MiB
#             / 1e11 + 1e-5) = 0.000416 s.
#  pytorch    the traces: TP 2 steps x (8 all-reduces + the token ids'
#             int64 broadcast) = 18, DP 2 x 2 = 4, world 2 loss
#             all-reduces; not replayed: the 4 barriers.
#  crossed    4 all-reduces on 4 communicators interleaved so that each
#             rank's own order deadlocks, and 2 sends crossing on one pair:
#             6 operations, 4 collectives and 2 pairs, 0 wrong.
#  corrupt    tp2-dp2 with --fault corrupt:1: one element of every output
#             rank 1 checks made wrong: its 16 TP + 4 DP + 2 world
#             operations = 22 wrong elements, exit 1.
#  mismatch   the 4-rank recording on 2 launched ranks: exit 2, one line.
#  self       parbench starts its own mpirun, with -np 4 from the recording.
# Nothing here depends on timing: --scale 0.001 keeps it quick.
set -u
case=$1 work=$2 synth=$3 fix=$4 pb=$5
shift 5
launch=("$@")
rm -rf "$work" && mkdir -p "$work/rec" || exit 1
errf="$work/stderr"
fail() { printf 'FAIL (%s): %s\n--- output ---\n%s\n--- errors ---\n%s\n' "$case" "$1" "$out" \
           "$(cat "$errf")"; exit 1; }
run() { out=$("$@" 2>"$errf"); rc=$?; }
# a table row by its members: "ops recorded_s wrong"
row() { printf '%s\n' "$out" | awk -v m="$1" '$1 ~ /^[0-9]+$/ && $4 == m { print $5, $8, $11 }'; }
want_row() {
  got=$(row "$1")
  [ "$got" = "$2" ] || fail "row $1: '$got', expected '$2'"
}
job() { printf '%s\n' "$out" | awk '$1 == "job" { print $6, $9, $12 }'; }
ok_run() {
  [ "$rc" -eq 0 ] || fail "exit $rc"
  printf '%s\n' "$out" | grep -q '^# check: .*: 0 wrong elements$' || fail "no '0 wrong elements'"
}

case $case in
tp2-dp2)
  "$synth" "$work/rec" 2 1 2 1 || exit 1
  run "${launch[@]}" 4 "$pb" replay "$work/rec" --scale 0.001 -n 2 --csv "$work/r.csv"
  ok_run
  want_row 0-1 "16 0.001502 0"
  want_row 2-3 "16 0.001502 0"
  want_row 0,2 "4 0.002724 0"
  want_row 1,3 "4 0.002724 0"
  want_row 0-3 "2 0.000020 0"
  [ "$(job)" = "42 0.004247 0" ] || fail "job row '$(job)', expected '42 0.004247 0'"
  printf '%s\n' "$out" | grep -q '^# replayed: 42 operations (42 collectives, 0 send/receive pairs)' ||
    fail "head does not count 42 collectives"
  # the CSV: a row per communicator and the job's, the same counts
  [ "$(grep -c '^"' "$work/r.csv")" -eq 6 ] || fail "r.csv: not 6 rows"
  grep -q '^"[^"]*","mpi","job","-",4,"slowest rank",42,' "$work/r.csv" || fail "r.csv: job row"
  ;;
dp2-pp2)
  "$synth" "$work/rec" 1 1 2 2 || exit 1
  run "${launch[@]}" 4 "$pb" replay "$work/rec" --scale 0.001 -n 2
  ok_run
  printf '%s\n' "$out" | grep -q '^# replayed: 26 operations (10 collectives, 16 send/receive pairs)' ||
    fail "head does not count 10 collectives and 16 pairs"
  want_row 0,2 "8 0.000416 0"
  want_row 1,3 "8 0.000416 0"
  want_row 0-1 "4 0.002724 0"
  want_row 2-3 "4 0.002724 0"
  ;;
pytorch)
  run "${launch[@]}" 4 "$pb" replay "$fix/pytorch/gloo-tp2-dp2" -n 2
  ok_run
  for m in 0-1 2-3; do [ "$(row $m | cut -d' ' -f1)" = 18 ] || fail "TP $m: not 18 ops"; done
  for m in 0,2 1,3; do [ "$(row $m | cut -d' ' -f1)" = 4 ] || fail "DP $m: not 4 ops"; done
  [ "$(row 0-3 | cut -d' ' -f1)" = 2 ] || fail "world: not 2 ops"
  printf '%s\n' "$out" | grep -q '^# not replayed: 4 records of functions parbench does not measure (barrier)$' ||
    fail "the barriers are not said"
  printf '%s\n' "$out" | grep -q 'records of types parbench does not know' &&
    fail "the int64 broadcasts are not replayed"
  ;;
crossed)
  run "${launch[@]}" 4 "$pb" replay "$fix/replay/crossed.csv" -n 2
  ok_run
  printf '%s\n' "$out" | grep -q '^# replayed: 6 operations (4 collectives, 2 send/receive pairs)' ||
    fail "head does not count 4 collectives and 2 pairs"
  for m in 0,2 1,3 2-3; do [ "$(row $m | cut -d' ' -f1)" = 1 ] || fail "$m: not 1 op"; done
  [ "$(job | cut -d' ' -f1)" = 6 ] || fail "job row: not 6 ops"
  ;;
corrupt)
  "$synth" "$work/rec" 2 1 2 1 || exit 1
  run "${launch[@]}" 4 "$pb" replay "$work/rec" --scale 0.001 -n 1 --fault corrupt:1
  [ "$rc" -eq 1 ] || fail "exit $rc, expected 1"
  [ "$(grep -c '^parbench:' "$errf")" -eq 1 ] || fail "not one line on stderr"
  grep -q '^parbench: verification failed: 22 wrong elements$' "$errf" || fail "not 22 wrong"
  want_row 0-1 "16 0.001502 16"
  want_row 1,3 "4 0.002724 4"
  want_row 0-3 "2 0.000020 2"
  want_row 2-3 "16 0.001502 0"
  ;;
mismatch)
  "$synth" "$work/rec" 2 1 2 1 || exit 1
  run "${launch[@]}" 2 "$pb" replay "$work/rec"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  [ "$(grep -c '^parbench:' "$errf")" -eq 1 ] || fail "not one line on stderr"
  grep -q '^parbench: the recording is of 4 ranks and 2 run: replay runs one rank per recorded rank (launch 4)$' \
    "$errf" || fail "not the line expected"
  ;;
self)
  "$synth" "$work/rec" 2 1 2 1 || exit 1
  run "$pb" replay "$work/rec" --scale 0.001 -n 1
  ok_run
  printf '%s\n' "$out" | grep -q '^# parbench: not started by a launcher; running: .*mpirun -np 4 ' ||
    fail "not launched on 4 ranks"
  want_row 0-3 "2 0.000020 0"
  ;;
*)
  echo "unknown case $case"; exit 1 ;;
esac
echo "ok: $case"
