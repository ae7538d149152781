#!/usr/bin/env bash
# refuse_check.sh PARBENCH SOURCE_DIR: issue 28, "refuse what frameworks
# refuse".  Each refusal is exit 2 with exactly one line; each accepted
# input is checked for the value a person can work out by hand:
#  - --megatron-args with no Megatron argument (/dev/null, a config.json);
#  - a script without parallel sizes is Megatron's tp 1, pp 1, so its 8
#    GPUs are dp 8 (arguments.py: both default=1);
#  - an MoE model at tp > 1 without --sp (Megatron-Core's MoELayer raises
#    ValueError), while the same with --sp, a plan over the MoE model and
#    the main job's default layout for it (tp 2 with sp) still work;
#  - sizes past their bounds (--seq 99999999999, --hidden 8589934592) and
#    a prediction at the seq bound that stays finite;
#  - arguments read but not modelled named once.
set -u
pb=$1 src=$2
fix=$src/tests/fixtures
TMPDIR_ERR=$(mktemp)
trap 'rm -f "$TMPDIR_ERR"' EXIT
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }

# refused PATTERN CMD...: exit 2, one line, the line matches PATTERN
refused() {
    local want=$1 out rc
    shift
    out=$("$@" 2>&1)
    rc=$?
    [ "$rc" -eq 2 ] || fail "$* exited $rc, not 2: $out"
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "$* said more than one line: $out"
    printf '%s\n' "$out" | grep -Eq -- "$want" || fail "$* said '$out', not /$want/"
}

refused '/dev/null: no Megatron-LM argument found' "$pb" model --megatron-args /dev/null --gpus 8
refused 'llama3-70b.json: no Megatron-LM argument found' \
    "$pb" model --megatron-args "$fix/hf/llama3-70b.json" --gpus 8
refused 'mixture-of-experts model with --tp 2 needs --sp' \
    "$pb" model --preset mixtral-8x7b --tp 2 --gpus 8
refused 'mixture-of-experts model with --tp 2 needs --sp' \
    "$pb" --pattern all --preset mixtral-8x7b --tp 2 --pp 2 --dp 2 --dry-run
refused '^parbench: --seq: seq 99999999999 is above the bound 16777216' \
    "$pb" model --seq 99999999999 --tp 1 --gpus 8
refused '^parbench: --hidden: hidden 8589934592 is above the bound 1048576' \
    "$pb" model --hidden 8589934592 --tp 1 --gpus 8

# no parallel sizes in the script: tp 1, pp 1, dp = 8 GPUs / 1
out=$("$pb" model --megatron-args "$fix/megatron/no-layout-8.sh" 2>"$TMPDIR_ERR") ||
    fail "model --megatron-args no-layout-8.sh exited $?"
printf '%s\n' "$out" | grep -q '^layout: tp 1, pp 1, vp 1, dp 8, cp 1, ep 1 on 8 GPUs' ||
    fail "no-layout-8.sh is not tp 1, pp 1, dp 8: $(printf '%s\n' "$out" | grep '^layout')"
[ "$(grep -o -- '--fp8-format' "$TMPDIR_ERR" | wc -l)" -eq 1 ] ||
    fail "--fp8-format not named exactly once: $(cat "$TMPDIR_ERR")"
# a flag still wins over the script's default
"$pb" model --megatron-args "$fix/megatron/no-layout-8.sh" --tp 2 2>/dev/null |
    grep -q '^layout: tp 2, pp 1, vp 1, dp 4,' || fail "--tp 2 did not win over the script"

# --use-custom-fsdp: named once, as Megatron-FSDP at ZeRO-0, not as the
# distributed optimizer the same script also asks for
"$pb" model --megatron-args "$fix/megatron/llama3-70b-1024.sh" --hw h100 >/dev/null \
    2>"$TMPDIR_ERR" || fail "model --megatron-args llama3-70b-1024.sh exited $?"
[ "$(grep -o -- '--use-custom-fsdp' "$TMPDIR_ERR" | wc -l)" -eq 1 ] ||
    fail "--use-custom-fsdp not named exactly once: $(cat "$TMPDIR_ERR")"
grep -q -- '--use-custom-fsdp (Megatron-FSDP) with sharding strategy no_shard.* modelled as --zero 0' \
    "$TMPDIR_ERR" || fail "--use-custom-fsdp not said as ZeRO-0: $(cat "$TMPDIR_ERR")"
grep -q 'not known to parbench' "$TMPDIR_ERR" && fail "unknown arguments left: $(cat "$TMPDIR_ERR")"

# MoE with --sp, a plan over an MoE model and the default layout still work
"$pb" model --preset mixtral-8x7b --tp 2 --sp --pp 4 --ep 8 --zero 1 --gpus 64 --hw h100 \
    >/dev/null 2>&1 ||
    fail "mixtral with --tp 2 --sp was refused"
"$pb" plan --preset mixtral-8x7b --gpus 64 --hw h100 --top 3 2>&1 | grep -Eq '^ +1 +[0-9.]+' ||
    fail "plan over mixtral-8x7b ranked nothing"
"$pb" --pattern all --preset mixtral-8x7b --np 8 --dry-run 2>&1 |
    grep -q '^# layout tp 2, cp 1, ep 2, dp 2, pp 2, vp 1, sp on' ||
    fail "the main job's default MoE layout is not tp 2 with sp"

# at the seq bound (2^24 tokens) the prediction stays finite: some tokens/s
# (it does not fit in memory, exit 1, but the step is still printed)
out=$("$pb" model --seq 16777216 --tp 1 --gpus 8 2>&1)
rc=$?
[ "$rc" -le 1 ] || fail "--seq 16777216 exited $rc: $out"
printf '%s\n' "$out" | grep -Eiq 'nan|inf\b' && fail "not finite at the seq bound: $out"
printf '%s\n' "$out" | grep -Eq '^throughput: [1-9][0-9]* tokens/s' ||
    fail "no tokens/s at the seq bound: $(printf '%s\n' "$out" | grep throughput)"
echo "ok: refusals and bounds"
