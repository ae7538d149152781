#!/usr/bin/env bash
# setup.sh - everything a fresh Debian 12 machine needs, then the main job
# (its output folder, report.html included, is printed at the end).
#
#   ./setup.sh            install missing packages, build, run the main job
#   ./setup.sh --no-run   install and build only (what CI uses)
#
# Environment: BUILD_DIR (default build), PARBENCH_CMAKE_ARGS (extra cmake
# arguments, e.g. -DPARBENCH_CUDA=OFF), PARBENCH_NP (ranks for the main job).
set -euo pipefail
cd "$(dirname "$0")"

run=1
for a in "$@"; do
  case $a in
    --no-run) run=0 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$a'" >&2; exit 2 ;;
  esac
done

# Debian packages, installed only when missing (a re-run costs nothing).
pkgs=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhwloc-dev hwloc libcsv-dev
      libjansson-dev libplplot-dev libxml2-utils libxml2-dev zlib1g-dev)
# CI only (.ci/run): the fuzz targets (clang, libFuzzer) and memcheck, and
# HIP (issue 51: the AMD side is built and its tests run on every CI run;
# a user adds the two packages, or ROCm's own hipcc, to build it)
[ "${PARBENCH_CI:-0}" = 1 ] && pkgs+=(clang-14 libclang-rt-14-dev valgrind hipcc libamdhip64-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" ${PARBENCH_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"

if [ "$run" -eq 1 ]; then
  # Open MPI on a single host: shared memory between ranks, nothing else
  export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
  np=()
  [ -n "${PARBENCH_NP:-}" ] && np=(--np "$PARBENCH_NP")
  "$build/parbench" "${np[@]}"
fi
