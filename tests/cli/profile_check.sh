#!/usr/bin/env bash
# profile_check.sh PARBENCH PB_JP_SYNTH OUTDIR
# parbench profile on the records of a tp2 dp2 pp2 job written as the
# NCCL profiler plugin writes them (tests/unit/jp_synth.h: 2 steps of 2
# micro-batches, with Megatron's TP traffic outside the layers, rank 5
# issuing every operation 2 ms late):
# - the layout is inferred (no --tp/--dp/--pp): tp 2, dp 2, pp 2, and each
#   communicator named by its members in Megatron's order: TP {0,1},
#   DP {0,2} (stride tp), PP {0,4} (stride tp x dp), the world;
# - rank 5 is named as repeatedly last: in all 38 of its collectives
#   (32 TP all-reduces: 8 a step in the layers, and on the last stage,
#   where it is, per micro-batch the output layer's and the loss's 3; 4
#   DP, 2 on the world), mean lag (32 x 2001 + 6 x 1998) / 38 = 2000.5 us
#   (2 ms, plus or minus jp_synth's 1 us per rank: rank 4 before it on TP,
#   rank 7 on DP and the world);
# - given the layout, the same; the trace, the page (xmllint) and the
#   ops CSV are written, and the CSV read back gives the same tables;
# - against a model sized to jp_synth's TP traffic: TP matches, PP's
#   sizes differ, the loss all-reduce is extra (numbers below).
set -u
pb=$1 synth=$2 out=$3
rm -rf "$out" && mkdir -p "$out/rec" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
"$synth" "$out/rec" 2 1 2 2 5 2000 ends || fail "pb_jp_synth"
"$pb" profile "$out/rec" --trace "$out/t.json" --html "$out/p.html" --csv "$out/ops.csv" \
    > "$out/out.txt" || fail "profile exited $?"
o=$out/out.txt
grep -q '^# layout (inferred from the communicators): tp 2, cp 1, dp 2, pp 2$' "$o" ||
    fail "layout not inferred: $(grep layout "$o")"
grep -Eq '^ +[0-9]+ tp +2 0 1 ' "$o" || fail "TP {0,1} not tp"
grep -Eq '^ +[0-9]+ dp +2 0 2 ' "$o" || fail "DP {0,2} not dp"
grep -Eq '^ +[0-9]+ pp +2 0 4 ' "$o" || fail "PP {0,4} not pp"
grep -Eq '^ +[0-9]+ world +8 0 1 2 3 4 5 ' "$o" || fail "the world comm not world"
[ "$(grep -Ec '^ +[0-9]+ unknown ' "$o")" -eq 0 ] || fail "a comm left unknown"
grep -Eq '^ +5 tp 1 dp 0 pp 1 +38 +38 +[0-9.]+ +2000\.5 yes$' "$o" ||
    fail "rank 5 not named: $(sed -n '/stragglers/,/largest/p' "$o")"
[ "$(grep -Ec ' (yes|no)$' "$o")" -eq 1 ] || fail "another rank than 5 was last by 100 us"
"$pb" profile "$out/rec" --tp 2 --pp 2 > "$out/given.txt" || fail "profile --tp 2 --pp 2"
grep -q '^# layout (given): tp 2, cp 1, dp 2, pp 2$' "$out/given.txt" || fail "layout given"
cmp -s <(sed -n '/^# communicators/,$p' "$o" | grep -v '^# written') \
    <(sed -n '/^# communicators/,$p' "$out/given.txt") || fail "given layout differs"
command -v xmllint > /dev/null && { xmllint --noout "$out/p.html" || fail "page not XHTML"; }
grep -q '"traceEvents"' "$out/t.json" || fail "no trace"
"$pb" profile "$out/ops.csv" > "$out/csv.txt" || fail "profile of its own CSV"
cmp -s <(sed 1d "$o" | grep -v '^# written') <(sed 1d "$out/csv.txt") ||
    fail "the ops CSV read back differs"
# against a model made to match jp_synth's TP traffic: 2 layers on 2
# stages, 1 each; gbs 4 / (mbs 1 x dp 2) = 2 micro-batches; a = 1 x 1024 x
# 4096 x 2 B = 8 MiB: 4 all-reduces of 8 MiB per layer and micro-batch,
# 8 per step, and on either end 1 more per micro-batch (the embedding's
# on the first stage, the output layer's on the last): 10 per step on the
# busiest rank, which jp_synth records (steps: 20 recorded / 10 = 2); the
# loss's 3 all-reduces of 1 x 1024 x 4 B = 4 KiB per micro-batch, 6; PP's
# activations are a = 8 MiB too, jp_synth sends 4 MiB: a size mismatch
"$pb" profile "$out/rec" --preset tiny --hidden 4096 --seq 1024 --mbs 1 --gbs 4 --layers 2 \
    --heads 32 --kv-heads 32 > "$out/model.txt" || fail "profile with a model"
m=$out/model.txt
grep -q '^# against the model: 2 steps (the count most operations agree on)' "$m" || fail "steps"
grep -Eq '^tp +allreduce +8 MiB +10 +8 MiB +10\.00 +ok$' "$m" || fail "TP not matched"
grep -Eq '^tp +allreduce +4 KiB +6 +4 KiB +6\.00 +ok$' "$m" || fail "the loss's TP all-reduces not matched"
grep -Eq '^pp +sendrecv +8 MiB +4 +4 MiB +4\.00 +size$' "$m" || fail "PP size not flagged"
grep -Eq '^world +allreduce +- +- +4 B +1\.00 +extra$' "$m" || fail "the loss not extra"
echo "ok: layout inferred, rank 5 named, trace, page and CSV written, the model compared"
