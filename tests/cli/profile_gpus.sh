#!/usr/bin/env bash
# profile_gpus.sh PARBENCH PB_JP_SYNTH OUTDIR
# issue 49 follow-up: parbench profile on a recording of processes that
# hold several GPUs (ranks) each - parbench --gpus 2, nccl-tests -g 2 - as
# the NCCL profiler plugin writes it (tests/unit/jp_synth.h, per-proc=2:
# a tp 2 x dp 2 job of 2 steps x 2 micro-batches in 2 processes, process
# 1000 holding ranks 0 and 1 on devices 0 and 1, process 1001 ranks 2 and
# 3; every file names its process's launcher rank, 0 or 1 of 2; rank 3
# issues every operation 2 ms late).  Before the fix each process was one
# rank: "2 ranks", TP groups "0 0" and "1 1".
# - 4 ranks, with Megatron's groups (tp fastest): TP {0,1} {2,3}, DP {0,2}
#   {1,3}, the world {0,1,2,3}; the global ranks from the world
#   communicator (no "assigned" note);
# - rank 3 last in all 22 of its collectives: 16 TP all-reduces (2 steps
#   x 2 micro x 4) 2003 - 2 = 2001 us behind rank 2, 4 DP ones (2 steps x
#   reduce-scatter + all-gather) 2003 - 1 = 2002 us behind rank 1, the 2
#   world all-reduces 2001 us behind rank 2 (jp_synth: rank r issues r us
#   into the slot): mean (18 x 2001 + 4 x 2002) / 22 = 2001.18 us; chance
#   20 x 1/2 + 2 x 1/4 = 10.5;
# - without the world communicator: the ranks in (host, pid, device)
#   order, said to be assigned; the same groups; rank 3 last in 20, mean
#   (16 x 2001 + 4 x 2002) / 20 = 2001.2 us, chance 10.0.
set -u
pb=$1 synth=$2 out=$3
rm -rf "$out" && mkdir -p "$out/rec" "$out/nw" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
groups() {
    grep -Eq '^ +[0-9]+ tp +2 0 1 ' "$1" || fail "$1: TP {0,1}"
    grep -Eq '^ +[0-9]+ tp +2 2 3 ' "$1" || fail "$1: TP {2,3}"
    grep -Eq '^ +[0-9]+ dp +2 0 2 ' "$1" || fail "$1: DP {0,2}"
    grep -Eq '^ +[0-9]+ dp +2 1 3 ' "$1" || fail "$1: DP {1,3}"
    grep -q '^# layout (inferred from the communicators): tp 2, cp 1, dp 2, pp 1$' "$1" ||
        fail "$1: layout $(grep layout "$1")"
}
"$synth" "$out/rec" 2 1 2 1 3 2000 per-proc=2 || fail "pb_jp_synth"
"$pb" profile "$out/rec" > "$out/out.txt" || fail "profile exited $?"
o=$out/out.txt
grep -q '^# recording: .*: nccl-plugin, 4 ranks, 5 communicators, ' "$o" ||
    fail "not 4 ranks: $(head -2 "$o")"
groups "$o"
grep -Eq '^ +[0-9]+ world +4 0 1 2 3 ' "$o" || fail "the world {0,1,2,3}"
grep -q 'assigned in host order' "$o" && fail "ranks said assigned, the world comm has them"
grep -Eq '^ +3 tp 1 dp 1 +22 +22 +10\.5 +2001\.2 yes$' "$o" ||
    fail "rank 3: $(sed -n '/stragglers/,/largest/p' "$o")"
[ "$(grep -Ec ' (yes|no)$' "$o")" -eq 1 ] || fail "another rank than 3 was last by 100 us"

"$synth" "$out/nw" 2 1 2 1 3 2000 per-proc=2 no-world || fail "pb_jp_synth no-world"
"$pb" profile "$out/nw" > "$out/nw.txt" || fail "profile (no world) exited $?"
o=$out/nw.txt
grep -q '^# recording: .*: nccl-plugin, 4 ranks, 4 communicators, ' "$o" ||
    fail "no world: not 4 ranks: $(head -2 "$o")"
grep -q '^# recording: .*; global ranks not recorded, assigned in host order$' "$o" ||
    fail "no world: ranks not said assigned"
groups "$o"
grep -Eq '^ +3 tp 1 dp 1 +20 +20 +10\.0 +2001\.2 yes$' "$o" ||
    fail "no world: rank 3: $(sed -n '/stragglers/,/largest/p' "$o")"
echo "ok: 2 processes of 2 GPUs joined as 4 ranks, rank 3 named, with and without the world"
