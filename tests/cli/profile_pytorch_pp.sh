#!/usr/bin/env bash
# profile_pytorch_pp.sh PARBENCH FIXTURES
# parbench profile on real PyTorch traces of torch.distributed.pipelining
# jobs (tests/fixtures/pytorch/gloo-pp4-*, their READMEs say how they
# were made and what they hold): one gloo process group, sends and
# receives on the caller's thread naming their peer.  Until issue 47 they
# were refused ("which group ran each operation cannot be told").
# Against the patterns of the same layout they match operation by
# operation: 4 KiB activations (2 x 16 x 64 x 2 B), per step on the
# busiest (middle) rank 4 send/recv each way under 1F1B (8), 2 x 4 each
# way interleaved (16); 0 missing, extra, size or count mismatches.
set -u
pb=$1 fix=$2
fail() { echo "FAIL: $*"; printf '%s\n' "$out"; exit 1; }
model="--hidden 64 --heads 4 --kv-heads 4 --ffn 256 --seq 16 --mbs 2 --gbs 8 --vocab 128"
out=$("$pb" profile "$fix/gloo-pp4-1f1b" --pp 4 --layers 4 $model 2>&1) || fail "1f1b exited $?"
grep -q 'gloo-pp4-1f1b: pytorch, 4 ranks, 1 communicators, 48 records, 48 operations$' \
    <<< "$out" || fail "1f1b: 48 operations"
grep -Eq '^pp +sendrecv +4 KiB +8 +4 KiB +8\.00 +ok$' <<< "$out" || fail "1f1b: 8 per step"
grep -q '^# 1 ok, 0 count, 0 size, 0 missing, 0 extra$' <<< "$out" || fail "1f1b: not all matched"
out=$("$pb" profile "$fix/gloo-pp4-interleaved" --pp 4 --vp 2 --layers 8 $model 2>&1) ||
    fail "interleaved exited $?"
grep -q '112 records, 112 operations$' <<< "$out" || fail "interleaved: 112 operations"
grep -Eq '^pp +sendrecv +4 KiB +16 +4 KiB +16\.00 +ok$' <<< "$out" || fail "interleaved: 16 per step"
grep -q '^# 1 ok, 0 count, 0 size, 0 missing, 0 extra$' <<< "$out" ||
    fail "interleaved: not all matched"
# the job's data type reaches the patterns: as fp32 the activations the
# model predicts are 2 x 16 x 64 x 4 B = 8 KiB, twice what the bf16 job sent
out=$("$pb" profile "$fix/gloo-pp4-1f1b" --pp 4 --layers 4 $model --dtype fp32 2>&1) ||
    fail "--dtype fp32 exited $?"
grep -Eq '^pp +sendrecv +8 KiB +8 +4 KiB +8 +size$' <<< "$out" || fail "--dtype fp32: 8 KiB"
echo "ok: both pipelining jobs read and matched op by op; --dtype reaches the patterns"
