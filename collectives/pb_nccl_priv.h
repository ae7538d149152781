/* pb_nccl_priv.h - state shared by the files of the NCCL-API backend,
 * which is both nccl (NCCL on CUDA) and rccl (RCCL on HIP: the same API,
 * the same source): pb_nccl_backend.c (the library, its communicators,
 * the ops tables), pb_nccl_colls.c (the collectives and point-to-point)
 * and pb_nccl_stream.c (waiting, timing, graphs and the stall on a
 * group's stream).  Every GPU runtime call goes through the state's
 * runtime table (pb_gpurt.h), so no file here includes a vendor header
 * but nccl.h, the source of the NCCL API's types for both libraries. */
#ifndef PB_NCCL_PRIV_H
#define PB_NCCL_PRIV_H

#include "pb_backend.h"
#include "pb_gpurt.h"
#include "pb_nccl_lib.h"

#define PB_NCCL_MARKS 4 /* timer slots per group: the runtime's events */

typedef struct pb_nccl_state {
    pb_ctl_t *world; /* the run's control world (cfg->ctl): not owned */
    int device;
    int cc_major; /* the device's compute capability (0: AMD, or unknown) */
    /* the GPU runtime (CUDA for nccl, HIP for rccl), opened by init;
     * rt points at it */
    pb_gpurt_t gpurt;
    const pb_gpurt_t *rt;
    /* libnccl, opened by init (pb_nccl_lib.h): every NCCL call goes
     * through it, none is linked */
    pb_nccl_lib_t lib;
    const pb_nccl_vendor_t *vendor;
    double timeout_s;
    /* knob(): the settings of the communicators split next
     * (pb_nccl_knob.c); "" and 0: the library's own */
    char algo[64];  /* NCCL_ALGO */
    char proto[32]; /* NCCL_PROTO */
    int min_ctas, max_ctas; /* ncclConfig_t: NCCL_MIN/MAX_NCHANNELS */
} pb_nccl_state_t;

typedef struct pb_nccl_group {
    ncclComm_t comm;
    void *stream;                /* the runtime's stream */
    void *marks[PB_NCCL_MARKS];  /* its timing events */
    unsigned long long *scratch; /* device: the barrier's one element */
    void *graph;                 /* a captured graph and its executable */
    void *exec;
    /* --fault stall: a flag in mapped host memory that the stall kernel
     * reads; set before the communicator is aborted or the stream
     * synchronised, so that neither waits an hour behind the kernel */
    volatile int *stall_release;
} pb_nccl_group_t;

/* Ends a running stall kernel (no-op without one). */
static inline void pb_nccl_release_stall(pb_nccl_group_t *gg)
{
    if (gg->stall_release != NULL) {
        *gg->stall_release = 1;
        __sync_synchronize(); /* the store is visible before the abort's wait */
    }
}

static inline pb_nccl_state_t *pb_nccl_state_of(const pb_group_t *g) { return g->be->priv; }
static inline pb_nccl_group_t *pb_nccl_grp(const pb_group_t *g) { return g->priv; }
static inline const pb_nccl_lib_t *pb_nccl_lib_of(const pb_group_t *g)
{
    return &pb_nccl_state_of(g)->lib;
}
static inline const pb_gpurt_t *pb_nccl_rt_of(const pb_group_t *g)
{
    return pb_nccl_state_of(g)->rt;
}

/* pb_nccl_knob.c: the comm ops' knob, and ncclCommSplit under the
 * settings it holds */
int pb_nccl_knob(pb_backend_t *be, const char *name, const char *value, pb_err_t *err);
int pb_nccl_split_comm(pb_nccl_state_t *st, ncclComm_t parent, int color, int key,
                       ncclComm_t *out, pb_err_t *err);

/* pb_nccl_backend.c: PB_ERUNTIME naming the failed call and the
 * library's reason.  `call` is the runtime call's name without its
 * prefix ("EventRecord"): the message says "cudaEventRecord" or
 * "hipEventRecord" after rt->name. */
int pb_nccl_gpu_fail(const pb_gpurt_t *rt, int rc, const char *call, pb_err_t *err);
int pb_nccl_fail(const pb_nccl_lib_t *lib, ncclResult_t rc, const char *call, pb_err_t *err);

/* Return that error from the enclosing function (which has `err`) when
 * a runtime or NCCL call fails; `rt` and `lib` explain the codes. */
#define PB_NCCL_GPU_OK(rt, call, name)                                             \
    do {                                                                           \
        int rc_ = (call);                                                          \
        if (rc_ != 0)                                                              \
            return pb_nccl_gpu_fail(rt, rc_, name, err);                           \
    } while (0)

#define PB_NCCL_OK(lib, call, name)                                                \
    do {                                                                           \
        ncclResult_t rc_ = (call);                                                 \
        if (rc_ != ncclSuccess)                                                    \
            return pb_nccl_fail(lib, rc_, name, err);                              \
    } while (0)

/* pb_nccl_stream.c */
/* Waits for `ev` (or the whole stream when ev is NULL) with a deadline;
 * on a hang or an NCCL error aborts the communicator. */
int pb_nccl_wait(pb_group_t *g, void *ev, pb_err_t *err);
int pb_nccl_mark(pb_group_t *g, int slot, pb_err_t *err);
int pb_nccl_elapsed(pb_group_t *g, int from, int to, double *seconds, pb_err_t *err);
int pb_nccl_sync(pb_group_t *g, pb_err_t *err);
int pb_nccl_stall(pb_group_t *g, double seconds, pb_err_t *err);
void pb_nccl_graph_release(pb_group_t *g);
int pb_nccl_graph_begin(pb_group_t *g, pb_err_t *err);
int pb_nccl_graph_end(pb_group_t *g, pb_err_t *err);
int pb_nccl_graph_launch(pb_group_t *g, uint64_t times, pb_err_t *err);

/* pb_nccl_colls.c: each issued on the group's stream, returning once
 * issued (the barrier waits) */
int pb_nccl_allreduce(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                      pb_redop_t op, pb_err_t *err);
int pb_nccl_allgather(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                      pb_err_t *err);
int pb_nccl_reduce_scatter(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                           pb_redop_t op, pb_err_t *err);
int pb_nccl_alltoall(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                     pb_err_t *err);
int pb_nccl_alltoallv(pb_group_t *g, const void *s, const uint64_t *sc, const uint64_t *sd,
                      void *r, const uint64_t *rcnt, const uint64_t *rd, pb_dtype_t t,
                      pb_err_t *err);
int pb_nccl_broadcast(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, int root,
                      pb_err_t *err);
int pb_nccl_reduce(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                   pb_redop_t op, int root, pb_err_t *err);
int pb_nccl_sendrecv(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t n,
                     pb_dtype_t t, pb_err_t *err);
int pb_nccl_p2p_batch(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t,
                      pb_err_t *err);
int pb_nccl_barrier(pb_group_t *g, pb_err_t *err);

#endif
