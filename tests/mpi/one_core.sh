#!/bin/sh
# one_core.sh CMD [ARGS...]: run CMD (an mpirun) with it and every process
# it starts on one CPU, the first this shell may use.  validate's tests
# need it: ranks on two cores form pairs of two link classes (CORE: both
# on one core, L3: one on each), and a busy process from elsewhere landing
# on one core slows one CORE pair and not the other, which a comparison
# within the class then flags.  On one core every pair shares the same
# CPU, so load from elsewhere slows all of them alike.
set -eu
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
exec taskset -c "${cpu:-0}" "$@"
