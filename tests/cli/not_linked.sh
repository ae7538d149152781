#!/usr/bin/env bash
# not_linked.sh BINARY - fails when BINARY links a library parbench opens
# at run time, only in the command that needs it: NCCL (the nccl backend,
# collectives/pb_nccl_lib.h: the binary starts, and its mpi backend runs,
# without libnccl.so.2), cuBLAS (gemm, collectives/pb_cublas.h: ~100 MB
# written before main in every rank otherwise), libxml2 (topo --nccl-topo,
# topo/pb_libxml.h) and NVML (topo/pb_nvml.c).  Checks the dynamic
# section's NEEDED entries (readelf) and, where nm exists, that no entry
# point of theirs is left for the loader to resolve.  Skips (77) without
# readelf.
set -u
bin=${1:?usage: not_linked.sh BINARY}
command -v readelf >/dev/null || { echo "no readelf: skipped"; exit 77; }
needed=$(readelf -d "$bin") || { echo "FAIL: readelf -d $bin failed"; exit 1; }
if grep -iE 'NEEDED.*\[lib(nccl|cublas|cublasLt|xml2|nvidia-ml)\.' <<<"$needed"; then
    echo "FAIL: $bin links a library above; it must dlopen it where a command needs it"
    exit 1
fi
if command -v nm >/dev/null; then
    syms=$(nm -D --undefined-only "$bin") || { echo "FAIL: nm -D $bin failed"; exit 1; }
    if grep -wE '(nccl|cublas|xml|nvml)[A-Za-z_0-9]*' <<<"$syms"; then
        echo "FAIL: $bin references the entry points above for the loader to resolve"
        exit 1
    fi
fi
echo "ok: $bin needs no libnccl, libcublas, libxml2 or libnvidia-ml"
