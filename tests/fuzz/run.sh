#!/usr/bin/env bash
# run.sh BUILD SECONDS: each libFuzzer target of BUILD for SECONDS, from
# the seed corpus in tests/fuzz/corpus/<target> (copied: the repository's
# seeds stay as they are).  Prints executions per target; a crash, leak
# or sanitizer report fails, with the input kept under BUILD/fuzz-out.
# PARBENCH_FUZZ_ONLY="csv topo_xml" runs only those targets.
set -u
build=$1 secs=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$build/fuzz-out
rm -rf "$out"
mkdir -p "$out"
# hwloc 2.9 (and libxml2 in its XML plugin) leaks objects when it rejects
# some malformed documents, inside hwloc_topology_load, after which
# parbench destroys the topology: the suppressions name those libraries
# (tests/lsan.supp, tests/fuzz/lsan-fuzz.supp); parbench's own leaks still
# fail the run.  libxml2 is preloaded so that its frames have a name
# (hwloc unloads the plugin that loaded it).
cat "$here/../lsan.supp" "$here/lsan-fuzz.supp" >"$out/lsan.supp"
export LSAN_OPTIONS=suppressions=$out/lsan.supp:print_suppressions=0
xml2=$(ls /usr/lib/*-linux-gnu/libxml2.so.2 2>/dev/null | head -1)
fail=0
for t in ${PARBENCH_FUZZ_ONLY:-cli size model_file csv topo_xml import nccl_topo megatron plugin_file kineto}; do
  work=$out/$t
  mkdir -p "$work/corpus"
  cp "$here/corpus/$t/"* "$work/corpus/"
  # hwloc prints its complaints about a broken document: not ours
  pre=""
  [ "$t" = topo_xml ] && pre=$xml2
  LD_PRELOAD=$pre "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=32768 -print_final_stats=1 \
      -artifact_prefix="$work/" -close_fd_mask=2 "$work/corpus" >"$work/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1)
  printf 'fuzz_%-11s %10s executions in %s s, %s, corpus %s inputs, exit %d\n' "$t" \
         "${execs:-?}" "$secs" "${cov:-cov: ?}" "$(ls "$work/corpus" | wc -l)" "$rc"
  # hwloc 2.9 crashes on some malformed documents (tests/fuzz/hwloc-
  # crashes); parbench reads a document in a child process first
  # (topo/pb_topo.c) and refuses it when the child dies, so a crash here
  # is a failure like any other
  if [ "$rc" -ne 0 ]; then
    fail=1
    grep -E "ERROR|SUMMARY|Test unit written" "$work/log" | head -5
  fi
done
exit $fail
