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
# remote shell; do the same.  The name is set with hostname(1), or
# through /proc where that tool is missing.
exec unshare --uts sh -c '
    hostname "$1" 2>/dev/null || printf "%s\n" "$1" >/proc/sys/kernel/hostname ||
        { echo "FAIL: uts_rsh.sh: cannot name the node $1" >&2; exit 255; }
    shift
    eval "$*"' uts_rsh "$host" "$@"
