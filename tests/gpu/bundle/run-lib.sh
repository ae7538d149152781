#!/usr/bin/env bash
# run-lib.sh - the functions of run-on-gpu.sh: the step runner and its
# table, unpacking, finding this machine's CUDA libraries (and PyTorch's
# NCCL), and the gpu-labelled tests.  Sourced by run-on-gpu.sh; run as a
# script, `bash run-lib.sh FUNCTION ARGS...` calls one function, so that a
# step can run it under `timeout` (which runs programs, not functions).
# Uses: T0, DEADLINE, OUT, WORK, B (exported by run-on-gpu.sh).

NAMES=() RES=() SECS=() NOTES=()
record() { # NAME RESULT SECONDS NOTE: a row of the table, printed as it comes
    NAMES+=("$1"); RES+=("$2"); SECS+=("$3"); NOTES+=("$4")
    printf '[%3ds] %-14s %-7s %4ss  %s\n' "$(($(date +%s) - T0))" "$1" "$2" "$3" "$4"
}
left() { echo $((DEADLINE - $(date +%s))); }

# step NAME MAX_S NOTE-REGEX CMD...: CMD under `timeout` (at most what is
# left of the run's budget), its output in logs/NN-NAME.log and run.log;
# PASS on exit 0, SKIP on 77, TIMEOUT, else FAIL.  The table's note: on a
# failure parbench's one-line reason, else the log's last line matching
# NOTE-REGEX (or its last line).  PB_ONLY=REGEX runs only the steps whose
# names match (a rerun of the failing ones).  PB_LIST_STEPS=1 prints each
# step (name, limit, command) and runs nothing: check_bundle.sh reads it.
NSTEP=0
step() {
    local name=$1 max=$2 re=$3; shift 3
    NSTEP=$((NSTEP + 1))
    if [ -n "${PB_LIST_STEPS:-}" ]; then printf 'step %s %ss: %s\n' "$name" "$max" "$*"; return 0; fi
    local log rem t s rc dt res note
    if [ -n "${PB_ONLY:-}" ] && ! [[ $name =~ $PB_ONLY ]]; then
        record "$name" SKIP 0 "not in PB_ONLY"; return 0
    fi
    log=$(printf '%s/logs/%02d-%s.log' "$WORK" "$NSTEP" "$name")
    rem=$(left)
    if [ "$rem" -lt 8 ]; then record "$name" SKIP 0 "no time left"; return 0; fi
    t=$((max < rem ? max : rem))
    printf '### %s (limit %ss): %s\n' "$name" "$t" "$*" >"$log"
    s=$(date +%s)
    timeout -k 10 "$t" "$@" >>"$log" 2>&1 </dev/null
    rc=$?
    dt=$(($(date +%s) - s))
    case $rc in
    0) res=PASS ;; 77) res=SKIP ;; 124|137) res=TIMEOUT ;; *) res=FAIL ;;
    esac
    printf '### exit %s after %ss: %s\n\n' "$rc" "$dt" "$res" >>"$log"
    cat "$log" >>"$OUT/run.log"
    note=
    [ "$rc" -ne 0 ] && note=$(grep -E '^parbench:|^summary:|^vs:' "$log" | tail -1)
    [ -n "$note" ] || note=$(grep -E -- "$re" "$log" | grep -v '^###' | tail -1)
    [ -n "$note" ] || note=$(grep -v '^###' "$log" | grep -v '^\s*$' | tail -1)
    note=$(printf '%s' "$note" | tr -s ' \t' ' ' | sed 's/^[# ]*//' | cut -c1-160)
    record "$name" "$res" "$dt" "rc=$rc ${note}"
}

# the table: summary.txt, and the exit status (0: no step failed)
summary() {
    local i nfail=0
    {
        printf 'parbench bundle on %s, %s; %ss in all\n' "$(hostname)" "$(date -u +%FT%TZ)" \
            "$(($(date +%s) - T0))"
        [ -n "${B:-}" ] && [ -r "$B/MANIFEST" ] && sed -n '1p;/^nccl-tests:/p' "$B/MANIFEST"
        printf '%-14s %-7s %5s  %s\n' step result secs note
        for i in "${!NAMES[@]}"; do
            printf '%-14s %-7s %5s  %s\n' "${NAMES[$i]}" "${RES[$i]}" "${SECS[$i]}" "${NOTES[$i]}"
            case ${RES[$i]} in FAIL|TIMEOUT) nfail=$((nfail + 1)) ;; esac
        done
        echo "$nfail step(s) failed or timed out"
    } >"$WORK/summary.txt"
    cp "$WORK/summary.txt" "$OUT/summary.txt"
    [ "$nfail" -eq 0 ]
}

unpack() { # TARBALL DIR: xz or zstd, else Python's tarfile (a machine without xz)
    local f=$1 d=$2
    rm -rf "$d"; mkdir -p "$d"
    case $f in
    *.zst) command -v zstd >/dev/null || { echo "no zstd here: ship the .tar.xz"; return 1; }
           zstd -dc "$f" | tar -C "$d" -xf - ;;
    *)     tar -C "$d" -xf "$f" && return 0
           echo "tar could not unpack it (no xz program?): Python's tarfile"
           rm -rf "$d"; mkdir -p "$d"
           python3 -c 'import sys, tarfile; t = tarfile.open(sys.argv[1])
t.extractall(sys.argv[2], **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))' "$f" "$d" ;;
    esac
}

# Python environments' site-packages, one a line (where pip puts the
# nvidia-* wheels PyTorch runs with); bounded, a broken Python costs 20 s
# The bundle: a folder used in place, or a tarball unpacked (into
# PB_UNPACK_DIR, default /tmp/pb-bundle); looked for beside the script
# when not given.  Sets B, the bundle's folder ("" when none), and
# records the unpack row.  Both run-on-gpu.sh and run-on-amd.sh start here.
# shellcheck disable=SC2154 # here, LIB, WORK: set by the caller
unpack_bundle() { # [FOLDER|TARBALL]
    local src=${1:-} c s D
    B=
    if [ -z "$src" ]; then
        for c in "$here" "$here/bundle" "$here"/parbench-bundle.tar.xz "$here"/parbench-bundle.tar.zst \
                 "$here"/parbench-bundle.tar.gz; do
            if [ -f "$c/env.sh" ] && [ -x "$c/libexec/parbench" ]; then src=$c; break; fi
            if [ -f "$c" ]; then src=$c; break; fi
        done
    fi
    s=$(date +%s)
    if [ -z "$src" ] || [ ! -e "$src" ]; then
        record unpack FAIL 0 "no bundle (give its folder or tarball as the argument)"
    elif [ -d "$src" ]; then
        B=$(cd "$src" && pwd -P)
        record unpack PASS 0 "folder $B (used in place)"
    else
        D=${PB_UNPACK_DIR:-/tmp/pb-bundle}
        if timeout 120 bash "$LIB" unpack "$src" "$D" >"$WORK/logs/00-unpack.log" 2>&1 &&
           [ -f "$D/bundle/env.sh" ]; then
            B=$D/bundle
            record unpack PASS $(($(date +%s) - s)) "$(du -sh "$B" | cut -f1) into $B from $(basename "$src")"
        else
            record unpack FAIL $(($(date +%s) - s)) "$(tail -1 "$WORK/logs/00-unpack.log")"
        fi
    fi
}

site_dirs() {
    local py
    for py in python3 /opt/*/.venv/bin/python3 /opt/*/bin/python3 /opt/conda/bin/python3 \
              ${VIRTUAL_ENV:+"$VIRTUAL_ENV/bin/python3"} ${CONDA_PREFIX:+"$CONDA_PREFIX/bin/python3"}; do
        command -v "$py" >/dev/null 2>&1 || continue
        timeout 20 "$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + sys.path))' \
            2>/dev/null
    done | awk 'NF && !seen[$0]++'
}

# PyTorch's libnccl.so.2: the nvidia-nccl wheel's, else one torch/lib
# carries; prints its path, or nothing
find_torch_nccl() {
    local sp f
    while read -r sp; do
        for f in "$sp"/nvidia/nccl/lib/libnccl.so.2 "$sp"/torch/lib/libnccl.so.2; do
            [ -e "$f" ] && { echo "$f"; return 0; }
        done
    done < <(site_dirs)
    return 1
}

# The library the nccl-lib step names with --nccl-lib: PyTorch's, else
# (said so on stderr) the one on the loader's path; prints its path
nccl_for_lib_step() {
    local f d
    if f=$(find_torch_nccl); then echo "$f"; return 0; fi
    for d in ${PB_GPU_LIBDIRS//:/ }; do
        [ -e "$d/libnccl.so.2" ] && f=$d/libnccl.so.2 && break
    done
    [ -n "$f" ] || f=$(ldconfig -p 2>/dev/null | awk '$1 == "libnccl.so.2" { print $NF; exit }')
    [ -n "$f" ] || return 1
    echo "no PyTorch NCCL (nvidia/nccl/lib in no site-packages): the loader's $f instead" >&2
    echo "$f"
}

find_gpu_libs() { # prints the folders to add to LD_LIBRARY_PATH, logs to stderr
    local want=(libnccl.so.2 libcublas.so.13 libcublasLt.so.13 libcuda.so.1 libnvidia-ml.so.1)
    local dirs=() cands=() lib d sp found have x
    [ -e "$B/lib/libnccl.so.2" ] && want=("${want[@]:1}")
    for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
             /usr/local/cuda-*/lib64 /usr/local/nvidia/lib64 /usr/local/nvidia/lib \
             /usr/lib/x86_64-linux-gnu /usr/lib64; do
        [ -d "$d" ] && cands+=("$d")
    done
    while read -r sp; do
        for d in "$sp"/nvidia/nccl/lib "$sp"/nvidia/cu13/lib "$sp"/nvidia/cublas/lib \
                 "$sp"/nvidia/cuda_runtime/lib; do
            [ -d "$d" ] && cands+=("$d")
        done
    done < <(site_dirs)
    for lib in "${want[@]}"; do
        found=
        if ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$lib "; then
            echo "$lib: in the loader's cache: $(ldconfig -p | grep -m1 "^[[:space:]]*$lib " | sed 's/.*=> //')" >&2
            continue
        fi
        for d in ${cands[@]+"${cands[@]}"}; do
            if [ -e "$d/$lib" ]; then found=$d; break; fi
        done
        if [ -z "$found" ]; then
            case $lib in
            libnccl*|libcublas*) # last resort, bounded
                found=$(timeout 20 find /opt /usr/local /usr/lib /root /home -xdev -name "$lib" 2>/dev/null | head -1)
                found=${found%/*} ;;
            esac
        fi
        if [ -n "$found" ]; then
            echo "$lib: $found" >&2
            have=0
            for x in ${dirs[@]+"${dirs[@]}"}; do [ "$x" = "$found" ] && have=1; done
            [ "$have" = 1 ] || dirs+=("$found")
        else
            echo "$lib: NOT FOUND" >&2
        fi
    done
    local IFS=:
    echo "${dirs[*]+${dirs[*]}}"
}

# The gpu-libs row: the folders found go to $B/gpu-libdirs (env.sh puts
# them on LD_LIBRARY_PATH: parbench's dlopen and nccl-tests' loader search
# there), and the note names where libnccl.so.2 was found.  parbench
# links no NCCL, so `ldd parbench` cannot tell; the nccl-lib step prints
# what parbench itself loaded.
gpu_libs() {
    local s log=$WORK/logs/00-gpu-libs.log miss nccl
    s=$(date +%s)
    if [ -n "${PB_GPU_LIBDIRS:-}" ]; then
        echo "PB_GPU_LIBDIRS given: $PB_GPU_LIBDIRS" >"$log"
    else
        PB_GPU_LIBDIRS=$(find_gpu_libs 2>"$log")
    fi
    printf '%s\n' "$PB_GPU_LIBDIRS" >"$B/gpu-libdirs"
    export PB_BUNDLE=$B
    unset PB_ENV_DONE
    # shellcheck source=env.sh
    . "$B/env.sh"
    {
        echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
        echo "## ldd parbench"; ldd "$B/libexec/parbench"
        echo "## ldd orterun"; ldd "$B/libexec/orterun"
        [ -x "$B/libexec/all_reduce_perf" ] && { echo "## ldd all_reduce_perf"; ldd "$B/libexec/all_reduce_perf"; }
    } >>"$log" 2>&1
    cat "$log" >>"$OUT/run.log"
    miss=$(grep -h 'not found\|NOT FOUND' "$log" | awk '{sub(/:$/, "", $1); print $1}' | sort -u | tr '\n' ' ')
    nccl=$(sed -n 's/^libnccl.so.2: //p' "$log" | head -1)
    [ -n "$nccl" ] || { [ -e "$B/lib/libnccl.so.2" ] && nccl="the bundle's lib/"; }
    if [ -n "$miss" ]; then
        record gpu-libs FAIL $(($(date +%s) - s)) "not found: $miss"
    else
        record gpu-libs PASS $(($(date +%s) - s)) "libnccl.so.2: ${nccl:-?}"
    fi
    { echo "## bundle"; sed -n '1,3p;/^nccl-tests:/p;/^## highest/,$p' "$B/MANIFEST"; } >>"$OUT/run.log"
}

# The project's GPU tests (CTest label gpu; those needing 2-8 GPUs skip,
# 77): ctest --test-dir on the bundle's relocated CTest file, else the
# bundle's runner where no ctest >= 3.20 is installed
ctest_run() {
    local stop v rc
    sed "s|@PB_BUNDLE@|$B|g" "$B/ctest/CTestTestfile.cmake.in" >"$B/ctest/CTestTestfile.cmake"
    stop=$(date -d "@$((DEADLINE - 5))" +%H:%M:%S 2>/dev/null)
    v=$(ctest --version 2>/dev/null | awk 'NR == 1 {print $3}')
    if [ -n "$v" ] && printf '%s\n' "$v" | awk -F. '{exit !($1 > 3 || ($1 == 3 && $2 >= 20))}'; then
        ctest --version | head -1
        ctest --test-dir "$B/ctest" -L '^gpu$' --output-on-failure ${stop:+--stop-time "$stop"} |
            tee "$WORK/ctest.out"
        rc=${PIPESTATUS[0]}
        echo "summary: $(grep -cE 'Test +#[0-9]+: .* Passed' "$WORK/ctest.out") passed," \
             "$(grep -cE '\*\*\*(Failed|Timeout|Exception)|Not Run' "$WORK/ctest.out") failed," \
             "$(grep -cE '\*\*\*Skipped' "$WORK/ctest.out") skipped (ctest)"
        return "$rc"
    fi
    echo "no ctest >= 3.20 here: the bundle's runner"
    python3 "$B/ctest/run_tests.py" "$B/ctest/tests.json.in" -L '^gpu$' \
        --budget $(($(left) - 5)) --logdir "$WORK/ctest-logs" | tee "$WORK/ctest.out"
    rc=${PIPESTATUS[0]}
    echo "summary: $(tail -1 "$WORK/ctest.out") (run_tests.py)"
    return "$rc"
}

# profiler_run PB - parbench's own NCCL sweep with the NCCL profiler
# plugin loaded (issue 34): one rank, send/recv to itself at 1 MiB, 5
# warm-up and 20 timed operations, then verification.  Send/recv, not
# all-reduce: on a one-rank communicator NCCL issues a collective as a
# plain copy without a task (src/enqueue.cc, taskAppend: "single rank
# communicators ... don't need a task"), so no profiler event is ever
# made for it (the H200 run of 2026-12-04 recorded 0 all-reduces);
# point-to-point operations still go through the planner.  Prints what
# the plugin's files hold (doc/profiling.md: a 256-byte header, then
# 128-byte records whose first 4 bytes are their kind: 1 collective, 2
# point-to-point, 3 end), counted by this script independently of
# parbench (none is a failure), then what parbench profile makes of them
# (its exit status is the step's).
profiler_run() {
    local pb=$1 dir=$WORK/nccl-prof
    rm -rf "$dir" && mkdir -p "$dir" || return 1
    NCCL_PROFILER_PLUGIN=$B/lib/libnccl-profiler-parbench.so PARBENCH_PROFILE_DIR=$dir \
        mpirun -np 1 -x NCCL_PROFILER_PLUGIN -x PARBENCH_PROFILE_DIR "$pb" coll --backend nccl \
        --op sendrecv -b 1M -e 1M -n 20 -w 5 --check || return 1
    python3 - "$dir" <<'PY'
import glob, struct, sys
files = glob.glob(sys.argv[1] + "/parbench-prof-*.bin")
coll = p2p = dropped = gpu = 0
names = {}
devices = []
for f in files:
    data = open(f, "rb").read()
    api = struct.unpack_from("<i", data, 40)[0]
    # format 3 (doc/profiling.md): the CUDA device current at the
    # communicator's init, byte 192 (pb_prof_rec.h asserts the offset)
    devices.append(struct.unpack_from("<i", data, 192)[0])
    for off in range(256, len(data) - 127, 128):
        kind, = struct.unpack_from("<I", data, off)
        if kind == 1 or kind == 2:
            g0, g1 = struct.unpack_from("<QQ", data, off + 56)
            func = data[off + 76:off + 92].split(b"\0")[0].decode()
            names[func] = names.get(func, 0) + 1
            coll += kind == 1
            p2p += kind == 2
            gpu += g1 > g0 > 0
        elif kind == 3:
            dropped += struct.unpack_from("<Q", data, off + 16)[0]
    print("file %s: API v%d" % (f.rsplit("/", 1)[-1], api))
print("profiler: %d records (%d collective, %d p2p; %s) in %d files, %d dropped, %d with GPU times"
      ", devices %s" % (coll + p2p, coll, p2p, names, len(files), dropped, gpu, devices))
# one rank on GPU 0: every file must name device 0 (-1 would mean the
# plugin found no CUDA context at init, and profile could not tell a
# multi-GPU process's ranks apart)
sys.exit(0 if coll + p2p > 0 and devices and all(d == 0 for d in devices) else 1)
PY
    [ $? -eq 0 ] || { echo "profiler_run: the plugin recorded no operation, or a file names no device 0"; return 1; }
    # parbench profile on what was recorded: the same operations, joined
    # (its head line counts records and operations), and the ops CSV
    local rc
    "$pb" profile "$dir" --csv "$WORK/nccl-prof.csv" --trace "$WORK/nccl-prof.json" \
        >"$WORK/nccl-prof.txt" 2>&1
    rc=$?
    head -12 "$WORK/nccl-prof.txt"
    return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ] && [ $# -gt 0 ]; then
    set -u
    "$@"
fi
