/* pb_ctl.h - the ranks of one run and how they agree: the control world.
 *
 * Everything a run exchanges besides the timed operations goes through
 * it: status agreement, the node map, sample reductions, the watchdog's
 * addresses, the NCCL unique id.  Two implementations:
 *  - mpi (pb_ctl_mpi.c): the ranks are MPI processes (mpirun, srun);
 *  - threads (pb_ctl_thread.c): the ranks are threads of one process,
 *    one per local GPU (`--gpus N`, as nccl-tests' `-g N`), exchanging
 *    through shared memory; no MPI anywhere, so a build without MPI
 *    (-DPARBENCH_MPI=OFF) still runs the NCCL backend on one node.
 * The timed operations go through the backend (pb_backend.h) and never
 * through this: a control exchange sits outside every timed region.
 *
 * Every call is collective over the control world, returns PB_OK or
 * PB_ERUNTIME (the same on every rank where the library reports it so),
 * and is made by one thread per rank. */
#ifndef PB_CTL_H
#define PB_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "../util/pb_err.h" /* PB_OK, PB_ERUNTIME */

typedef struct pb_ctl pb_ctl_t;

typedef enum pb_ctl_type { PB_CTL_INT, PB_CTL_I64, PB_CTL_DOUBLE, PB_CTL_BYTE } pb_ctl_type_t;
typedef enum pb_ctl_op { PB_CTL_MAX, PB_CTL_MIN, PB_CTL_SUM, PB_CTL_BOR } pb_ctl_op_t;

/* A value and the rank holding it: the largest wins, the lowest rank on
 * a tie (MPI_MAXLOC's rule; MPI_DOUBLE_INT's layout). */
typedef struct pb_ctl_loc {
    double v;
    int rank;
} pb_ctl_loc_t;

typedef struct pb_ctl_ops {
    const char *name; /* "mpi", "threads" */
    /* in place; BOR on PB_CTL_BYTE only, SUM, MAX, MIN on the others */
    int (*allreduce)(pb_ctl_t *c, void *buf, uint64_t n, pb_ctl_type_t t, pb_ctl_op_t op);
    int (*maxloc)(pb_ctl_t *c, pb_ctl_loc_t *v, uint64_t n);
    /* `bytes` from every rank, in rank order, into all (size x bytes) */
    int (*allgather)(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes);
    /* the same to `root` only (all is read on root alone) */
    int (*gather)(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes, int root);
    /* rank r's bytes[r] at offset displs[r] of all (arrays read on root) */
    int (*gatherv)(pb_ctl_t *c, const void *mine, uint64_t bytes, void *all,
                   const uint64_t *counts, const uint64_t *displs, int root);
    int (*bcast)(pb_ctl_t *c, void *buf, uint64_t bytes, int root);
    int (*barrier)(pb_ctl_t *c);
    /* sub-worlds as MPI_Comm_split (color < 0: *out = NULL); split_node:
     * the ranks of this rank's host */
    int (*split)(pb_ctl_t *c, int color, int key, pb_ctl_t **out);
    int (*split_node)(pb_ctl_t *c, pb_ctl_t **out);
    void (*free)(pb_ctl_t *c);
    /* ends the whole job (every rank) with `code` */
    void (*abort)(pb_ctl_t *c, int code); /* does not return */
    void (*host)(const pb_ctl_t *c, char *buf, size_t len);
} pb_ctl_ops_t;

struct pb_ctl {
    const pb_ctl_ops_t *ops;
    int rank;
    int size;
    /* while set, waits sleep instead of spinning: ranks that rest must
     * leave the cores to the ranks being timed (validate's rounds) */
    int quiet;
    void *priv;
};

/* The threads world: `size` ranks of this process.  pb_ctl_threads_new
 * makes the shared part once; each rank's thread then takes its own
 * handle with pb_ctl_threads_join (rank 0..size-1) and frees it with
 * free(); the shared part goes with the last handle. */
typedef struct pb_ctl_shared pb_ctl_shared_t;
pb_ctl_shared_t *pb_ctl_threads_new(int size);
pb_ctl_t *pb_ctl_threads_join(pb_ctl_shared_t *s, int rank);
/* Only where no thread joined (a failed start). */
void pb_ctl_threads_drop(pb_ctl_shared_t *s);

static inline int pb_ctl_allreduce(pb_ctl_t *c, void *buf, uint64_t n, pb_ctl_type_t t,
                                   pb_ctl_op_t op)
{
    return c->ops->allreduce(c, buf, n, t, op);
}
static inline int pb_ctl_maxloc(pb_ctl_t *c, pb_ctl_loc_t *v, uint64_t n)
{
    return c->ops->maxloc(c, v, n);
}
static inline int pb_ctl_allgather(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes)
{
    return c->ops->allgather(c, mine, all, bytes);
}
static inline int pb_ctl_gather(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes,
                                int root)
{
    return c->ops->gather(c, mine, all, bytes, root);
}
static inline int pb_ctl_gatherv(pb_ctl_t *c, const void *mine, uint64_t bytes, void *all,
                                 const uint64_t *counts, const uint64_t *displs, int root)
{
    return c->ops->gatherv(c, mine, bytes, all, counts, displs, root);
}
static inline int pb_ctl_bcast(pb_ctl_t *c, void *buf, uint64_t bytes, int root)
{
    return c->ops->bcast(c, buf, bytes, root);
}
static inline int pb_ctl_barrier(pb_ctl_t *c) { return c->ops->barrier(c); }
static inline int pb_ctl_split(pb_ctl_t *c, int color, int key, pb_ctl_t **out)
{
    return c->ops->split(c, color, key, out);
}
static inline int pb_ctl_split_node(pb_ctl_t *c, pb_ctl_t **out)
{
    return c->ops->split_node(c, out);
}
static inline void pb_ctl_free(pb_ctl_t *c)
{
    if (c != NULL)
        c->ops->free(c);
}
static inline void pb_ctl_host(const pb_ctl_t *c, char *buf, size_t len)
{
    c->ops->host(c, buf, len);
}
_Noreturn void pb_ctl_abort(pb_ctl_t *c, int code);

/* Seconds on a monotonic clock (what MPI_Wtime is on Linux). */
static inline double pb_ctl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Is this the MPI control world?  (the mpi backend needs one) */
static inline int pb_ctl_is_mpi(const pb_ctl_t *c)
{
    return c != NULL && strcmp(c->ops->name, "mpi") == 0;
}

#endif
