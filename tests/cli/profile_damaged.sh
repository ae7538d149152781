#!/usr/bin/env bash
# profile_damaged.sh PARBENCH PB_JP_SYNTH OUTDIR
# issue 49: parbench profile on plugin record files changed byte by byte
# (offsets: profiler/pb_prof_rec.h's layout, x86-64: the header's
# world_rank at 184 and world_size at 188, a record's count at 16 and
# kernel end t_k1 at 48; the header is 256 bytes, a record 128).  On a
# tp 2 job (pb_jp_synth 2 1 1 1: per rank a TP file of 16 bf16
# all-reduces of 8 MiB = 4194304 elements, a world file of 2):
# - item 6: the issue's 384-byte file (the header and one record) with
#   global rank 2e7 and no job size: exit 2, one line naming the file and
#   the rank, at once (it sized per-rank tables by the rank: 1.4 GB);
# - item 11: rank 1's first all-reduce recorded with 2097152 elements:
#   one warning naming the collective and both sizes, exit 0;
# - item 11: rank 1's first all-reduce ending 1 ns after the epoch, before
#   it started: one warning that a record was left out, exit 0.
set -u
pb=$1 synth=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# value as n little-endian bytes (two's complement: -1 is all 0xff)
le() {
    local v=$1 n=$2 s="" i
    for ((i = 0; i < n; i++)); do s+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255))); done
    printf "$s"
}
put() { le "$3" "$4" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none || fail "dd $1"; }
fresh() {
    rm -rf "$out/$1" && mkdir -p "$out/$1" && "$synth" "$out/$1" 2 1 1 1 || fail "pb_jp_synth"
    tp1=$(ls "$out/$1"/parbench-prof-*-1001-5000010000000000.bin) || fail "rank 1's TP file"
}

# item 6
fresh rank
f=$out/rank/one.bin
head -c 384 "$tp1" > "$f"
put "$f" 184 20000000 4
put "$f" 188 -1 4
[ "$(stat -c %s "$f")" -eq 384 ] || fail "not 384 bytes"
"$pb" profile "$f" > "$out/rank.out" 2> "$out/rank.err"
rc=$?
[ "$rc" -eq 2 ] || fail "rank 2e7: exit $rc, want 2"
grep -qx "parbench: $f: global rank 20000000 (parbench reads 0 to 1048575)" "$out/rank.err" ||
    fail "rank 2e7: $(cat "$out/rank.err")"

# item 11: sizes
fresh sizes
put "$tp1" $((256 + 16)) 2097152 8
"$pb" profile "$out/sizes" > "$out/sizes.out" 2> "$out/sizes.err" || fail "sizes: exit $?"
want="parbench: warning: 1 collectives whose members recorded different sizes or types (the \
first: communicator 0 allreduce number 0, rank 0 4194304 x ncclBfloat16, rank 1 2097152 x \
ncclBfloat16): their sizes, times and lags mix operations"
grep -qxF "$want" "$out/sizes.err" || fail "sizes: $(cat "$out/sizes.err")"

# item 11: a record that ends before it starts
fresh ends
put "$tp1" $((256 + 48)) 1 8
"$pb" profile "$out/ends" > "$out/ends.out" 2> "$out/ends.err" || fail "ends: exit $?"
grep -qxF "parbench: warning: 1 records end before they start (a clock stepped back, or a \
damaged file): left out" "$out/ends.err" || fail "ends: $(cat "$out/ends.err")"
# 2 ranks x (16 TP all-reduces + 2 on the world) less the one left out
grep -q '^# recording: .* 2 ranks, 2 communicators, 35 records' "$out/ends.out" ||
    fail "ends: $(head -1 "$out/ends.out")"
echo "ok: rank 2e7 refused, a size mismatch and a record ending before it starts flagged"
