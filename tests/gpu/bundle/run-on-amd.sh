#!/usr/bin/env bash
# run-on-amd.sh [BUNDLE] - the AMD GPU acceptance run (issue 51,
# doc/gpus.md "AMD GPUs"): the bundle of `pack.sh --amd` on a machine with
# an AMD GPU and ROCm (HIP, RCCL, rocBLAS somewhere: ROCm's own, or a
# PyTorch ROCm wheel's) but no Open MPI, PMIx, hwloc, libcsv, jansson or
# PLplot.  The NVIDIA run's shape (run-on-gpu.sh, run-lib.sh): every step
# has a time limit, a failed step does not stop the run, a table ends it.
# No gpu-labelled ctest step: tests/gpu is CUDA's.
#
#   BUNDLE, OUT, PB_DEADLINE_S, PB_ONLY, PB_UNPACK_DIR: as run-on-gpu.sh
#   PB_GPU_LIBDIRS  folders holding librccl.so.1 / librocblas / libamdhip64
#                   (else searched: $ROCM_PATH/lib, /opt/rocm/lib, torch/lib)
#   --list          print the steps (name, limit, command); run nothing
#
# Writes to $OUT (default ./pb-amd-out): summary.txt, run.log, logs.tar.gz,
# results.csv, report.html, gemm.csv (commit as model/data/<gpu>-gemm.csv)
# and vs-nccl-tests.txt (parbench's rccl backend against rccl-tests).
# Exit status: 0 when no step failed, 1 otherwise.
set -u
T0=$(date +%s)
DEADLINE=$((T0 + ${PB_DEADLINE_S:-330}))
here=$(cd "$(dirname "$0")" && pwd -P)
LIST=0
[ "${1:-}" = --list ] && { LIST=1; shift; }
if [ "$LIST" = 1 ]; then
    export PB_LIST_STEPS=1
    OUT=$(mktemp -d /tmp/pb-amd-list.XXXXXX) WORK=$OUT B=BUNDLE
else
    OUT=${OUT:-$PWD/pb-amd-out}
    mkdir -p "$OUT"
    OUT=$(cd "$OUT" && pwd -P)
    WORK=$(mktemp -d /tmp/pb-run.XXXXXX)
fi
mkdir -p "$WORK/logs"
: >"$OUT/run.log"
# shellcheck source=run-lib.sh
. "$here/run-lib.sh"
# shellcheck disable=SC2034 # read by run-lib.sh (unpack_bundle)
LIB=$here/run-lib.sh

# ---- 2. ROCm's libraries on this machine: RCCL, rocBLAS, HIP ---------------
# parbench opens all three with dlopen (doc/gpus.md), rccl-tests links
# librccl.so.1: their folders go on LD_LIBRARY_PATH through env.sh
amd_libs() {
    local s log=$WORK/logs/00-gpu-libs.log d lib dirs=() cands=() miss=
    s=$(date +%s)
    cands=(${PB_GPU_LIBDIRS:+${PB_GPU_LIBDIRS//:/ }} ${ROCM_PATH:+"$ROCM_PATH/lib"} /opt/rocm/lib)
    while read -r d; do cands+=("$d/torch/lib"); done < <(site_dirs)
    for lib in librccl.so.1 'librocblas.so.[04]' 'libamdhip64.so.[56]'; do
        for d in "${cands[@]}"; do
            # shellcheck disable=SC2086 # the pattern is a glob
            if ls $d/$lib >/dev/null 2>&1; then
                case " ${dirs[*]} " in *" $d "*) ;; *) dirs+=("$d") ;; esac
                echo "$lib: $d" >>"$log"; continue 2
            fi
        done
        ldconfig -p 2>/dev/null | grep -q "${lib%%.so*}\.so" || miss="$miss $lib"
    done
    PB_GPU_LIBDIRS=$(IFS=:; echo "${dirs[*]}")
    printf '%s\n' "$PB_GPU_LIBDIRS" >"$B/gpu-libdirs"
    export PB_BUNDLE=$B
    unset PB_ENV_DONE
    # shellcheck source=env.sh
    . "$B/env.sh"
    { echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"; ldd "$B/libexec/parbench"; } >>"$log" 2>&1
    cat "$log" >>"$OUT/run.log"
    if [ -n "$miss" ]; then record gpu-libs FAIL $(($(date +%s) - s)) "not found:$miss"
    else record gpu-libs PASS $(($(date +%s) - s)) "folders: ${PB_GPU_LIBDIRS:-none, the loader path only}"; fi
}
if [ "$LIST" = 0 ]; then
    B=
    unpack_bundle "${1:-${BUNDLE:-}}"
    export T0 DEADLINE OUT WORK B
    [ -n "$B" ] && amd_libs
fi

# ---- 3. the steps -----------------------------------------------------------------
# shellcheck disable=SC2016 # expanded by the inner shell
step rocm-smi 30 'GPU|Instinct' bash -c 'rocm-smi; rc=$?; rocm-smi --showproductname --showtopo || true; exit $rc'
cd "$WORK" || exit 1
if [ -n "$B" ]; then
    PB=$B/libexec/parbench
    CSV=$WORK/results.csv
    RCCL=$(for d in ${PB_GPU_LIBDIRS:+${PB_GPU_LIBDIRS//:/ }}; do [ -e "$d/librccl.so.1" ] && echo "$d/librccl.so.1"; done | head -1)
    # --nccl-lib names the library for either backend: here the RCCL found above
    step rccl-lib 45 'RCCL|NCCL [0-9]' mpirun -np 1 "$PB" coll --backend rccl --nccl-lib "${RCCL:-librccl.so.1}" \
         --op allreduce -b 8 -e 64M -f 8 --check --time-budget 0.25
    step gpus1-coll 60 'Wrong elements|check' "$PB" coll --backend rccl --gpus 1 \
         --op allreduce,sendrecv -b 8 -e 256M -f 4 --check --time-budget 0.25 --csv "$WORK/gpus1.csv"
    step gpus1-step 45 'check:' "$PB" step --backend rccl --gpus 1 --preset tiny --steps 3 --check
    # parbench's rccl backend against rccl-tests on this GPU, 1 MiB - 1 GiB: within 5 %
    step vs-rccl-tests 150 '^# verdict' env PB_VS_VENDOR=amd bash "$here/vs_nccl_tests.sh" "$B" "$WORK"
    step mpi-host 45 'Wrong elements' mpirun -np 2 "$PB" coll --backend mpi --op allreduce \
         -b 8 -e 1M --check --time-budget 0.2 --csv "$WORK/mpi.csv"
    # topology: GPUs and xGMI links from the KFD topology in sysfs
    step topo 30 'topology of this node|XGMI' "$PB" topo
    # rocBLAS: one GPU, a 7B-like layer, forward and backward
    step gemm 60 'gemm_' "$PB" gemm --backward --csv "$WORK/gemm.csv"
    step rccl-sweep 60 'Wrong elements' mpirun -np 1 "$PB" coll --backend rccl --op all \
         -b 8 -e 64M -f 4 --check --time-budget 0.1 --csv "$CSV"
    # HIP graphs (-G): the batch captured once, replayed 20 times
    step rccl-graph 45 'Wrong elements' mpirun -np 1 "$PB" coll --backend rccl \
         --op allreduce,allgather -G 20 -b 1M -e 256M -f 4 --check --csv "$CSV"
    step pattern 45 'no traffic|eff. bw|check' mpirun -np 1 "$PB" --pattern all --preset tiny \
         --backend rccl --check --time-budget 0.1 --csv "$WORK/pattern.csv"
    RCSV=$CSV; [ -s "$RCSV" ] || RCSV=$WORK/mpi.csv
    step report 30 'report written' "$PB" report "$RCSV" -o "$WORK/report.html"
fi
if [ "$LIST" = 1 ]; then rm -rf "$OUT"; exit 0; fi

# ---- 4. results -----------------------------------------------------------------
summary
rc=$?
for f in results.csv gemm.csv report.html vs-nccl-tests.txt; do
    [ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"
done
cd "$OUT" || exit 1
tar -C "$WORK" -czf "$OUT/logs.tar.gz" . 2>/dev/null && rm -rf "$WORK"
echo
cat "$OUT/summary.txt"
exit "$rc"
