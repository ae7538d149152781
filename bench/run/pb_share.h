/* pb_share.h - rooted set-up exchanges done symmetrically.
 *
 * Why: in Open MPI's shared-memory transport (vader, 4.1) each direction
 * between two ranks has its own fast box, a ring of 32 B slots, and the
 * latency of every later small operation between them depends on where
 * the two rings stand relative to each other: one broadcast from rank 0
 * to rank 1 made a following 8 B all-reduce 0.24 -> 0.26 us (fast machine
 * state) and 0.51 -> 0.90 us (slow state) for the rest of the run.  In
 * the plain loop itself (bench/perf/ref_allreduce.c, 40 paired launches) one
 * extra 0-byte message one way before timing cost 8-13 %, two gained 5 %;
 * without fast boxes (btl_vader_fbox_max=0) none of it mattered.  A plain
 * benchmark loop sends the same both ways before it times, so parbench's
 * own set-up must too: every value rank `root` hands out goes through an
 * all-reduce, where each pair exchanges the same messages one way as the
 * other (and run/pb_nodemap.c gathers equal blocks for the same
 * reason). */
#ifndef PB_SHARE_H
#define PB_SHARE_H

#include <mpi.h>

/* buf (bytes) on `root` becomes buf on every rank of c: an MPI_Bcast
 * made of an MPI_Allreduce (bitwise or; the others contribute zeros). */
int pb_share(void *buf, int bytes, int root, MPI_Comm c);

#endif
