/* pb_ctl_mpi.h - the control world over MPI (pb_ctl.h), and the one way
 * to reach the MPI communicator under it (the mpi backend moves data on
 * a duplicate of it). */
#ifndef PB_CTL_MPI_H
#define PB_CTL_MPI_H

#include <mpi.h>

#include "pb_ctl.h"

/* A control world on a duplicate of `comm` (errors returned, not
 * fatal).  Collective over comm; NULL when MPI fails. */
pb_ctl_t *pb_ctl_mpi_new(MPI_Comm comm);

/* The communicator of an MPI control world; NULL for any other. */
const MPI_Comm *pb_ctl_mpi_comm(const pb_ctl_t *c);

#endif
