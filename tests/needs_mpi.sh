#!/bin/sh
# needs_mpi.sh ARGS... - stands in for mpiexec in a build without MPI
# (-DPARBENCH_MPI=OFF): a test that launches MPI ranks is skipped (77),
# reported as such by CTest, never passed and never failed.
echo "skipped: this test launches MPI ranks and the build has no MPI: mpiexec $*"
exit 77
