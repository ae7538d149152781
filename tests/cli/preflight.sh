#!/usr/bin/env bash
# preflight.sh PARBENCH HAVE_CUDA: input a self-launch can judge before it
# starts mpirun is refused there (issue 32): exit 2, exactly one
# "parbench:" line, and neither the launch line ("running: mpirun") nor
# Open MPI's abort banner ("Primary job").
set -u
pb=$1 cuda=$2
fails=0
check() { # RC REGEX ARGS...
  local want=$1 re=$2
  shift 2
  local out rc
  out=$("$pb" "$@" 2>&1)
  rc=$?
  local bad=
  [ "$rc" -eq "$want" ] || bad="exit $rc, expected $want"
  [ -z "$bad" ] && [ "$(printf '%s\n' "$out" | grep -c '^parbench:')" -ne 1 ] && bad="not one parbench: line"
  [ -z "$bad" ] && ! printf '%s\n' "$out" | grep '^parbench:' | grep -Eq -- "$re" && bad="message does not match /$re/"
  [ -z "$bad" ] && printf '%s\n' "$out" | grep -Eq 'running: .*mpirun|Primary job' && bad="it launched"
  if [ -n "$bad" ]; then
    printf 'FAIL: parbench %s: %s\n%s\n' "$*" "$bad" "$out"
    fails=$((fails + 1))
  else
    printf 'ok: parbench %s: %s\n' "$*" "$(printf '%s\n' "$out" | grep '^parbench:')"
  fi
}
check 2 "^parbench: bad size suffix in '12Q'" coll --sizes 12Q
check 2 "^parbench: --csv /nonexistent-dir/x.csv: cannot create it in /nonexistent-dir: " coll --csv /nonexistent-dir/x.csv
check 2 "^parbench: --json /nonexistent-dir/x.jsonl: cannot create it in /nonexistent-dir: " coll --json /nonexistent-dir/x.jsonl
check 2 "^parbench: --fault slow:0-9 names a rank outside the 2 launched$" validate --fault slow:0-9
check 2 "^parbench: --fault corrupt:5 names a rank outside the 2 launched$" coll --fault corrupt:5
check 2 "^parbench: --np 100000: " coll --np 100000
check 2 "^parbench: --sizes, -b and -e set the message sizes of a sweep .* its hidden size is --size$" --pattern tp --sizes 8192
if [ "$cuda" = 1 ]; then # built with NCCL, where no GPU answers
  check 2 "^parbench: no CUDA device: cudaGetDeviceCount" coll --backend nccl
  check 2 "^parbench: --nccl-lib /nonexistent/libnccl.so.2: no such file$" coll --backend nccl --nccl-lib /nonexistent/libnccl.so.2
fi
[ "$fails" -eq 0 ] || exit 1
echo ok
