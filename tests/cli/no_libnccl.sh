#!/usr/bin/env bash
# no_libnccl.sh BINARY - fails when BINARY links libnccl: NCCL is opened
# at run time (collectives/pb_nccl_lib.h), so the binary starts, and its
# mpi backend runs, on a machine without libnccl.so.2.  Checks the
# dynamic section's NEEDED entries (readelf) and, where nm exists, that
# no NCCL entry point is left for the loader to resolve.  Skips (77)
# without readelf.
set -u
bin=${1:?usage: no_libnccl.sh BINARY}
command -v readelf >/dev/null || { echo "no readelf: skipped"; exit 77; }
needed=$(readelf -d "$bin") || { echo "FAIL: readelf -d $bin failed"; exit 1; }
if grep -i 'nccl' <<<"$needed"; then
    echo "FAIL: $bin links libnccl (above); it must dlopen it"
    exit 1
fi
if command -v nm >/dev/null; then
    syms=$(nm -D --undefined-only "$bin") || { echo "FAIL: nm -D $bin failed"; exit 1; }
    if grep -w 'nccl[A-Za-z]*' <<<"$syms"; then
        echo "FAIL: $bin references NCCL entry points (above) for the loader to resolve"
        exit 1
    fi
fi
echo "ok: $bin needs no libnccl"
