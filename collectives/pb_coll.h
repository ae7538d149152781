/* pb_coll.h - the collective kinds, what their sizes mean, and their
 * bus-bandwidth factors.
 *
 * Size convention (nccl-tests'): the size of a measurement is the largest
 * buffer one rank touches, and algbw = size / time.
 *   allreduce, broadcast, reduce, sendrecv: the message, per rank;
 *   allgather:      the gathered output (n blocks of size/n);
 *   reducescatter:  the full input (n blocks of size/n), output size/n;
 *   alltoall(v):    one rank's send buffer (n blocks, equal or skewed).
 * OSU's reduce_scatter size is the total input too; IMB's is the per-rank
 * block: the header of every table says which convention is in force. */
#ifndef PB_COLL_H
#define PB_COLL_H

#include <stdint.h>

#include "pb_dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_coll {
    PB_ALLREDUCE,
    PB_ALLGATHER,
    PB_REDUCESCATTER,
    PB_ALLTOALL,
    PB_ALLTOALLV,
    PB_BROADCAST,
    PB_REDUCE,
    PB_SENDRECV,
    PB_COLL_COUNT
} pb_coll_t;

const char *pb_coll_name(pb_coll_t c);
int pb_coll_parse(const char *s, pb_coll_t *out);

/* Does the collective combine values with a reduction operator? */
int pb_coll_reduces(pb_coll_t c);
/* Does the collective have a root rank (broadcast, reduce)? */
int pb_coll_rooted(pb_coll_t c);
/* Is an in-place variant distinct from out-of-place?  Broadcast works on
 * one buffer (always "in place"); sendrecv has two distinct buffers. */
int pb_coll_has_in_place(pb_coll_t c);
int pb_coll_has_out_of_place(pb_coll_t c);

/* nccl-tests bus-bandwidth factor: busbw = algbw * factor.
 * allreduce 2(n-1)/n; allgather, reducescatter, alltoall(v) (n-1)/n;
 * broadcast, reduce, sendrecv 1.  n = 1 gives 0 for the (n-1) ones: a
 * one-rank collective moves nothing over any bus. */
double pb_busbw_factor(pb_coll_t c, int n);

/* Bytes every size must be a multiple of: the element size, times n where
 * the buffer is cut into n equal blocks. */
uint64_t pb_coll_granule(pb_coll_t c, int n, pb_dtype_t t);

/* Element counts of one rank's buffers for a measurement of `bytes`. */
typedef struct pb_coll_geom {
    uint64_t count;      /* elements of the reported size (printed "count") */
    uint64_t send_count; /* elements in the send buffer */
    uint64_t recv_count; /* elements in the receive buffer */
    uint64_t block;      /* per-rank block (allgather, reducescatter, alltoall) */
} pb_coll_geom_t;

/* Requires bytes to be a multiple of pb_coll_granule(). */
pb_coll_geom_t pb_coll_geom(pb_coll_t c, int n, pb_dtype_t t, uint64_t bytes);

/* The skewed all-to-all-v used by sweeps: rank r sends to rank d a share
 * proportional to ((r + d) mod n) + 1 of its `total` elements, so a rank's
 * sends and its receives both add up to `total` (the same weights, in a
 * different order) while the pairs differ by up to n x.  Fills n counts
 * and n displacements (elements) for the sends and for the receives of
 * `rank`. */
void pb_alltoallv_skewed(int n, int rank, uint64_t total, uint64_t *send_counts,
                         uint64_t *send_displs, uint64_t *recv_counts,
                         uint64_t *recv_displs);

#ifdef __cplusplus
}
#endif

#endif
