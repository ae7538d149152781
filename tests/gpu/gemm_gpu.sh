#!/usr/bin/env bash
# gemm_gpu.sh CSV NROWS CHECKER CMD [ARGS...]
# Runs a `parbench gemm` command line that writes CSV, skips (77) when no
# GPU answers (or the build has no CUDA), else requires exit 0 and lets
# CHECKER verify the file holds NROWS plausible GEMM rows.
set -u
csv=$1 nrows=$2 checker=$3
shift 3
rm -f "$csv"
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 2 ] && printf '%s\n' "$out" |
     grep -Eq '^parbench: (no CUDA device|parbench gemm needs a build with CUDA)'; then
  echo "skipped: no GPU answers here"
  exit 77
fi
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
exec "$checker" "$csv" "$nrows"
