#!/usr/bin/env bash
# run-on-gpu.sh [BUNDLE] - the GPU acceptance run (doc/gpus.md): parbench's
# relocatable bundle (pack.sh) on a GPU machine that has CUDA, its driver,
# NCCL and cuBLAS somewhere (PyTorch's will do) but no Open MPI, PMIx,
# hwloc, libcsv, jansson or PLplot.  Every step has a time limit, a failed
# step does not stop the run, and a table ends it.
#
#   BUNDLE          the bundle folder, or parbench-bundle.tar.xz|.tar.zst|.tar.gz
#                   (default: the bundle this script sits in, or bundle/ or
#                   parbench-bundle.tar.* beside it)
#   OUT             where the results go (default ./pb-gpu-out), 7 files:
#                   run.log (every step's output), summary.txt (the table),
#                   logs.tar.gz (one log per step, CSVs, nccl-tests' logs, each
#                   GPU test's log), results.csv, gemm.csv, report.html and
#                   vs-nccl-tests.txt (parbench against nccl-tests, size by size)
#   PB_DEADLINE_S   the whole run's budget in seconds (default 330): a step
#                   gets at most what is left, and is skipped under 8 s
#   PB_ONLY         a regular expression: run only the steps it matches
#   PB_GPU_LIBDIRS  folders holding libnccl.so.2 / libcublas.so.13 (else searched)
#   PB_UNPACK_DIR   where a tarball is unpacked (default /tmp/pb-bundle)
#
# Exit status: 0 when no step failed, 1 otherwise.
set -u
T0=$(date +%s)
DEADLINE=$((T0 + ${PB_DEADLINE_S:-330}))
OUT=${OUT:-$PWD/pb-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
WORK=$(mktemp -d /tmp/pb-run.XXXXXX)
mkdir -p "$WORK/logs"
: >"$OUT/run.log"
here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=run-lib.sh
. "$here/run-lib.sh"
LIB=$here/run-lib.sh

# ---- 1. the bundle --------------------------------------------------------
unpack_bundle "${1:-${BUNDLE:-}}"
export T0 DEADLINE OUT WORK B

# ---- 2. CUDA libraries from this machine: NCCL, cuBLAS, the driver ------
[ -n "$B" ] && gpu_libs

# ---- 3. the steps: the acceptance's first, the longest (ctest) last ------
# shellcheck disable=SC2016 # expanded by the inner shell
step nvidia-smi 30 'NVIDIA|Driver' bash -c 'nvidia-smi; rc=$?; nvidia-smi -L; nvidia-smi topo -m || true; exit $rc'
cd "$WORK" || exit 1 # files a command writes by default land here
if [ -n "$B" ]; then
    PB=$B/libexec/parbench
    CSV=$WORK/results.csv
    NCCL_RE='NCCL [0-9]+\.[0-9]+\.[0-9]+ \(header'
    # --nccl-lib: the NCCL PyTorch runs with, named explicitly (the other
    # steps find NCCL on the loader's path); the note is parbench's own
    # line saying which library it loaded, and its version
    if TORCH_NCCL=$(nccl_for_lib_step 2>>"$OUT/run.log"); then
        step nccl-lib 45 "$NCCL_RE" mpirun -np 1 "$PB" coll --backend nccl --nccl-lib "$TORCH_NCCL" \
             --op allreduce -b 8 -e 64M -f 8 --check --time-budget 0.25
    else
        record nccl-lib FAIL 0 "no libnccl.so.2 to name: none in a Python env's nvidia/nccl/lib, none on the loader's path"
    fi
    # one process, one thread per GPU: no MPI launcher at all (--gpus N)
    step gpus1-coll 60 'Wrong elements|check' "$PB" coll --backend nccl --gpus 1 \
         --op allreduce,sendrecv -b 8 -e 256M -f 4 --check --time-budget 0.25 --csv "$WORK/gpus1.csv"
    step gpus1-step 45 'check:' "$PB" step --backend nccl --gpus 1 --preset tiny --steps 3 --check
    # parbench against nccl-tests on this GPU, 1 MiB - 1 GiB: within 5 %
    step vs-nccl-tests 150 '^# verdict' bash "$here/vs_nccl_tests.sh" "$B" "$WORK"
    # the MPI side alone, host memory: what proves Open MPI relocated
    step mpi-host 45 'Wrong elements' mpirun -np 2 "$PB" coll --backend mpi --op allreduce \
         -b 8 -e 1M --check --time-budget 0.2 --csv "$WORK/mpi.csv"
    # topology: hwloc's PCI plugin from the bundle must see the GPU and NICs
    step topo 30 'topology of this node' "$PB" topo
    # cuBLAS: one GPU, a 7B-like layer, forward and backward
    step gemm 60 'gemm_' "$PB" gemm --backward --csv "$WORK/gemm.csv"
    # NCCL at one rank under mpirun: every collective, 8 B .. 64 MiB, verified
    step nccl-sweep 60 'Wrong elements' mpirun -np 1 "$PB" coll --backend nccl --op all \
         -b 8 -e 64M -f 4 --check --time-budget 0.1 --csv "$CSV"
    # CUDA graphs (-G): the batch captured once, replayed 20 times
    step nccl-graph 45 'Wrong elements' mpirun -np 1 "$PB" coll --backend nccl \
         --op allreduce,allgather -G 20 -b 1M -e 256M -f 4 --check --csv "$CSV"
    # the strategy patterns on NCCL, one rank (the executed step under
    # mpirun is the ctest gpu_step_np1)
    step pattern 45 'no traffic|eff. bw|check' mpirun -np 1 "$PB" --pattern all --preset tiny \
         --backend nccl --check --time-budget 0.1 --csv "$WORK/pattern.csv"
    # parbench tune on NCCL (issue 33): NCCL's algorithm, protocol and
    # channels per communicator, one rank, within 40 s
    step nccl-tune 60 '^# wrote .*tune.env' mpirun -np 1 -x OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
         "$PB" tune --backend nccl --op allreduce --sizes 1M,64M \
         --knobs NCCL_ALGO,NCCL_PROTO,NCCL_MAX_NCHANNELS --budget 40s \
         --env "$WORK/tune.env" --tune-csv "$WORK/tune.csv"
    # the NCCL profiler plugin in parbench's own sweep (issue 34)
    step nccl-profiler 60 '^profiler: [1-9][0-9]* records' bash "$LIB" profiler_run "$PB"
    # the HTML report (PLplot's svg device from the bundle)
    RCSV=$CSV; [ -s "$RCSV" ] || RCSV=$WORK/mpi.csv # the MPI rows when NCCL wrote none
    step report 30 'report written' "$PB" report "$RCSV" -o "$WORK/report.html"
    step ctest-gpu 300 '^summary:' bash "$LIB" ctest_run
fi

# ---- 4. results ---------------------------------------------------------------
summary
rc=$?
for f in results.csv gemm.csv report.html vs-nccl-tests.txt; do
    [ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"
done
[ -n "$B" ] && [ -d "$B/ctest/Testing" ] && cp -r "$B/ctest/Testing" "$WORK/ctest-Testing"
cd "$OUT" || exit 1
tar -C "$WORK" -czf "$OUT/logs.tar.gz" . 2>/dev/null && rm -rf "$WORK" # all of it is in $OUT now
echo
cat "$OUT/summary.txt"
exit "$rc"
