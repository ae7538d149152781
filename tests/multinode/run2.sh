#!/bin/sh
# run2.sh [-H HOSTS] -np N CMD...: mpirun across a cluster simulated on
# this machine.  Every "node" is a daemon that uts_rsh.sh (the launch
# agent) starts in its own UTS namespace under the node's name, so Open
# MPI, and parbench's node map, see separate hosts; ranks on different
# nodes talk TCP over loopback, ranks on one node shared memory.
# HOSTS defaults to two nodes with N/2 slots each ("nodea:2,nodeb:2" for
# -np 4).  Neither name is this machine's, so mpirun starts every daemon
# through the agent, and no name needs resolving (the daemons call back to
# mpirun's address on lo).  Exits 77 (skip) where unshare --uts is not
# permitted (not root, or a container without CAP_SYS_ADMIN).  The
# launcher is $PB_MPIRUN (CMake's MPIEXEC_EXECUTABLE in the tests), else
# mpirun; Open MPI 4 (its ORTE options below).
set -u
here=$(cd "$(dirname "$0")" && pwd)
hosts="" np=""
while [ $# -gt 0 ]; do
    case $1 in
    -H) hosts=$2; shift 2 ;;
    -np | -n) np=$2; shift 2 ;;
    *) break ;;
    esac
done
if [ -z "$np" ] || [ $# -eq 0 ]; then
    echo "FAIL: usage: run2.sh [-H HOSTS] -np N CMD..." >&2
    exit 2
fi
if ! unshare --uts true 2>/dev/null; then
    echo "SKIP: unshare --uts is not permitted here: no simulated nodes" >&2
    exit 77
fi
if [ -z "$hosts" ]; then
    if [ $((np % 2)) -ne 0 ]; then
        echo "FAIL: run2.sh: -np $np does not split over two nodes; give -H" >&2
        exit 2
    fi
    hosts="nodea:$((np / 2)),nodeb:$((np / 2))"
fi
# Open MPI's settings here override the caller's (the one-host tests set
# OMPI_MCA_btl=self,vader, which cannot reach another node):
#  - the agent in place of ssh, each daemon launched by mpirun itself;
#  - TCP between nodes, and Open MPI's own wire-up, on loopback only;
#  - running as root (CI), slots from -H, no oversubscription needed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
exec "${PB_MPIRUN:-mpirun}" --mca plm_rsh_agent "$here/uts_rsh.sh" --mca plm_rsh_no_tree_spawn 1 \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
    -H "$hosts" -np "$np" "$@"
