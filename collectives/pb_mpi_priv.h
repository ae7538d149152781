/* pb_mpi_priv.h - state shared by the files of the MPI backend. */
#ifndef PB_MPI_PRIV_H
#define PB_MPI_PRIV_H

#include <mpi.h>

#include "pb_backend.h"

#define PB_MPI_MARKS PB_BACKEND_MARKS

/* Open MPI 4.1 implements MPI 3.1: counts are int.  Calls are split so
 * that none carries more than this many bytes (and never more than
 * INT_MAX elements).  1 GiB stays clear of every 2^31-byte limit inside
 * the transports. */
#define PB_MPI_DEFAULT_CHUNK (UINT64_C(1) << 30)
#define PB_MPI_KNOBS 16

typedef struct pb_mpi_state {
    MPI_Comm world;
    uint64_t chunk_bytes;
    /* chunk_bytes in elements of each type, worked out once: a 64-bit
     * division costs tens of cycles, which a 0.25 us operation's timed
     * region must not carry */
    uint64_t chunk_elems[PB_DTYPE_COUNT];
    /* 2- and 1-byte floats have no MPI type: they travel as MPI_UINT16_T
     * or MPI_UINT8_T and are reduced by user-defined operators
     * [f16, bf16, f8e4m3, f8e5m2][redop] */
    MPI_Op small_ops[4][PB_REDOP_COUNT];
    /* The groups now in asynchronous mode: progress() polls all of them,
     * since a host MPI moves a non-blocking operation only while some
     * call of this process enters the library. */
    pb_group_t **async_groups;
    int n_async, cap_async;
    /* MPI_T control variables changed by knob(), with their values
     * before the first change (pb_mpi_knob.c) */
    int mpit;
    struct {
        int idx, value;
    } kept[PB_MPI_KNOBS];
    int nkept;
} pb_mpi_state_t;

/* What to do once a pending request has completed (fields unused = 0):
 * move `bytes` from src to dst (the in-place reduce-scatter's result,
 * which MPI leaves at the start of the buffer), then release `scratch`
 * (a packed reduce-scatter piece, the memory side's alloc) and `type` (a
 * piece datatype). */
typedef struct pb_mpi_after {
    void *dst;
    const void *src;
    size_t bytes;
    void *scratch;
    MPI_Datatype type;
} pb_mpi_after_t;

typedef struct pb_mpi_group {
    MPI_Comm comm;
    double marks[PB_MPI_MARKS];
    int async; /* set_async: collectives and p2p_batch leave requests here */
    int tight; /* set_tight: each collective takes marks 0 and 1 itself */
    /* Requests issued and not yet known complete, with what follows each;
     * parallel arrays because MPI_Waitall/MPI_Testsome take a plain
     * MPI_Request array.  idx is MPI_Testsome's scratch. */
    MPI_Request *reqs;
    pb_mpi_after_t *after;
    int *idx;
    int n_pending, cap_pending;
} pb_mpi_group_t;

/* Tight timing (pb_backend.h, set_tight): marks 0 and 1 are the clock
 * read at a collective's entry and at its successful end, so that the
 * harness's own dispatch (the mark call's return, the switch over
 * collectives, the table call) stays outside the timed region, as in a
 * plain loop that reads the clock around MPI_Allreduce. */
static inline void pb_mpi_mark_begin(pb_group_t *g)
{
    struct pb_mpi_group *mg = g->priv;
    if (mg->tight)
        mg->marks[0] = MPI_Wtime();
}

static inline int pb_mpi_mark_end(pb_group_t *g, int rc)
{
    struct pb_mpi_group *mg = g->priv;
    if (mg->tight)
        mg->marks[1] = MPI_Wtime();
    return rc;
}

static inline pb_mpi_state_t *pb_mpi_state(const pb_group_t *g)
{
    return (pb_mpi_state_t *)g->be->priv;
}

static inline MPI_Comm pb_mpi_comm(const pb_group_t *g)
{
    return ((const pb_mpi_group_t *)g->priv)->comm;
}

/* pb_mpi_device.c (CUDA builds): is the MPI CUDA-aware? */
int pb_mpi_device_supported(char *why, size_t len);

/* pb_mpi_types.c */
MPI_Datatype pb_mpi_datatype(pb_dtype_t t);
int pb_mpi_op(const pb_mpi_state_t *st, pb_dtype_t t, pb_redop_t op, MPI_Op *out, pb_err_t *err);
int pb_mpi_ops_create(pb_mpi_state_t *st, pb_err_t *err);
void pb_mpi_ops_free(pb_mpi_state_t *st);
/* Turns an MPI return code into PB_ERUNTIME naming the call. */
int pb_mpi_fail(int rc, const char *call, pb_err_t *err);

/* pb_mpi_async.c: the pending list of a group and the asynchronous ops.
 * pending_new reserves one slot (request MPI_REQUEST_NULL, nothing to do
 * after) and returns it, or NULL with err set when out of memory; the
 * pointers stay valid until the next pending_new. */
MPI_Request *pb_mpi_pending_new(pb_group_t *g, pb_mpi_after_t **after, pb_err_t *err);
/* Wait for every pending request of g, run what follows each, empty the
 * list.  On an MPI error the list is emptied all the same (the requests
 * are then MPI's to clean up) and the error returned. */
int pb_mpi_pending_wait(pb_group_t *g, pb_err_t *err);
int pb_mpi_set_async(pb_group_t *g, int on, pb_err_t *err);
/* One progress poll of every asynchronous group of the instance. */
int pb_mpi_progress(pb_backend_t *be, pb_err_t *err);
/* group_free's part: complete what is pending, leave the registry, free
 * the list. */
void pb_mpi_async_release(pb_group_t *g);

/* pb_mpi_p2p.c */
int pb_mpi_p2p_batch(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t,
                     pb_err_t *err);

/* Elements of t one MPI call may carry: the chunk limit, and INT_MAX. */
uint64_t pb_mpi_chunk_elems(const pb_group_t *g, pb_dtype_t t);

static inline int pb_mpi_is_async(const pb_group_t *g)
{
    return ((const pb_mpi_group_t *)g->priv)->async;
}

/* pb_mpi_colls.c: the collectives, split into chunks as needed */
int pb_mpi_allreduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_redop_t op, pb_err_t *err);
int pb_mpi_allgather(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_err_t *err);
int pb_mpi_reduce_scatter(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                          pb_redop_t op, pb_err_t *err);
int pb_mpi_alltoall(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                    pb_err_t *err);
int pb_mpi_alltoallv(pb_group_t *g, const void *s, const uint64_t *scounts,
                     const uint64_t *sdispls, void *r, const uint64_t *rcounts,
                     const uint64_t *rdispls, pb_dtype_t t, pb_err_t *err);
int pb_mpi_broadcast(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, int root,
                     pb_err_t *err);
int pb_mpi_reduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                  pb_redop_t op, int root, pb_err_t *err);
int pb_mpi_sendrecv(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t count,
                    pb_dtype_t t, pb_err_t *err);

/* pb_mpi_knob.c: an MPI_T control variable for the groups split after
 * (the comm ops' knob), and MPI_T's end at finalize */
int pb_mpi_knob(pb_backend_t *be, const char *name, const char *value, pb_err_t *err);
void pb_mpi_knob_fini(pb_mpi_state_t *st);

#endif
