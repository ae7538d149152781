#!/bin/sh
# uts_rsh.sh [SSH-OPTIONS] HOST CMD...: Open MPI's launch agent
# (--mca plm_rsh_agent) for a cluster simulated on one machine.  Where
# ssh would log into HOST, this runs CMD (a shell command line, as ssh
# passes it on) in a new UTS namespace whose hostname is HOST: the daemon
# and its ranks then see their own host name, and Open MPI counts HOST as
# a node of its own.  Needs root (or CAP_SYS_ADMIN) for unshare --uts.
set -u
# ssh-style options that Open MPI may put before the host: flags
# without a value (-x, -T, -q, ...) and options with one (-o OPT, ...)
while [ $# -gt 0 ]; do
    case $1 in
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    echo "FAIL: uts_rsh.sh: expected HOST CMD..., got: $*" >&2
    exit 255
fi
host=$1
shift
# ssh joins its arguments with spaces into one command line for the
# remote shell; do the same.  The daemon stays in the foreground, in
# mpirun's session: Open MPI asks it to --daemonize (a session of its
# own, as over ssh), and each session is its own scheduling group
# (autogroup), so that with every rank on one CPU, as validate's tests
# pin them, the kernel split the CPU per node rather than per rank, and a
# node's pairs ran up to 2x faster than the other's for whole rounds.
cmd=$(printf '%s' "$*" | sed 's/\(^\| \)--daemonize\( \|$\)/\1/')
# The name is set with hostname(1), or through /proc where that tool is
# missing.
exec unshare --uts sh -c '
    hostname "$1" 2>/dev/null || printf "%s\n" "$1" >/proc/sys/kernel/hostname ||
        { echo "FAIL: uts_rsh.sh: cannot name the node $1" >&2; exit 255; }
    eval "$2"' uts_rsh "$host" "$cmd"
