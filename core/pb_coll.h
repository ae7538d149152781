/* pb_coll.h - the collectives: one enum, and one descriptor per
 * collective holding everything about it that needs no backend, in the
 * spirit of nccl-tests' per-collective struct (src/common.h, struct
 * testColl, filled by each src/<coll>.cu: its name, GetCollByteCount for
 * the buffer geometry and in-place offsets, GetBw for the bus factor).
 * Every layer takes these facts from here: the backends, the traffic
 * generators, the cost model and the sweeps.
 *
 * Adding a collective: one enum value and one row of the table in
 * pb_coll.c, one call in the backend table (collectives/pb_backend.h)
 * and one row of bench/run/pb_exec.c's table (how to issue it, what its
 * ranks send and receive).
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

/* Descriptor flags. */
enum {
    PB_CF_REDUCES = 1u << 0,      /* combines values with a reduction operator */
    PB_CF_ROOTED = 1u << 1,       /* has a root rank (broadcast, reduce) */
    PB_CF_IN_PLACE = 1u << 2,     /* has an in-place variant; broadcast works on one
                                   * buffer, so it is always "in place" */
    PB_CF_OUT_OF_PLACE = 1u << 3, /* has an out-of-place variant */
    PB_CF_BLOCKED = 1u << 4,      /* the size is cut in n equal blocks */
    PB_CF_SEND_BLOCK = 1u << 5,   /* the send side is one block (allgather) */
    PB_CF_RECV_BLOCK = 1u << 6    /* the receive side is one block (reducescatter) */
};

typedef struct pb_coll_desc {
    const char *name;    /* as printed and written in the CSV (nccl-tests') */
    const char *alias;   /* accepted by the parser too (MPI's spelling) */
    const char *size_is; /* what the size of a measurement is (table heads) */
    unsigned flags;      /* PB_CF_* */
    /* nccl-tests' bus factor (src/<coll>.cu, <Coll>GetBw): busbw = algbw x
     * bus_passes x (n-1)/n, or algbw itself when bus_passes is 0 - the
     * times (n-1)/n of the size that cross each rank's link in the
     * bandwidth-optimal ring: all-reduce 2 (a reduce-scatter, then an
     * all-gather), all-gather, reduce-scatter and all-to-all(v) 1; the
     * whole size once for broadcast, reduce and send/recv. */
    int bus_passes;
} pb_coll_desc_t;

/* The descriptor of c (c < PB_COLL_COUNT). */
const pb_coll_desc_t *pb_coll_desc(pb_coll_t c);

const char *pb_coll_name(pb_coll_t c);
/* By name or alias; 0 ok, -1 unknown. */
int pb_coll_parse(const char *s, pb_coll_t *out);

/* The flags, one question each. */
int pb_coll_reduces(pb_coll_t c);
int pb_coll_rooted(pb_coll_t c);
int pb_coll_has_in_place(pb_coll_t c);
int pb_coll_has_out_of_place(pb_coll_t c);

/* nccl-tests bus-bandwidth factor: busbw = algbw * factor.
 * allreduce 2(n-1)/n; allgather, reducescatter, alltoall(v) (n-1)/n;
 * broadcast, reduce, sendrecv 1.  n = 1 gives 0 for the (n-1) ones: a
 * one-rank collective moves nothing over any bus. */
double pb_busbw_factor(pb_coll_t c, int n);
/* The factor as a table head prints it: "2(n-1)/n", "(n-1)/n" or "1". */
const char *pb_busbw_factor_text(pb_coll_t c);

/* Bytes one rank sends over the wire for one operation of `bytes` on n
 * ranks with the bandwidth-optimal (ring) algorithms: the bus factor times
 * bytes, in whole bytes (each (n-1)/n pass rounded down), so bytes / time
 * compares with busbw. */
uint64_t pb_coll_wire_bytes(pb_coll_t c, int n, uint64_t bytes);

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

/* In place the two sides share one buffer; where each starts in it, in
 * elements, on `rank`: a side that is one block sits at the rank's block
 * of the other, the rest at 0.  These are NCCL's in-place definitions and
 * nccl-tests' offsets (src/common.cu runs in place with send = recvbuff +
 * sendInplaceOffset*rank and recv = recvbuff + recvInplaceOffset*rank;
 * src/all_gather.cu sets sendInplaceOffset = sendcount, src/
 * reduce_scatter.cu recvInplaceOffset = recvcount): all-gather sends from
 * buffer + rank*block, reduce-scatter receives into buffer + rank*block,
 * every other collective has send == recv. */
typedef struct pb_coll_offsets {
    uint64_t send;
    uint64_t recv;
} pb_coll_offsets_t;
pb_coll_offsets_t pb_coll_in_place_offsets(pb_coll_t c, int rank, const pb_coll_geom_t *g);

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
