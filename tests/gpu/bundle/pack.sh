#!/usr/bin/env bash
# pack.sh - builds parbench with CUDA on this Debian 12 machine, and
# nccl-tests from source beside it, and assembles a relocatable bundle for a
# GPU machine that has CUDA, a driver, NCCL and cuBLAS (PyTorch's will do)
# but no Open MPI, PMIx, hwloc, libcsv, jansson or PLplot.  The GPU
# acceptance run (doc/gpus.md):
#
#   tests/gpu/bundle/pack.sh       # from the project's root: build + bundle + tarball
#   tests/gpu/bundle/pack.sh --amd # the AMD variant: HIP build, rccl-tests, run-on-amd.sh
#   tests/gpu/bundle/pack.sh [--amd] --dry-run  # what would be built and shipped; builds nothing
#
# It builds the committed HEAD of this checkout (a clone in $W/src), with
# the scripts beside this one.  Idempotent: the clone is updated, the builds
# are incremental, downloaded .debs are kept in $W/debs, and the bundle is
# laid out anew each run.
#
# Environment:
#   PB_WORK         work folder (default .gpub in the project's root, which
#                   .gitignore leaves out): src/ build/ debs/ debx/ bundle/ ...
#   PB_REPO         the repository to clone (default: the checkout this script is in)
#   NCCL_TESTS_SRC  NVIDIA/nccl-tests' source (default $W/nccl-tests-src); absent:
#                   the bundle goes without nccl-tests, said so (vs-nccl-tests fails)
#   NCCL_TESTS_GENCODE  nvcc's -gencode flags for nccl-tests (default sm_90 code,
#                   H100/H200, and compute_90 PTX, which newer GPUs compile at load)
#   SHIP_NCCL=1     also ship libnccl.so.2 (over 200 MB: over any tarball budget)
#   SHIP_LIBXML2=0  leave out libxml2 + ICU (only `topo --nccl-topo` opens them)
#   PB_TARBALLS     "xz" (default), "xz zst": which compressed copies to write
#  --amd only (issue 51; W defaults to .gpub/amd):
#   RCCL_TESTS_SRC  ROCm/rccl-tests' source (default $W/rccl-tests-src); built with
#                   ROCm's hipcc only where an RCCL is found ($ROCM_PATH/lib/librccl.so*
#                   and its rccl.h; Debian packages none), else said so: vs-rccl-tests fails
#   ROCM_PATH       the ROCm to build rccl-tests against (default /opt/rocm)
#
# Output: $W/bundle (the tree), $W/parbench-bundle.tar.xz, $W/bundle/MANIFEST
# (packages, libraries, nccl-tests' commit, sizes, highest GLIBC_ needed).
set -euo pipefail

PB_VENDOR=nvidia DRY=0
for a in "$@"; do
    case $a in
    --amd) PB_VENDOR=amd ;;
    --dry-run) DRY=1 ;;
    *) echo "[pack] unknown argument '$a' (--amd, --dry-run)" >&2; exit 2 ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd -P) # run-on-gpu.sh and the others live beside this script
REPO=${PB_REPO:-$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || true)}
[ -n "$REPO" ] || { echo "[pack] run it from the project's checkout (or set PB_REPO)" >&2; exit 2; }
W=${PB_WORK:-$REPO/.gpub}
[ "$PB_VENDOR" = amd ] && W=${PB_WORK:-$REPO/.gpub/amd}
SRC=$W/src BUILD=$W/build B=$W/bundle DEBS=$W/debs X=$W/debx
NT_SRC=${NCCL_TESTS_SRC:-$W/nccl-tests-src} NT_BUILD=$W/nccl-tests-build
NT_GENCODE=${NCCL_TESTS_GENCODE:--gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90}
CUDA=${CUDA_HOME:-/usr/local/cuda}
SHIP_NCCL=${SHIP_NCCL:-0} SHIP_LIBXML2=${SHIP_LIBXML2:-1}
ML=usr/lib/x86_64-linux-gnu
log() { printf '[pack] %s\n' "$*" >&2; }
die() { printf '[pack] ERROR: %s\n' "$*" >&2; exit 1; }
T0=$(date +%s)

# ---- 0. the vendor: what is configured, built and shipped ---------------------
# The AMD bundle has no gpu-labelled ctest (tests/gpu is CUDA's), so its run
# is run-on-amd.sh's steps alone; HIP, RCCL and rocBLAS come from the AMD
# machine (parbench opens them at run time), so nothing of ROCm is shipped.
if [ "$PB_VENDOR" = amd ]; then
    ROCM=${ROCM_PATH:-/opt/rocm}
    NT_SRC=${RCCL_TESTS_SRC:-$W/rccl-tests-src}
    CMAKE_GPU=(-DPARBENCH_HIP=ON -DPARBENCH_CUDA=OFF)
    PROGS=(parbench)
    RUN_SCRIPTS=(run-on-amd.sh run-lib.sh vs_nccl_tests.sh vs_table.sh README.md)
else
    CMAKE_GPU=(-DPARBENCH_CUDA=ON)
    PROGS=(parbench pb_memcpy_bw)
    RUN_SCRIPTS=(run-on-gpu.sh run-lib.sh vs_nccl_tests.sh vs_table.sh README.md)
fi
# rccl-tests is built where ROCm's hipcc and an RCCL (library and header) are
rccl_found() {
    ls "$ROCM"/lib/librccl.so* >/dev/null 2>&1 && [ -x "$ROCM/bin/hipcc" ] &&
        { [ -f "$ROCM/include/rccl/rccl.h" ] || [ -f "$ROCM/include/rccl.h" ]; }
}
tests_plan() { # the line the MANIFEST gets when nothing is built
    if [ "$PB_VENDOR" != amd ]; then
        [ -f "$NT_SRC/src/Makefile" ] && echo "nccl-tests: from $NT_SRC" || echo "nccl-tests: not built (no source at $NT_SRC)"
    elif ! [ -f "$NT_SRC/src/Makefile" ]; then echo "rccl-tests: not built (no source at $NT_SRC)"
    elif ! rccl_found; then echo "rccl-tests: not built (no RCCL: no librccl.so*, rccl.h and hipcc under $ROCM)"
    else echo "rccl-tests: from $NT_SRC against $ROCM"; fi
}
if [ "$DRY" = 1 ]; then
    echo "vendor: $PB_VENDOR"
    echo "work: $W"
    echo "cmake: ${CMAKE_GPU[*]}"
    echo "programs: ${PROGS[*]}"
    echo "scripts: ${RUN_SCRIPTS[*]} env.sh wrapper.sh"
    tests_plan
    exit 0
fi

# ---- 1. the build host's packages -----------------------------------------
# what the project's setup.sh installs, and patchelf
need=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhwloc-dev hwloc libcsv-dev
      libjansson-dev libplplot-dev libxml2-utils libxml2-dev zlib1g-dev patchelf xz-utils zstd binutils)
# the AMD build's kernels: Debian's hipcc (HIP 5.2; cmake/hip.cmake says which targets)
[ "$PB_VENDOR" = amd ] && need+=(hipcc libamdhip64-dev)
missing=()
for p in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- 2. parbench: source, configure, the tests' programs, build ------------
mkdir -p "$W"
if [ ! -d "$SRC/.git" ]; then
    git clone -q "$REPO" "$SRC"
else
    git -C "$SRC" pull -q --ff-only || log "warning: $SRC not updated; building it as it is"
fi
log "source: $(git -C "$SRC" log -1 --format='%h %cd' --date=short)"

# DT_RPATH (not RUNPATH, hence --disable-new-dtags) $ORIGIN/../lib: the real
# programs live in bundle/libexec and find bundle/lib, for their own
# libraries and for those libraries' dependencies, before anything else.
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "${CMAKE_GPU[@]}" \
    -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib' \
    -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags \
    -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--disable-new-dtags >"$W/cmake-configure.log" ||
    { tail -30 "$W/cmake-configure.log"; die "cmake configure failed"; }
# The gpu tests, relocated (configure is enough for CTest's files): the
# programs they run are the ones to build and ship, by name
rm -rf "$W/ctest"
TEST_PROGS=()
if [ "$PB_VENDOR" = nvidia ]; then
    CTEST=${CTEST:-ctest} bash "$HERE/relocate_ctest.sh" "$BUILD" "$SRC" "$W/ctest" >&2 ||
        die "the gpu tests could not be relocated (relocate_ctest.sh above)"
    mapfile -t TEST_PROGS < <(grep -ho '@PB_BUNDLE@/libexec/[^";]*' "$W/ctest"/*.in |
                              sed 's|.*/||' | sort -u | grep -vx parbench)
fi
# nccl-profiler-parbench: the plugin the nccl-profiler step has NCCL load
TARGETS=(parbench pb_memcpy_bw nccl-profiler-parbench "${TEST_PROGS[@]}")
[ "$PB_VENDOR" = amd ] && TARGETS=(parbench)
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}" >"$W/cmake-build.log" ||
    { tail -30 "$W/cmake-build.log"; die "build failed"; }
log "built: ${TARGETS[*]}"

# ---- 3. nccl-tests from source: all_reduce_perf and sendrecv_perf ---------
# MPI=0: one process drives the GPU(s), as parbench --gpus N does; linked
# against this machine's CUDA and NCCL headers, libnccl.so.2 comes from the
# GPU machine at run time (LD_LIBRARY_PATH, env.sh)
NT_BINS=(all_reduce_perf sendrecv_perf)
NT_LINE="nccl-tests: not built (no source at $NT_SRC)" NT_BUILT=0
build_nccl_tests() {
    local commit ver
    if [ ! -f "$NT_SRC/src/Makefile" ]; then
        log "NOTE: no nccl-tests source at $NT_SRC: the bundle goes without all_reduce_perf"
        log "      and sendrecv_perf, and the run's vs-nccl-tests step will fail.  Get it with"
        log "      git clone https://github.com/NVIDIA/nccl-tests $W/nccl-tests-src (or NCCL_TESTS_SRC=dir)"
        return 0
    fi
    # its own commit: a clone's HEAD, else the first line of .commit (write
    # it beside a `git archive` copy); never the enclosing repository's
    if [ -e "$NT_SRC/.git" ]; then commit=$(git -C "$NT_SRC" rev-parse HEAD)
    elif [ -s "$NT_SRC/.commit" ]; then commit=$(head -1 "$NT_SRC/.commit")
    else commit=unknown; fi
    ver=$(sed -n 's/^#define NCCL_TESTS_VERSION "\(.*\)"/\1/p' "$NT_SRC/src/common.h" 2>/dev/null || true)
    make -C "$NT_SRC/src" -j "$(nproc)" MPI=0 CUDA_HOME="$CUDA" NCCL_HOME="$CUDA" \
        BUILDDIR="$NT_BUILD" NVCC_GENCODE="$NT_GENCODE" "${NT_BINS[@]/#/$NT_BUILD/}" \
        >"$W/nccl-tests-build.log" 2>&1 ||
        { tail -30 "$W/nccl-tests-build.log"; die "nccl-tests did not build ($NT_SRC)"; }
    NT_LINE="nccl-tests: ${commit} (version ${ver:-?}), MPI=0, $NT_GENCODE: ${NT_BINS[*]}"
    NT_BUILT=1
    log "built nccl-tests ${ver:-?} (${commit:0:12}): ${NT_BINS[*]}"
}
# rccl-tests (a fork of nccl-tests: the same programs, flags and output, so
# vs_nccl_tests.sh and `parbench import` read it) with ROCm's hipcc against
# the RCCL under ROCM_PATH; MPI=0 as above
build_rccl_tests() {
    local commit
    NT_LINE=$(tests_plan)
    case $NT_LINE in *"not built"*) log "NOTE: $NT_LINE: the run's vs-rccl-tests step will fail"; return 0 ;; esac
    if [ -e "$NT_SRC/.git" ]; then commit=$(git -C "$NT_SRC" rev-parse HEAD); else commit=unknown; fi
    make -C "$NT_SRC/src" -j "$(nproc)" MPI=0 ROCM_PATH="$ROCM" NCCL_HOME="$ROCM" \
        BUILDDIR="$NT_BUILD" "${NT_BINS[@]/#/$NT_BUILD/}" >"$W/rccl-tests-build.log" 2>&1 ||
        { tail -30 "$W/rccl-tests-build.log"; die "rccl-tests did not build ($NT_SRC)"; }
    NT_LINE="nccl-tests: rccl-tests ${commit}, MPI=0, against $ROCM: ${NT_BINS[*]}"
    NT_BUILT=1
    log "built rccl-tests (${commit:0:12}): ${NT_BINS[*]}"
}
if [ "$PB_VENDOR" = amd ]; then build_rccl_tests; else build_nccl_tests; fi

# ---- 4. Debian packages: apt-get download + dpkg -x ------------------------
mkdir -p "$DEBS" "$X"
APT=(apt-get -q -o APT::Sandbox::User=root)
fetch_pkg() { # PKG: the installed version's .deb (else the candidate's), unpacked into $X
    local p=${1%%:*} v f
    [ -e "$X/.done-$p" ] && return 0
    v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
    if ! ls "$DEBS/${p}"_*.deb >/dev/null 2>&1; then
        (cd "$DEBS" && { { [ -n "$v" ] && "${APT[@]}" download "$p=$v" >/dev/null 2>&1; } ||
                         "${APT[@]}" download "$p" >/dev/null 2>&1; }) || true
    fi
    # shellcheck disable=SC2012 # Debian's file names are plain
    f=$(ls -t "$DEBS/${p}"_*.deb 2>/dev/null | head -1 || true)
    if [ -n "$f" ]; then
        dpkg -x "$f" "$X"
        basename "$f" >>"$DEBS/packages.txt"
    elif [ -n "$v" ]; then # offline: the installed package's files, as dpkg -x would give them
        log "warning: no .deb for $p; copying its installed files"
        dpkg -L "$p" | while read -r q; do [ -f "$q" ] && cp -a --parents "$q" "$X"; done
        echo "${p}_${v}_installed" >>"$DEBS/packages.txt"
    else
        die "cannot get package $p"
    fi
    touch "$X/.done-$p"
}
pkg_of() { # FILE -> the package that owns it (usrmerge: /lib and /usr/lib alike)
    local r f
    r=$(readlink -f "$1")
    for f in "$1" "$r" "/usr${r#/usr}" "${r#/usr}"; do
        dpkg -S "$f" 2>/dev/null | head -1 | cut -d: -f1 && return 0
    done
    return 1
}
BASE_PKGS=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libhwloc-plugins
           libplplot17 libplplot-data libcsv3 libjansson4)
for p in "${BASE_PKGS[@]}"; do fetch_pkg "$p"; done

# ---- 5. lay out the bundle ---------------------------------------------------
rm -rf "$B"
mkdir -p "$B"/{bin,libexec,lib/hwloc,lib/plplot/drivers,etc,share/plplot,tests,ctest} \
         "$B/lib/x86_64-linux-gnu/openmpi/lib/openmpi3" "$B/pmix2/lib/pmix" "$B/pmix2/share"
for p in "${PROGS[@]}"; do cp "$BUILD/$p" "$B/libexec/"; done
if [ "$PB_VENDOR" = nvidia ]; then
    cp "$BUILD/libnccl-profiler-parbench.so" "$B/lib/" # loaded by NCCL (NCCL_PROFILER_PLUGIN)
fi
for p in ${TEST_PROGS[@]+"${TEST_PROGS[@]}"}; do cp "$BUILD/tests/gpu/$p" "$B/libexec/"; done
for p in orterun orted ompi_info; do cp "$X/usr/bin/$p" "$B/libexec/"; done
# nccl-tests: stripped (their -g doubles them), RPATH to the bundle's lib/
# (its CUDA runtime, the one parbench runs with)
if [ "$NT_BUILT" = 1 ]; then
    for p in "${NT_BINS[@]}"; do
        cp "$NT_BUILD/$p" "$B/libexec/"
        strip "$B/libexec/$p"
        # shellcheck disable=SC2016 # $ORIGIN is for the loader
        patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$B/libexec/$p"
    done
fi

# Open MPI (OPAL_PREFIX=$B finds $B/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
# and $B/share/openmpi; OPAL_SYSCONFDIR=$B/etc).  Left out: the components
# for fabrics (UCX, OFI, verbs, PSM: their libraries are not shipped, and
# Debian's openmpi-mca-params.conf disables most of them anyway), netlink
# (libnl; reachable_weighted stays) and OpenSHMEM's frameworks.
SKIP_MCA='^mca_((atomic|memheap|scoll|spml|sshmem)_.*|btl_(ofi|openib)|mtl_(ofi|psm|psm2)|(osc|pml)_ucx|reachable_netlink)\.so$'
for f in "$X/$ML/openmpi/lib/openmpi3"/*.so; do
    basename "$f" | grep -Eq "$SKIP_MCA" || cp "$f" "$B/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/"
done
cp -r "$X/usr/share/openmpi" "$B/share/"
cp "$X"/etc/openmpi/* "$B/etc/"
# PMIx (ext3x): its 3 plugins and help texts.  Its pmix-mca-params.conf
# names /usr/lib/.../pmix2/lib/pmix absolutely: replaced by the variable
# PMIX_MCA_mca_base_component_path that env.sh sets.
cp "$X/$ML/pmix2/lib/pmix"/*.so "$B/pmix2/lib/pmix/"
cp -r "$X/$ML/pmix2/share/pmix" "$B/pmix2/share/"
echo "# component path: PMIX_MCA_mca_base_component_path (env.sh)" >"$B/pmix2/share/pmix-mca-params.conf"
# hwloc: only the PCI plugin (parbench blacklists the others, pb_topo.h)
cp "$X/$ML/hwloc/hwloc_pci.so" "$B/lib/hwloc/"
# PLplot: the svg device (reports) and its fonts and colour maps
for d in svg null mem; do cp "$X/$ML"/plplot5.15.0/drivers/$d.{so,driver_info} "$B/lib/plplot/drivers/"; done
cp "$X"/usr/share/plplot5.15.0/*.{fnt,pal} "$B/share/plplot/"

# ---- 6. the shared libraries they need, by closure ---------------------------
SYS_RE='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6|libz\.so\.1|liblzma\.so\.5)$'
GPU_RE='^(libcuda\.so\.1|libnvidia-.*|libcublas\.so\.13|libcublasLt\.so\.13|libamdhip64\.so\..*|librccl\.so\..*|libhsa-runtime64\.so\..*|librocblas\.so\..*)$'
[ "$SHIP_NCCL" = 1 ] || GPU_RE="${GPU_RE%)\$}|libnccl\\.so\\.2)\$"
if [ "$SHIP_NCCL" = 1 ]; then # parbench opens it by dlopen: no ldd names it but nccl-tests'
    cp -L "$CUDA/lib64/libnccl.so.2" "$B/lib/" 2>/dev/null || cp -L "$CUDA/lib/libnccl.so.2" "$B/lib/"
fi
: >"$W/libs.tsv"
if [ "$SHIP_LIBXML2" = 1 ]; then # opened by soname (dlopen), so ldd of parbench never names it
    fetch_pkg libxml2
    cp -L "$X/$ML/libxml2.so.2" "$B/lib/"
    printf '%s\t%s\t%s\n' libxml2.so.2 libxml2 "/$ML/libxml2.so.2" >"$W/libs.tsv"
fi
elves() { find "$B" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c \
              'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \; ; }
mapfile -t ELVES < <(elves)
declare -A SEEN=()
for e in "${ELVES[@]}"; do
    while read -r so path; do
        [ -n "${SEEN[$so]:-}" ] && continue
        SEEN[$so]=1
        if [[ $so =~ $SYS_RE ]]; then continue; fi
        if [[ $so =~ $GPU_RE ]]; then printf '%s\t%s\t%s\n' "$so" "-" "from the GPU machine" >>"$W/libs.tsv"; continue; fi
        [ "$path" = "not" ] && die "$e: $so not found on this machine"
        case $(readlink -f "$path") in
        "$(readlink -f "$CUDA")"/*|/usr/local/*) # the CUDA runtime: not Debian's
            cp -L "$path" "$B/lib/$so"; printf '%s\t%s\t%s\n' "$so" "cuda" "$(readlink -f "$path")" >>"$W/libs.tsv"; continue ;;
        esac
        pkg=$(pkg_of "$path") || die "$so ($path): no package owns it"
        fetch_pkg "$pkg"
        src=$(find "$X" -name "$so" \( -type f -o -type l \) | head -1)
        [ -n "$src" ] || die "$so: not in package $pkg"
        cp -L "$src" "$B/lib/$so"
        printf '%s\t%s\t%s\n' "$so" "$pkg" "${src#"$X"}" >>"$W/libs.tsv"
    done < <(ldd "$e" | awk '/=>/ {print $1, ($3 == "not" ? "not" : $3)}')
done
chmod -R u+w "$B"
# Debian's Open MPI files carry RUNPATH /usr/lib/x86_64-linux-gnu/openmpi/lib,
# which hides the programs' own RPATH from their dependencies: each becomes
# an RPATH to the bundle's lib/ relative to the file ($ORIGIN), so nothing
# but the bundle is searched first, with or without LD_LIBRARY_PATH.
npatched=0
while read -r f; do
    rp=$(patchelf --print-rpath "$f" 2>/dev/null) || continue
    case $rp in /usr/*|/lib/*) ;; *) continue ;; esac
    rel=$(realpath --relative-to="$(dirname "$f")" "$B/lib")
    [ "$rel" = . ] && rel='' || rel=/$rel
    patchelf --force-rpath --set-rpath "\$ORIGIN$rel" "$f"
    npatched=$((npatched + 1))
done < <(elves)
log "RPATH set to the bundle's lib/ in $npatched Debian files"

# ---- 7. environment, wrappers, the run's scripts, the GPU tests ---------------
cp "$HERE/env.sh" "$B/env.sh"
cp "$HERE/wrapper.sh" "$B/bin/.wrapper"
for p in "$B"/libexec/*; do ln -s .wrapper "$B/bin/$(basename "$p")"; done
ln -s .wrapper "$B/bin/mpirun"; ln -s .wrapper "$B/bin/mpiexec"
for s in "${RUN_SCRIPTS[@]}"; do cp "$HERE/$s" "$B/"; done
# the relocated CTest files (@PB_BUNDLE@: run-on-gpu.sh substitutes it),
# the scripts they name, and a check that every file they name is here
[ "$PB_VENDOR" = amd ] && mkdir -p "$W/ctest" && : >"$W/ctest/tests.txt" # no gpu ctest on AMD
cp "$W/ctest"/*.in "$W/ctest/tests.txt" "$B/ctest/" 2>/dev/null || [ "$PB_VENDOR" = amd ]
cp "$HERE/run_tests.py" "$B/ctest/run_tests.py"
while read -r n; do
    if [ -f "$SRC/tests/gpu/$n" ]; then cp "$SRC/tests/gpu/$n" "$B/tests/"; else cp "$SRC/tests/$n" "$B/tests/"; fi
done < <(grep -hos '@PB_BUNDLE@/tests/[^";]*' "$B/ctest"/*.in | sed 's|.*/||' | sort -u)
while read -r p; do
    case $p in ctest/*.csv|ctest/*.log|ctest) continue ;; esac
    [ -e "$B/$p" ] || die "the gpu tests name @PB_BUNDLE@/$p, which the bundle lacks"
done < <(grep -hos '@PB_BUNDLE@/[^";]*' "$B/ctest"/*.in | sed 's|^@PB_BUNDLE@/||' | sort -u)

# ---- 8. manifest, glibc check, sizes, tarballs ---------------------------------
# shellcheck disable=SC1091 # os-release is this machine's
{
    echo "parbench bundle: $(git -C "$SRC" log -1 --format='%H %cd' --date=iso)"
    if [ "$PB_VENDOR" = amd ]; then gpuc="$(hipcc --version 2>/dev/null | grep -m1 'HIP version'), vendor amd"
    else gpuc=$("$CUDA/bin/nvcc" --version | tail -1); fi
    echo "built on $(. /etc/os-release; echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}'), $gpuc"
    echo "$NT_LINE"
    echo "gpu tests: $(wc -l <"$B/ctest/tests.txt") (ctest/tests.txt)"
    echo; echo "## Debian packages shipped from (apt-get download; dpkg -x)"
    { printf '%s\n' "${BASE_PKGS[@]}"; cut -f2 "$W/libs.tsv"; } | grep -v -e '^-$' -e '^cuda$' | sort -u |
        while read -r p; do grep -m1 "^${p}_" "$DEBS/packages.txt" || echo "$p"; done
    echo; echo "## shared libraries (soname, package, file)"; sort "$W/libs.tsv"
} >"$B/MANIFEST"
maxv() { sort -t. -k1,1n -k2,2n -k3,3n | tail -1; }
elves | while read -r f; do objdump -T "$f" 2>/dev/null; done >"$W/objdump-T.txt"
vmax() { { grep -o "$1[0-9.]*" "$W/objdump-T.txt" || true; } | sed "s/^$1//" | maxv; }
GLIBC_MAX=$(vmax GLIBC_) GLIBCXX_MAX=$(vmax GLIBCXX_) CXXABI_MAX=$(vmax CXXABI_)
{ echo; echo "## highest symbol versions needed: GLIBC_$GLIBC_MAX, GLIBCXX_${GLIBCXX_MAX:-none}, CXXABI_${CXXABI_MAX:-none}"; } >>"$B/MANIFEST"
awk -v v="$GLIBC_MAX" 'BEGIN { split(v, a, "."); exit !(a[1] < 2 || (a[1] == 2 && a[2] <= 36)) }' ||
    die "a bundled file needs GLIBC_$GLIBC_MAX (> 2.36)"
SIZE=$(du -sb "$B" | cut -f1)
{ echo "## size: $SIZE bytes ($(du -sh "$B" | cut -f1)) in $(find "$B" | wc -l) entries"; } >>"$B/MANIFEST"
for t in ${PB_TARBALLS-xz}; do
    case $t in
    xz)  tar -C "$W" -cf - bundle | xz -9e -T0 >"$W/parbench-bundle.tar.xz.tmp" && mv "$W/parbench-bundle.tar.xz.tmp" "$W/parbench-bundle.tar.xz" ;;
    zst) tar -C "$W" -cf - bundle | zstd -q -19 -T0 >"$W/parbench-bundle.tar.zst.tmp" && mv "$W/parbench-bundle.tar.zst.tmp" "$W/parbench-bundle.tar.zst" ;;
    esac
done
log "bundle: $B, $(du -sh "$B" | cut -f1) ($SIZE bytes); GLIBC_ <= $GLIBC_MAX; GLIBCXX <= ${GLIBCXX_MAX:-none}; CXXABI <= ${CXXABI_MAX:-none}"
log "$NT_LINE"
for f in "$W"/parbench-bundle.tar.*; do
    [ -f "$f" ] || continue
    sz=$(stat -c %s "$f")
    log "$(basename "$f"): $sz bytes ($((sz / 1048576)) MiB) after $(($(date +%s) - T0)) s"
    # the device machine's tool carries the working tree up to 64 MiB in all
    [ "$sz" -le $((60 * 1048576)) ] || log "WARNING: $f is over 60 MiB: too big to carry"
done
