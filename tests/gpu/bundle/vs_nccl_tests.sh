#!/usr/bin/env bash
# vs_nccl_tests.sh BUNDLE WORK - parbench's NCCL times against nccl-tests'
# (built from source by pack.sh, in BUNDLE/libexec) on this machine's first
# GPU, in one run: all-reduce and send/recv, 1 MiB - 1 GiB by factors of 2;
# nccl-tests runs before and after parbench (vs_table.sh: its mean, and
# its own spread as the tolerance where that is wider than 5 %).
# Writes into WORK: nccl-tests-<op>.log (their output), nccl-tests.csv (read
# by `parbench import`), vs-parbench.csv, and vs-nccl-tests.txt (the table,
# vs_table.sh).  Exit 0 when every size is within 5 %, else 1.
# Both programs run the same libnccl.so.2: the one nccl-tests' loader picks
# (LD_LIBRARY_PATH from env.sh) is given to parbench as --nccl-lib.
# PB_VS_VENDOR=amd (run-on-amd.sh): rccl-tests (nccl-tests' fork: the same
# programs, flags and output) against parbench's rccl backend, librccl.so.1.
set -u
B=$1 W=$2
if [ "${PB_VS_VENDOR:-nvidia}" = amd ]; then
    SONAME=librccl.so.1 BACKEND=rccl
    gpu_line() { rocm-smi --showproductname 2>/dev/null | grep -m1 -i 'card series\|card model'; }
else
    SONAME=libnccl.so.2 BACKEND=nccl
    gpu_line() { nvidia-smi -L 2>/dev/null | head -1; }
fi
PB=$B/libexec/parbench
here=$(cd "$(dirname "$0")" && pwd -P)
TOL=${PB_VS_TOL:-5}
# nccl-tests' usual flags; one GPU, one thread, no MPI (pack.sh builds MPI=0)
NT_ARGS=(-b 1M -e 1G -f 2 -g 1 -n 50 -w 10)

fail() { echo "vs: $*"; exit 1; }
for p in all_reduce_perf sendrecv_perf; do
    [ -x "$B/libexec/$p" ] ||
        fail "no $p in the bundle (pack.sh found no nccl-tests source: NCCL_TESTS_SRC or .gpub/nccl-tests-src)"
done
sed -n '/^nccl-tests:/p' "$B/MANIFEST"

nccl=$(ldd "$B/libexec/all_reduce_perf" | awk -v so="$SONAME" '$1 == so { print $3 }')
case $nccl in /*) echo "$SONAME of nccl-tests and parbench: $nccl" ;;
              *) fail "nccl-tests finds no $SONAME (LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-})" ;; esac

# nccl_tests RUN: both programs once, their logs (nccl-tests-<op>[-2].log)
# read into nccl-tests[-2].csv
nccl_tests() {
    local sfx=$1 op rc
    for op in all_reduce sendrecv; do
        echo "## ${op}_perf ${NT_ARGS[*]} (run ${sfx:-1})"
        "$B/libexec/${op}_perf" "${NT_ARGS[@]}" >"$W/nccl-tests-$op$sfx.log" 2>&1
        rc=$?
        grep -v ' NCCL INFO ' "$W/nccl-tests-$op$sfx.log"
        [ "$rc" -eq 0 ] || fail "${op}_perf exited $rc: $(grep -m1 -i 'failure\|error' "$W/nccl-tests-$op$sfx.log")"
    done
    rm -f "$W/nccl-tests$sfx.csv"
    "$PB" import "$W/nccl-tests-all_reduce$sfx.log" "$W/nccl-tests-sendrecv$sfx.log" \
        --csv "$W/nccl-tests$sfx.csv" || fail "parbench import could not read nccl-tests' logs"
}
# nccl-tests, parbench, nccl-tests: alternating, so that a change of the
# machine's pace between runs shows as nccl-tests' own spread (vs_table.sh)
nccl_tests ""
rm -f "$W/vs-parbench.csv"

# The same sizes, out-of-place as nccl-tests' first columns, timed
# nccl-tests' way: a batch of back-to-back operations between two clocks
# (throughput mode), 50 of them as -n 50 times, each on the next slice
# of buffers as large as the largest size (--buffers rotate, nccl-tests'
# startColl shift; parbench's default on nccl, named here because the
# comparison depends on it: with fixed buffers the H200 of 2026-12-04 ran
# 1-16 MiB out of its 50 MB L2, up to 40 % faster than nccl-tests).
# One process, no MPI.
PB_ARGS=(--mode throughput --batch 50 --buffers rotate --place out)
echo "## parbench coll --backend $BACKEND --gpus 1 ${PB_ARGS[*]}"
"$PB" coll --backend "$BACKEND" --gpus 1 --nccl-lib "$nccl" --op allreduce,sendrecv -b 1M -e 1G -f 2 \
    "${PB_ARGS[@]}" --csv "$W/vs-parbench.csv" >"$W/vs-parbench.log" 2>&1
rc=$?
cat "$W/vs-parbench.log"
[ "$rc" -eq 0 ] || fail "parbench coll --gpus 1 failed (exit $rc)"
nccl_tests -2

# the table, headed by what was compared (the file doc/gpu-acceptance.md quotes)
{
    echo "# parbench vs nccl-tests on $(hostname), $(date -u +%FT%TZ)"
    echo "# GPU: $(gpu_line)"
    sed -n '1s/^/# /p;/^nccl-tests:/s/^/# /p' "$B/MANIFEST"
    echo "# nccl-tests: ${NT_ARGS[*]}; parbench: coll --backend $BACKEND --gpus 1 ${PB_ARGS[*]}"
    echo "# parbench's $(grep -m1 -oE 'NCCL [0-9]+\.[0-9]+\.[0-9]+ \(header.*' "$W/vs-parbench.log")"
    echo "# nccl-tests' $(grep -m1 -oE 'nccl-headers=[0-9]+ nccl-library=[0-9]+' "$W/nccl-tests-all_reduce.log")"
} >"$W/vs-nccl-tests.txt"
bash "$here/vs_table.sh" "$W/vs-parbench.csv" "$W/nccl-tests.csv" "$TOL" 1048576 \
    "$W/nccl-tests-2.csv" >>"$W/vs-nccl-tests.txt"
rc=$?
cat "$W/vs-nccl-tests.txt"
[ "$rc" -eq 0 ] || fail "$(tail -1 "$W/vs-nccl-tests.txt")"
