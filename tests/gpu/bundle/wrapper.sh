#!/bin/sh
# bin/<name> of the bundle (pack.sh links every program's name to this
# file): runs libexec/<name> with the bundle's environment, so a program
# can be started by its path alone.  bin/mpirun and bin/mpiexec are orterun.
PB_BUNDLE=$(cd "$(dirname "$0")/.." && pwd -P)
. "$PB_BUNDLE/env.sh"
n=$(basename "$0")
case $n in mpirun|mpiexec) n=orterun ;; esac
exec "$PB_BUNDLE/libexec/$n" "$@"
