#!/usr/bin/env bash
# readme_examples.sh SRC BUILD: every command of README.md's ```sh blocks,
# run as a user would type it (from a folder where `build` is the build
# and `tests` the project's tests), so the README cannot drift from the
# program.  Each must exit 0, or the code its comment promises (a table
# below).  Examples that need what this machine cannot have (a GPU, a
# cluster, Slurm, terabytes) are listed with the reason and skipped; any
# example matching no rule runs.  Sampling is shortened for speed (-n 2
# -w 1 appended to coll and --pattern runs: two samples after one warm-up
# operation): that changes how long a measurement samples, never what the
# command means or accepts.
set -u
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
ln -s "$build" build
ln -s "$src/tests" tests
ln -s "$src/model" model # model/published_runs.csv, read by model --against
mkdir bin
ln -s "$build/parbench" bin/parbench
export PATH="$work/bin:$PATH"
# inputs the examples presume a user has: results of earlier runs
mpirun -np 2 build/parbench coll --op all -b 8 -e 1M -f 8 -n 3 -w 1 --quiet --csv seed.csv >/dev/null 2>&1 ||
  { echo "FAIL: could not make the seed rows"; exit 1; }
for f in results.csv more.csv last-week.csv today.csv; do cp seed.csv "$f"; done
build/parbench topo --topo-xml tests/fixtures/dgx-h100.xml --csv topo-pairs.csv >/dev/null

# skip rules: a substring of the command, and why
skip_reason() {
  case $1 in
    ./setup.sh*|ctest*) echo "the set-up itself (this test runs inside it)" ;;
    *srun*) echo "needs Slurm" ;;
    *" gemm "*) echo "needs a GPU (cuBLAS)" ;;
    *" -G "*) echo "needs a GPU (CUDA graphs)" ;;
    *"-e 8G"*) echo "cluster-sized: 8 GiB buffers on 8 ranks" ;;
    *) return 1 ;;
  esac
}
# exit codes the README promises; validate's verdict (0 or 1) is the
# machine's, and 8 ranks on this 2-core machine are oversubscribed
want_rc() {
  case $1 in
    *"--fault hang"*) echo 3 ;;
    *" validate"*) echo "0|1" ;;
    *) echo 0 ;;
  esac
}

# commands: continuation lines joined, comments and blank lines dropped,
# optional parts ([--calib calib.csv]) left out
awk '/^```sh/ { f = 1; next } /^```/ { f = 0 } f' "$src/README.md" |
  awk '{ if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' |
  sed -e 's/[[:space:]]*#.*$//' -e 's/\[[^]]*\]//g' -e 's/[[:space:]]\+/ /g' |
  grep -v '^ *$' >cmds.txt

fail=0 ran=0 skipped=0
while IFS= read -r cmd; do
  if why=$(skip_reason "$cmd"); then
    echo "skip: $cmd  ($why)"
    skipped=$((skipped + 1))
    continue
  fi
  run=$cmd
  case $run in
    *" coll "*|*"--pattern "*) case $run in *--dry-run*) ;; *)
      run="$run -n 2 -w 1" ;; esac ;;
  esac
  want=$(want_rc "$cmd")
  timeout 300 bash -c "$run" </dev/null >out.txt 2>&1
  rc=$?
  ran=$((ran + 1))
  if ! [[ "$rc" =~ ^($want)$ ]]; then
    echo "FAIL (exit $rc, expected $want): $cmd"
    tail -5 out.txt
    fail=1
  else
    echo "ok (exit $rc): $cmd"
  fi
done <cmds.txt
echo "$ran examples ran, $skipped skipped"
[ "$ran" -ge 20 ] || { echo "FAIL: only $ran examples found: is the README's format changed?"; fail=1; }
exit $fail
