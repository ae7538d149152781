#!/usr/bin/env bash
# import_gz.sh PARBENCH PYTORCH_FIXTURES WORKDIR: issue 49, item 13.
# tests/fixtures/pytorch/gloo-ds-zero1-gz holds gloo-ds-zero1's four real
# traces gzipped as torch.profiler names them (*.pt.trace.json.gz; its
# README says how they were made).  Imported - named one by one, and as
# a directory - they give the ops CSV the plain traces give, byte for
# byte: the same job, nothing lost in the gunzip.  A gzipped file once
# went to the benchmark-log readers ("a NUL byte in the line").
set -u
pb=$1 fix=$2 work=$3
mkdir -p "$work"
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }
plain=(); gz=()
for r in 0 1 2 3; do
    plain+=("$fix/gloo-ds-zero1/trace-rank$r.json")
    gz+=("$fix/gloo-ds-zero1-gz/trace-rank$r.pt.trace.json.gz")
done
out=$("$pb" import "${plain[@]}" --csv "$work/plain.csv" 2>&1) || fail "plain traces: $out"
out=$("$pb" import "${gz[@]}" --csv "$work/gz.csv" 2>&1) || fail "gzipped traces: $out"
grep -q '^# pytorch: world 4, 1 communicators, ' <<<"$out" || fail "gzipped traces: $out"
cmp -s "$work/plain.csv" "$work/gz.csv" || fail "the gzipped traces' CSV differs from the plain ones'"
out=$("$pb" import "$fix/gloo-ds-zero1-gz" --csv "$work/dir.csv" 2>&1) || fail "the directory: $out"
cmp -s "$work/plain.csv" "$work/dir.csv" || fail "the gzipped directory's CSV differs"
echo "ok: $(($(wc -l <"$work/gz.csv") - 1)) operations, gzipped or not alike"
