#!/usr/bin/env bash
# gpu_run_n.sh GPU_PRESENT N CMD... - runs CMD when at least N GPUs
# answer, else exits 77 so CTest reports the test as skipped, not passed.
"$1" "$2" || exit $?
shift 2
exec "$@"
