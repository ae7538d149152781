#!/usr/bin/env bash
# gemm_no_gpu.sh CLI_EXPECT REGEX CMD [ARGS...]
# Where no GPU answers, CMD (a `parbench gemm` run) must fail as
# cli_expect.sh RC 2 REGEX says.  Where a GPU answers (CMD exits 0) the
# expectation does not apply: skip (77); the gpu tests cover that case.
set -u
expect=$1 regex=$2
shift 2
"$@" >/dev/null 2>&1 && { echo "a GPU answered: not applicable here"; exit 77; }
"$expect" 2 "$regex" "$@"
rc=$?
[ "$rc" -eq 77 ] && exit 77 # the command needs MPI and the build has none
[ "$rc" -eq 0 ] || exit 1
# and a CSV it was asked for is not left behind with a header only
for ((i = 1; i <= $#; i++)); do
  if [ "${!i}" = --csv ]; then
    j=$((i + 1))
    [ -e "${!j}" ] && { echo "FAIL: the failed run left ${!j} behind"; exit 1; }
  fi
done
exit 0
