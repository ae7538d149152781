#!/usr/bin/env bash
# readme_examples.sh SRC BUILD: every command of the ```sh blocks of
# README.md and of every doc/*.md page (README first, then the pages in
# name order, all in one folder, so a page may use a file an earlier
# example wrote), run as a user would type it (from a folder where `build`
# is the build and `tests` the project's tests), so the documentation
# cannot drift from the program.  Each must exit 0, or the code its
# comment promises (a table below).  Examples that need what this machine
# cannot have (a GPU, a cluster, Slurm, terabytes, a clang fuzzing build)
# are listed with the reason and skipped; any example matching no rule
# runs.  Sampling is shortened for speed (-n 2
# -w 1 appended to coll and --pattern runs: two samples after one warm-up
# operation; --budget 20s to a tune search that has a budget): that
# changes how long a measurement samples, never what the command means or
# accepts.
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
# a training job's recording (doc/profiling.md): written as the NCCL
# profiler plugin writes it (tp2 x pp2, 4 ranks), and a job's PyTorch traces
mkdir prof && build/tests/pb_jp_synth prof 2 1 1 2 >/dev/null ||
  { echo "FAIL: could not write the recording"; exit 1; }
cp tests/fixtures/pytorch/gloo-tp2-dp2/trace-rank*.json .

# skip rules: a substring of the command, and why
skip_reason() {
  case $1 in
    ./setup.sh*|ctest*) echo "the set-up itself (this test runs inside it)" ;;
    *build-fuzz*) echo "a clang-14 libFuzzer build (CI-only packages; .ci/run runs it)" ;;
    cmake*) echo "the build itself, from the source root (the set-up's step; this test runs from its result)" ;;
    *srun*) echo "needs Slurm" ;;
    *torchrun*) echo "a training job (PyTorch on GPUs)" ;;
    *" gemm "*) echo "needs a GPU (cuBLAS)" ;;
    *" -G "*) echo "needs a GPU (CUDA graphs)" ;;
    *"--backend nccl"*) echo "needs a GPU (NCCL)" ;;
    *bundle/pack.sh*) echo "builds the GPU bundle (minutes; Debian packages downloaded)" ;;
    *run-on-gpu.sh*) echo "the GPU acceptance run (needs the bundle and a GPU)" ;;
    *"-e 8G"*) echo "cluster-sized: 8 GiB buffers on 8 ranks" ;;
    *) return 1 ;;
  esac
}
# exit codes the pages promise; validate's verdict (0 or 1) is the
# machine's, and 8 ranks on this 2-core machine are oversubscribed
want_rc() {
  case $1 in
    *"--fault hang"*) echo 3 ;;
    *" validate"*) echo "0|1" ;;
    *) echo 0 ;;
  esac
}

# commands: continuation lines joined, comments and blank lines dropped,
# optional parts ([--calib calib.csv]) left out; a block may be indented
# (inside a list item).  Each line of cmds.txt is "FILE<TAB>command".
docs=("$src/README.md")
for f in "$src"/doc/*.md; do [ -e "$f" ] && docs+=("$f"); done
: >cmds.txt
for f in "${docs[@]}"; do
  name=${f#"$src"/}
  awk '/^[[:space:]]*```sh/ { f = 1; next } /^[[:space:]]*```/ { f = 0 } f' "$f" |
    awk '{ if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' |
    sed -e 's/[[:space:]]*#.*$//' -e 's/\[[^]]*\]//g' -e 's/[[:space:]]\+/ /g' -e 's/^ //' |
    grep -v '^ *$' | sed "s|^|$name\t|" >>cmds.txt
done

fail=0 ran=0 skipped=0 ran_readme=0
while IFS=$'\t' read -r file cmd; do
  if why=$(skip_reason "$cmd"); then
    echo "skip: $file: $cmd  ($why)"
    skipped=$((skipped + 1))
    continue
  fi
  run=$cmd
  case $run in
    *" coll "*|*"--pattern "*) case $run in *--dry-run*) ;; *)
      run="$run -n 2 -w 1" ;; esac ;;
  esac
  # a tuning search is shortened the same way: a later --budget wins
  case $run in *" tune "*" --budget "*) run="$run --budget 20s" ;; esac
  want=$(want_rc "$cmd")
  timeout 300 bash -c "$run" </dev/null >out.txt 2>&1
  rc=$?
  ran=$((ran + 1))
  [ "$file" = README.md ] && ran_readme=$((ran_readme + 1))
  if ! [[ "$rc" =~ ^($want)$ ]]; then
    echo "FAIL (exit $rc, expected $want): $file: $cmd"
    tail -5 out.txt
    fail=1
  else
    echo "ok (exit $rc): $file: $cmd"
  fi
done <cmds.txt
echo "$ran examples ran ($ran_readme of README.md), $skipped skipped, from ${#docs[@]} files"
[ "$ran_readme" -ge 8 ] || { echo "FAIL: only $ran_readme README examples ran: is the README's format changed?"; fail=1; }
[ "$ran" -ge 30 ] || { echo "FAIL: only $ran examples ran in all: is the pages' format changed?"; fail=1; }
exit $fail
