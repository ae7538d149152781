#!/usr/bin/env bash
# gemm_no_gpu.sh CLI_EXPECT REGEX CMD [ARGS...]
# Where no GPU answers, CMD (a `parbench gemm` run) must fail as
# cli_expect.sh RC 2 REGEX says.  Where a GPU answers (CMD exits 0) the
# expectation does not apply: skip (77); the gpu tests cover that case.
set -u
expect=$1 regex=$2
shift 2
"$@" >/dev/null 2>&1 && { echo "a GPU answered: not applicable here"; exit 77; }
exec "$expect" 2 "$regex" "$@"
