#!/usr/bin/env bash
# model_inputs.sh PARBENCH: issue 50, model inputs read as meant.  Each
# check is the issue's own command; the numbers are worked by hand:
#  - GPT-3 175B typed by its shape (Brown et al. 2020, Table 2.1) is
#    full attention with a plain 4h MLP: 96 x (4h^2 + 8h^2 + 2h) +
#    2 x 51200 x h + h at h = 12288 = 175,206,838,272 = 175.21 B (the
#    paper: 175.0 B; tests/unit/test_model_inputs.c works it term by
#    term); the --size rule's 8 KV heads and SwiGLU made it 206.61 B;
#  - a config.json of hidden_size alone lacks num_hidden_layers,
#    num_attention_heads, intermediate_size, vocab_size and the MLP's
#    kind (model_type or hidden_act);
#  - Llama 3 8B on 7 GPUs: tp must divide 7 and so is 1, cp too (7 is
#    odd), pp 7 does not split 32 layers (nor 32 + 2), so every layout
#    is tp 1, pp 1, dp 7, and 2048 sequences do not divide by 7 x mbs;
#  - a sequence of 511 runs without context parallelism;
#  - llama3-405b's pp_trim 2 makes --layers 128 130 slots on 16 stages;
#  - deepseek-v3's 61 layers on 16 stages: 14 x 4 + 2 + 3 = 61;
#  - cp 2 x dp 64: the gradients are reduced over the 128 of dp x cp;
#  - --gpus 64 and no layout flag: dp = 64 / (tp 1 x cp 1 x pp 1) = 64.
set -u
pb=$1
failed=0
fail() { printf 'FAIL: %s\n--- output ---\n%s\n' "$1" "$out"; failed=$((failed + 1)); }
has() { printf '%s\n' "$out" | grep -Eq -- "$2" || fail "$1: no line matching /$2/"; }
hasnt() { printf '%s\n' "$out" | grep -Eq -- "$2" && fail "$1: a line matching /$2/"; }
# out, rc: the command's output (stdout and stderr) and exit status
run() { out=$("$pb" "$@" 2>&1); rc=$?; }

run model --layers 96 --hidden 12288 --heads 96 --ffn 49152 --vocab 51200 --seq 2048 \
    --tp 8 --pp 16 --gpus 1024 --hw a100 --gbs 1536
has gpt3 '^model: custom: 96 layers, hidden 12288, 96 heads \(96 KV\), ffn 49152, vocab 51200, seq 2048, 175\.21 B parameters$'
has gpt3 '^assumed \(not given: .*\): kv_heads 96 = heads \(full attention\), plain MLP, dtype bf16$'
hasnt gpt3 'llama-style'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"hidden_size": 4096}\n' > "$tmp/partial.json"
run model --hf-config "$tmp/partial.json" --tp 1 --gpus 8
[ "$rc" -eq 2 ] || fail "partial config: exit $rc, want 2"
has partial "^parbench: $tmp/partial.json: the keys that define the model are missing: num_hidden_layers, num_attention_heads, intermediate_size, vocab_size, model_type \(or hidden_act\)"

run plan --preset llama3-8b --gpus 7
[ "$rc" -eq 2 ] || fail "plan on 7 GPUs: exit $rc, want 2"
has plan7 '^parbench: no layout of llama3-8b runs on 7 GPUs, none for lack of memory: '
has plan7 'tp can only be 1 \(a power of two up to 64 dividing 7 GPUs, heads 32 and KV heads 8\)'
has plan7 'pp 7 splits the 32 layers neither evenly nor with lighter ends'
has plan7 'global batch 2048 is not divisible by micro-batch 1 x dp 7'
hasnt plan7 'more GPUs, or a smaller batch'

# a sequence of 511 tokens needs no halving without context parallelism
# (pb_layout_check asks 2 x cp to divide it only for cp > 1): cp 1 runs
run plan --hidden 1024 --heads 16 --layers 4 --seq 511 --gbs 8 --gpus 8
[ "$rc" -eq 0 ] || fail "plan with seq 511: exit $rc, want 0"
has oddseq '^searched [0-9]+ layouts in .*, [1-9][0-9]* ranked'

run model --preset llama3-405b --layers 128 --tp 8 --pp 16 --gpus 1024
has trim '^parbench: 128 layers \+ 2 \(pp_trim: [^)]*\) = 130 are not divisible by pp x vp = 16: --pp-trim 0 splits the 128 evenly \(8 a stage\)'

run model --preset deepseek-v3 --pp 16 --ep 64 --gpus 2048
has deepseek '^parbench: layers 61 are not divisible by pp x vp = 16: give the end stages their own counts, e\.g\. --pp-first 2 --pp-last 3 \(4 on each stage between\)$'

run model --preset llama3-8b --cp 2 --dp 64 --gpus 128
has dpcp '^groups: CP 2 within a node; DP x CP 128 \(dp 64 x cp 2\) across nodes;$'

run model --preset llama3-8b --gpus 64
has dpdefault '^layout: tp 1, pp 1, vp 1, dp 64, cp 1, ep 1 on 64 GPUs '

[ "$failed" -eq 0 ] || { echo "$failed check(s) failed"; exit 1; }
echo "ok: issue 50's inputs read as meant"
