/* pb_share.h - rooted set-up exchanges done symmetrically.
 *
 * Why: in Open MPI's shared-memory transport (vader, 4.1) the latency of
 * every later small operation between two ranks depends on the parity of
 * the messages each has sent the other: one broadcast from rank 0 to rank
 * 1 made a following 8 B all-reduce 0.24 -> 0.26 us (fast machine state)
 * and 0.51 -> 0.90 us (slow state) for the rest of the run; an even number
 * of extra messages, or none, left it alone; without fast boxes
 * (btl_vader_fbox_max=0) parity did not matter.  A plain benchmark loop
 * sends nothing asymmetric before it times, so parbench's own set-up must
 * not either: every value rank `root` hands out goes through an
 * all-reduce, where each pair exchanges as many messages one way as the
 * other. */
#ifndef PB_SHARE_H
#define PB_SHARE_H

#include <mpi.h>

/* buf (bytes) on `root` becomes buf on every rank of c: an MPI_Bcast
 * made of an MPI_Allreduce (bitwise or; the others contribute zeros). */
int pb_share(void *buf, int bytes, int root, MPI_Comm c);

#endif
