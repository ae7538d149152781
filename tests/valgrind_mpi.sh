#!/usr/bin/env bash
# valgrind_mpi.sh BUILD: a few MPI runs of parbench under valgrind memcheck
# (CI: .ci/run).  Any error not suppressed by tests/valgrind.supp (noise
# of the loader and of Open MPI, never parbench's code) fails the run.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# ranks under valgrind run slowly: polling ranks give the core away
export OMPI_MCA_mpi_yield_when_idle=1
vg=(valgrind -q --error-exitcode=99 --num-callers=40 --track-origins=yes
    --suppressions="$here/valgrind.supp" --suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
fail=0
run() {
  local name=$1 np=$2
  shift 2
  local log=$build/valgrind-$name.log start=$SECONDS
  mpirun -np "$np" "${vg[@]}" "$@" >"$log" 2>&1
  local rc=$?
  local errs
  errs=$(grep -c "^==[0-9]*== [A-Z][a-z]* .*\(read\|write\|uninitialised\|Invalid\|jump\)" "$log")
  echo "valgrind $name (np $np): exit $rc, $errs error reports, $((SECONDS - start)) s"
  if [ "$rc" -ne 0 ]; then
    fail=1
    grep -A25 "^==[0-9]*== [A-Z]" "$log" | head -60
  fi
}
# a reduction and the all-to-all-v counts, checked, to CSV; then the
# pattern runner on a tiny model (layout, groups, rows).  Small: every
# process runs some 50 times slower under memcheck.
run coll 2 "$build/parbench" coll --op allreduce,alltoallv --sizes 1K -n 2 -w 1 --check \
    --quiet --csv "$build/valgrind-coll.csv"
run pattern 2 "$build/parbench" --pattern tp --preset tiny --tp 2 -n 2 -w 1 --check --quiet
# the executed step with data parallelism: non-blocking gradient buckets
# driven by the compute stand-in's progress polling, checked
run step 2 "$build/parbench" step --dp 2 --size 256 --layers 2 --seq 64 --ffn 512 --vocab 512 \
    --heads 8 --kv-heads 8 --compute-scale 0.01 --steps 2 --check --csv "$build/valgrind-step.csv"
exit $fail
