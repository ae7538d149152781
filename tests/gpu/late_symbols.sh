#!/usr/bin/env bash
# late_symbols.sh BINARY - fails when BINARY links NCCL entry points newer
# than the oldest library parbench supports (2.18): with one of them
# undefined in the binary, an older libnccl.so.2 fails to load it (with
# -z now, or at the first call), MPI-only commands included.  Those are
# looked up at run time (dlsym) instead.  Needs no GPU.
command -v nm >/dev/null || { echo "no nm: skipped"; exit 77; }
late=$(nm -D --undefined-only "$1" | grep -Ew 'ncclAlltoAll|ncclCommSplit')
if [ -n "$late" ]; then
    echo "linked directly, so an older libnccl.so.2 cannot load $1:"
    echo "$late"
    exit 1
fi
echo "no NCCL entry point newer than 2.18 is linked"
