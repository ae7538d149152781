#!/usr/bin/env bash
# check_bundle.sh BUILD_DIR SRC_DIR [PARBENCH] - what of the GPU acceptance
# run (tests/gpu/bundle) can be checked without a GPU, on the real build:
#  1. the bundle's scripts parse (bash -n, sh -n, Python's parser), and
#     what pack.sh copies from the build is what it builds;
#  2. relocate_ctest.sh on this build's tests/gpu: no build or source path
#     and no build mpiexec left; every gpu-labelled test of the build (in
#     tests/gpu or not: relocate_ctest.sh reads tests/gpu) is in
#     the relocated CTest file (as ctest reads it) and in the JSON (as
#     run_tests.py reads it), and nothing else; each relocated program or
#     script exists in the build or source tree under the name it gets;
#  3. vs_table.sh, the 5 % gate, on nccl-tests logs read by `parbench
#     import` (PARBENCH) and parbench rows: a pass, a size 7 % off, a size
#     one side lacks, a launch-bound size left unjudged, and with nccl-tests
#     run twice, its spread as the tolerance where wider than 5 % (and not
#     where narrower).
#  0. (issue 51) the AMD variant, which needs no build: `pack.sh --amd
#     --dry-run` configures HIP, ships run-on-amd.sh and scripts that exist
#     and parse, and says rccl-tests is not built where no RCCL is (as
#     here); `run-on-amd.sh --list` has the steps the acceptance names
#     (rccl backend, gemm, topo, vs-rccl-tests).
# Exit 0 all good, 1 a check failed, 77 no GPU tests in this build (CUDA off)
# and the AMD checks passed.
# CTEST=path picks the ctest program (default: PATH's).
set -u
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR SRC_DIR [PARBENCH]" >&2; exit 2; }
BUILD=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd) PB=${3:-}
CTEST=${CTEST:-ctest}
export CTEST
HERE=$(cd "$(dirname "$0")" && pwd) # the scripts checked: this one's siblings
TMP=$(mktemp -d /tmp/pb-check-bundle.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ---- 0. the AMD variant (no build needed) -------------------------------------
amd_checks() {
    local d=$TMP/amd out steps want s
    mkdir -p "$d/rccl-tests-src/src" "$d/no-rocm"
    : >"$d/rccl-tests-src/src/Makefile" # a source, but no RCCL to build it against
    bash -n "$HERE/run-on-amd.sh" || bad "run-on-amd.sh does not parse (bash -n)"
    out=$(PB_REPO=$SRC PB_WORK=$d/w RCCL_TESTS_SRC=$d/rccl-tests-src ROCM_PATH=$d/no-rocm \
          bash "$HERE/pack.sh" --amd --dry-run 2>&1) || bad "pack.sh --amd --dry-run failed: $out"
    grep -qx 'vendor: amd' <<<"$out" || bad "pack.sh --amd: not the AMD variant"
    grep -q '^cmake: .*-DPARBENCH_HIP=ON' <<<"$out" || bad "pack.sh --amd: HIP not configured"
    grep -qx "rccl-tests: not built (no RCCL: no librccl.so\*, rccl.h and hipcc under $d/no-rocm)" <<<"$out" ||
        bad "pack.sh --amd: without an RCCL, rccl-tests is not said to be left out: $out"
    for s in $(sed -n 's/^scripts: //p' <<<"$out"); do
        [ -f "$HERE/$s" ] || bad "pack.sh --amd ships $s, which is not beside it"
    done
    grep -q '^scripts: run-on-amd.sh ' <<<"$out" || bad "pack.sh --amd does not ship run-on-amd.sh"
    out=$(PB_REPO=$SRC PB_WORK=$d/w bash "$HERE/pack.sh" --dry-run 2>&1)
    grep -qx 'vendor: nvidia' <<<"$out" && grep -q '^cmake: -DPARBENCH_CUDA=ON$' <<<"$out" ||
        bad "pack.sh without --amd is no longer the NVIDIA bundle: $out"
    # the steps, in order, and what each must run
    steps=$(bash "$HERE/run-on-amd.sh" --list 2>&1) || bad "run-on-amd.sh --list failed: $steps"
    want="rocm-smi rccl-lib gpus1-coll gpus1-step vs-rccl-tests mpi-host topo gemm rccl-sweep rccl-graph pattern report"
    [ "$(awk '$1 == "step" { printf "%s%s", sep, $2; sep = " " }' <<<"$steps")" = "$want" ] ||
        bad "run-on-amd.sh steps are not: $want"
    grep -q '^step rccl-lib .*--backend rccl --nccl-lib ' <<<"$steps" || bad "rccl-lib: not --backend rccl --nccl-lib"
    grep -q '^step gemm .*/parbench gemm ' <<<"$steps" || bad "gemm: not parbench gemm"
    grep -q '^step topo .*/parbench topo$' <<<"$steps" || bad "topo: not parbench topo"
    grep -q '^step vs-rccl-tests .*PB_VS_VENDOR=amd .*vs_nccl_tests.sh' <<<"$steps" || bad "vs-rccl-tests: not the AMD comparison"
    grep -q -e '--backend nccl' <<<"$steps" && bad "run-on-amd.sh runs the nccl backend"
    return 0
}
amd_checks
[ -f "$BUILD/tests/gpu/CTestTestfile.cmake" ] ||
    { [ "$fail" -eq 0 ] || exit 1; echo "no GPU tests in $BUILD: skipped (the AMD checks passed)"; exit 77; }

# ---- 1. syntax --------------------------------------------------------------
for f in pack.sh run-on-gpu.sh run-on-amd.sh run-lib.sh vs_nccl_tests.sh vs_table.sh relocate_ctest.sh; do
    bash -n "$HERE/$f" || bad "$f does not parse (bash -n)"
done
for f in "$HERE/env.sh" "$HERE/wrapper.sh"; do # sourced or run by sh, not bash
    sh -n "$f" || bad "$f does not parse (sh -n)"
done
if command -v python3 >/dev/null; then
    python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$HERE/run_tests.py" ||
        bad "run_tests.py does not parse"
fi

# Every file pack.sh copies out of the build is one it builds: it builds
# named targets only, and a cp of one it does not name stops the packing
# (libnccl-profiler-parbench.so did, before the GPU machine ever saw it)
targets=$(sed -n 's/^TARGETS=(\(.*\))$/\1/p' "$HERE/pack.sh")
[ -n "$targets" ] || bad "pack.sh: no TARGETS=(...) line"
for f in $(grep -o 'cp "\$BUILD/[A-Za-z0-9_.-]*"' "$HERE/pack.sh" | sed 's|.*/||; s|"$||'); do
    t=${f#lib}; t=${t%.so}
    case " $targets " in *" $t "*|*" $f "*) ;; *) bad "pack.sh copies $f but does not build it (TARGETS)";; esac
done

# ---- 2. the relocated CTest files -------------------------------------------
R=$TMP/reloc
if ! bash "$HERE/relocate_ctest.sh" "$BUILD" "$SRC" "$R"; then
    bad "relocate_ctest.sh failed"
else
    # the whole build's gpu tests: one outside tests/gpu would be left out
    (cd "$BUILD" && "$CTEST" -N -L '^gpu$') |
        awk '$1 == "Test" && $2 ~ /^#[0-9]+:$/ { print $3 }' | sort >"$TMP/want"
    [ -s "$TMP/want" ] || bad "the build lists no gpu-labelled test"
    grep -l -F -e "$BUILD" -e "$SRC" "$R"/*.in && bad "a build or source path is left"
    M=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$BUILD/CMakeCache.txt")
    [ -n "$M" ] && grep -q -F "\"$M\"" "$R"/*.in && bad "the build's mpiexec $M is left"
    # as ctest reads it, with the bundle's folder substituted
    F=$TMP/fakebundle/ctest
    mkdir -p "$F"
    sed "s|@PB_BUNDLE@|$TMP/fakebundle|g" "$R/CTestTestfile.cmake.in" >"$F/CTestTestfile.cmake"
    (cd "$F" && "$CTEST" -N -L '^gpu$') | awk '$1 == "Test" && $2 ~ /^#[0-9]+:$/ { print $3 }' |
        sort >"$TMP/ctest-got"
    diff "$TMP/want" "$TMP/ctest-got" >/dev/null ||
        bad "relocated CTestTestfile: tests differ from the build's (a gpu test outside tests/gpu?): $(diff "$TMP/want" "$TMP/ctest-got" | grep '^[<>]' | tr '\n' ' ')"
    if command -v python3 >/dev/null; then
        python3 "$HERE/run_tests.py" --list -L gpu "$R/tests.json.in" | sort >"$TMP/json-got"
        diff "$TMP/want" "$TMP/json-got" >/dev/null ||
            bad "relocated JSON: tests differ from the build's: $(diff "$TMP/want" "$TMP/json-got" | grep '^[<>]' | tr '\n' ' ')"
    fi
    # each relocated path names a file the bundle will have: libexec/ from
    # the build (pack.sh copies it by that name), tests/ from the sources;
    # ctest/ holds outputs only (*.csv), never a program of the build
    while read -r p; do
        n=${p#*/}
        case $p in
        libexec/*) [ -x "$BUILD/$n" ] || [ -x "$BUILD/tests/gpu/$n" ] ||
                       bad "$p: no such program in the build" ;;
        tests/*)   [ -f "$SRC/tests/gpu/$n" ] || [ -f "$SRC/tests/$n" ] || bad "$p: no such script" ;;
        ctest/*)   case $n in *.csv|*.log) ;; *) bad "$p: a ctest/ path that is not an output" ;; esac ;;
        bin/mpiexec) ;;
        *) bad "$p: not a place the bundle has" ;;
        esac
    done < <(grep -ho '@PB_BUNDLE@/[^";]*' "$R"/*.in | sed 's|^@PB_BUNDLE@/||' | grep / | sort -u)
fi

# ---- 3. the 5 % gate ----------------------------------------------------------
# an nccl-tests log of one GPU (the columns of nccl-tests 2.19) and
# parbench's out-of-place throughput rows of the same sizes
nt_log() { # OP US...: a log with sizes 1, 2, 4, 8 MiB taking these times
    local op=$1 sz=1048576 t; shift
    printf '# nccl-tests version 2.19.6 nccl-headers=22805 nccl-library=22805\n'
    printf '# Collective test starting: %s_perf\n' "$op"
    printf '# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 10 iters: 50 agg iters: 1 validation: 1 graph: 0 unalign: 0\n#\n# Using devices\n'
    printf '#  Rank  0 Group  0 Pid   4242 on       host device  0 [0000:18:00] NVIDIA H200\n#\n'
    printf '#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n'
    printf '#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n'
    for t in "$@"; do
        printf '%12d  %12d  %8s  %6s  %6s  %7.2f  %6.2f  %6.2f  %6d  %7.2f  %6.2f  %6.2f  %6d\n' \
            "$sz" $((sz / 4)) float sum -1 "$t" 1 0 0 "$t" 1 0 0
        sz=$((sz * 2))
    done
    printf '# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0 \n#\n# Collective test concluded: %s_perf\n' "$op"
}
pb_csv() { # OP US... (sizes 1, 2, 4, 8 MiB); "-" leaves a size out
    local op=$1 sz=1048576 t; shift
    for t in "$@"; do
        [ "$t" = - ] || printf '"r","t","host",1,1,"nccl","throughput","coll","%s","world",1,"",%d,"float",0,100,%s,%s,%s,%s,1,0,0,"x, ""quoted""","sum",0,0,0\n' \
            "$op" "$sz" "$t" "$t" "$t" "$t"
        sz=$((sz * 2))
    done
}
HDR='run_id,timestamp,host,nodes,world,backend,mode,pattern,collective,group,group_size,link_class,bytes,dtype,in_place,iters,time_us_min,time_us_median,time_us_p99,time_us_max,algbw_gbps,busbw_gbps,wrong,label,redop,slowest_rank,flops,tflops'
gate() { # WANT_RC NAME PB_ALLREDUCE_US(3) : parbench rows against fixed nccl-tests times
    local want=$1 name=$2 rc; shift 2
    { echo "$HDR"; pb_csv allreduce "$@"; pb_csv sendrecv 10 20 40 80; } >"$TMP/pb-$name.csv"
    bash "$HERE/vs_table.sh" "$TMP/pb-$name.csv" "$TMP/nt.csv" 5 1048576 ${NT2:+"$NT2"} \
        >"$TMP/gate-$name.txt" 2>&1
    rc=$?
    [ "$rc" -eq "$want" ] || { bad "vs_table $name: exit $rc, not $want"; sed 's/^/    /' "$TMP/gate-$name.txt"; }
}
if [ -n "$PB" ]; then
    # judged: sizes of >= 1 MiB where nccl-tests took >= 2 x its fastest
    # time (10 us here), so 2, 4 and 8 MiB of each collective; 1 MiB is
    # launch-bound, shown only
    nt_log all_reduce 10.00 20.00 40.00 80.00 >"$TMP/all_reduce_perf.log"
    nt_log sendrecv 10.00 20.00 40.00 80.00 >"$TMP/sendrecv_perf.log"
    if "$PB" import "$TMP/all_reduce_perf.log" "$TMP/sendrecv_perf.log" --csv "$TMP/nt.csv" >"$TMP/import.txt" 2>&1; then
        gate 0 pass 10.4 19.2 40 80
        grep -q '^# verdict: PASS (0 of 6' "$TMP/gate-pass.txt" || bad "vs_table pass: no 'verdict: PASS (0 of 6' line"
        gate 1 off7 10 21.4 40 80
        grep -q '^allreduce .* 2097152 .*FAIL' "$TMP/gate-off7.txt" || bad "vs_table off7: 2 MiB not the FAIL row"
        gate 1 missing 10 20 40 -
        grep -q 'only nccl-tests measured it' "$TMP/gate-missing.txt" || bad "vs_table missing: not named"
        # half nccl-tests' time at 1 MiB: launch-bound, named, not judged
        gate 0 launch 5 20 40 80
        grep -q '^allreduce .* 1048576 .*launch-bound: < 2 x 10.00 us, not judged' "$TMP/gate-launch.txt" ||
            bad "vs_table launch: 1 MiB not named launch-bound"
        # nccl-tests run twice: its mean, and the wider of 5 % and its own
        # spread.  2 MiB at 20 and 24 us: mean 22, spread 4/22 = 18.2 %, so
        # parbench's 25 (+13.6 %) passes; at 20 and 20.4 us: mean 20.2,
        # spread 2.0 %, so 22 (+8.9 %) fails on the 5 %
        nt_log all_reduce 10.00 24.00 40.00 80.00 >"$TMP/ar2.log"
        "$PB" import "$TMP/ar2.log" "$TMP/sendrecv_perf.log" --csv "$TMP/nt2.csv" >/dev/null 2>&1
        NT2=$TMP/nt2.csv gate 0 spread 10 25 40 80
        grep -q '^allreduce .* 2097152 .* 22.00 .* 18.2  PASS' "$TMP/gate-spread.txt" ||
            bad "vs_table spread: 2 MiB not mean 22.00, spread 18.2, PASS"
        nt_log all_reduce 10.00 20.40 40.00 80.00 >"$TMP/ar3.log"
        "$PB" import "$TMP/ar3.log" "$TMP/sendrecv_perf.log" --csv "$TMP/nt3.csv" >/dev/null 2>&1
        NT2=$TMP/nt3.csv gate 1 tight 10 22 40 80
        grep -q '^allreduce .* 2097152 .* 20.20 .*  2.0  FAIL' "$TMP/gate-tight.txt" ||
            bad "vs_table tight: 2 MiB not mean 20.20, spread 2.0, FAIL"
    else
        bad "parbench import of a one-GPU nccl-tests log failed: $(tail -3 "$TMP/import.txt")"
    fi
fi
[ "$fail" -eq 0 ] && echo "check_bundle: all good ($(wc -l <"$TMP/want" 2>/dev/null || echo 0) gpu tests relocated)"
exit "$fail"
