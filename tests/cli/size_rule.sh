#!/usr/bin/env bash
# size_rule.sh PARBENCH: `--size H` without --preset is the --size rule
# (patterns/pb_model.h), and the dry run's header says so and gives each
# strategy's message with the product it is made of.  Every number below
# is worked out by hand from the rule, not taken from a run:
#  - at 8192: heads 8192 / 128 = 64, 8 KV heads, ffn 3.5 x 8192 = 28672,
#    vocab 128256, seq 8192, 4 layers; Llama 3 70B has 80 at that width
#    (arXiv 2407.21783, Table 3);
#  - parameters: a layer 2h^2 + 2h x 1024 + 3h x 28672 + 2h = 855654400,
#    x 4 = 3422617600, + 2 x 128256 x 8192 = 2101346304, + 8192 =
#    5523972096 = 5.52 B;
#  - a TP all-reduce carries b x s x h x 2 B = 1 x 8192 x 8192 x 2 =
#    134217728 B = 128 MiB (issue 35's acceptance: seq >= 4096, >= 64
#    MiB), 2 per layer x 4 layers x 2 micro-batches (gbs unset: 2 x pp) =
#    16 forward and 16 backward;
#  - `all` on 8 ranks is tp 2, pp 2, dp 2: the pipeline sends the same
#    128 MiB; a rank's 5523972096 / (tp 2 x pp 2) = 1380993024 gradients
#    go in Megatron buckets of max(40M, 1M x dp) = 40000000 (160000000 B
#    in fp32): 34 of them and a last one of 20993024 x 4 = 83972096 B.
set -u
pb=$1
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"; exit 1; }
has() { printf '%s\n' "$out" | grep -Eq -- "$1" || fail "no line matching /$1/"; }

out=$("$pb" --pattern tp --size 8192 --dry-run) || fail "exit $?"
has '^# model llama-style: layers 4, hidden 8192, heads 64 \(kv 8\), ffn 28672, vocab 128256, seq 8192, mbs 1, gbs 0 \(auto\), bfloat16, 5\.52 B parameters$'
has '^# the --size rule .*heads of 128, 8 KV heads, ffn 3\.5 h \(rounded up to 256\), vocab 128256, seq 8192, gated MLP, bf16; the flags given win$'
has '^# layers: 4 of the 80 Llama 3 70B has at 8192; the per-layer counts \(tp, sp, cp, ep\) scale with them$'
has '^# tp message: allreduce up to 128\.0 MiB = b x s x h x 2 B = 1 x 8192 x 8192 x 2 '
has '^tp +fwd +allreduce +tp +8 +134217728 +128\.0 MiB +16 +bfloat16 '
has '^tp +bwd +allreduce +tp +8 +134217728 +128\.0 MiB +16 +bfloat16 '

out=$("$pb" --pattern all --size 8192 --np 8 --dry-run) || fail "exit $?"
has '^# layout tp 2, cp 1, ep 1, dp 2, pp 2,'
has '^# pp message: sendrecv 128\.0 MiB = b x s x h x 2 B = 1 x 8192 x 8192 x 2 '
has '^# dp message: allreduce up to 152\.6 MiB = 40000000 elements x 4 B '
has '^dp +bwd +allreduce +dp +2 +160000000 .* 34 +float '
has '^dp +bwd +allreduce +dp +2 +83972096 .* 1 +float '

# --pattern pp on the dry run's 8 ranks: 4 layers do not split over 8
# stages, and no flag set them, so the quick depth rises to 8 (one layer
# a stage); parameters 855654400 x 8 + 2101346304 + 8192 = 8946589696 =
# 8.95 B; micro-batches 2 x pp = 16, one 128 MiB send each way per
# micro-batch
out=$("$pb" --pattern pp --size 8192 --dry-run) || fail "exit $?"
has '^# model llama-style: layers 8, hidden 8192, .* 8\.95 B parameters$'
has '^# layers: 8 of the 80 Llama 3 70B has at 8192 \(the quick run.s 4 raised to a multiple of pp 8 x vp 1 so that every stage holds whole layers; --layers N sets them\); '
has '^# per step: 16 micro-batches per replica, 1 layers on the busiest stage;'
has '^pp +fwd +sendrecv +pp +8 +134217728 +128\.0 MiB +16 +bfloat16 '
# a depth the user typed is theirs: refused where it does not split
out=$("$pb" --pattern pp --size 8192 --layers 4 --dry-run 2>&1) && fail "exit 0 with --layers 4 on pp 8"
has '^parbench: layers 4 are not divisible by pp x vp = 8$'

# a preset keeps today's meaning (tiny widened) and no rule line
out=$("$pb" --pattern tp --preset tiny --size 8192 --dry-run) || fail "exit $?"
has '^# model tiny: layers 4, hidden 8192, heads 128 \(kv 128\), ffn 32768, vocab 32000, seq 512,'
printf '%s\n' "$out" | grep -q '^# the --size rule' && fail "a rule line with --preset"
echo "ok: the --size rule's model, header and messages"
