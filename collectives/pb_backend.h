/* pb_backend.h - the backend interface: one ops table per way of moving
 * data (MPI on host memory, NCCL on device memory, ...).
 *
 * Everything above collectives/ (harness, patterns runner, step runner)
 * talks to a backend only through this table, so adding a backend is one
 * new file plus one line in pb_backend_registry.c.
 *
 * Conventions, shared by every backend so the harness stays generic:
 *  - counts are 64-bit element counts; a backend that has 32-bit counts
 *    underneath (MPI 3.1) splits calls itself;
 *  - in-place is expressed by pointers, exactly as NCCL defines it:
 *      allreduce, alltoall, reduce: sendbuf == recvbuf;
 *      allgather:     sendbuf == recvbuf + rank * count;
 *      reducescatter: recvbuf == sendbuf + rank * count;
 *      broadcast:     one buffer;
 *  - operations are issued in order on the group's stream (device) or
 *    complete on return (host, unless set_async put the group in
 *    asynchronous mode); sync() waits for everything issued;
 *  - every call returns PB_OK or an error code with err filled in. */
#ifndef PB_BACKEND_H
#define PB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pb_check.h"
#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

typedef struct pb_backend pb_backend_t;
typedef struct pb_group pb_group_t;
typedef struct pb_backend_ops pb_backend_ops_t;

typedef enum pb_memory { PB_MEM_HOST, PB_MEM_DEVICE } pb_memory_t;

/* One part of a batch of point-to-point operations (p2p_batch).  Named
 * _part: pb_p2p_t is patterns/pb_pat_op.h's partner direction, and bench/
 * includes both headers. */
typedef struct pb_p2p_part {
    int send;       /* 1: send buf to peer; 0: receive into buf from peer */
    int peer;       /* group rank */
    int tag;        /* 0..31: pairs this part with the peer's (see p2p_batch) */
    void *buf;
    uint64_t count; /* elements */
} pb_p2p_part_t;

typedef struct pb_backend_config {
    /* The world the backend builds on: an MPI_Comm passed as a pointer so
     * that this header needs no mpi.h (bench/ owns the MPI world). */
    const void *world_comm;
    pb_memory_t memory;
    /* Largest message one underlying call may carry (bytes); 0 = the
     * backend's default.  Tests set it small to exercise the splitting of
     * large messages without allocating gigabytes. */
    uint64_t chunk_bytes;
    /* Seconds an operation may take before the backend declares a hang
     * (device backends poll while they wait); 0 = wait forever. */
    double timeout_s;
} pb_backend_config_t;

struct pb_backend_ops {
    const char *name;
    const char *description;

    /* Optional: can this backend run here at all?  0 with a reason ("no
     * CUDA device: cudaGetDeviceCount returned 35") when not.  Not
     * collective: it looks at this process's machine only. */
    int (*available)(char *why, size_t len);

    int (*init)(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err);
    void (*finalize)(pb_backend_t *be);
    /* Library versions, e.g. "Open MPI v4.1.4 (MPI 3.1)". */
    void (*version)(pb_backend_t *be, char *buf, size_t len);

    /* Groups: the world, and sub-groups by color/key like MPI_Comm_split.
     * Collective over `parent`. */
    int (*world)(pb_backend_t *be, pb_group_t **out, pb_err_t *err);
    int (*split)(pb_group_t *parent, int color, int key, pb_group_t **out, pb_err_t *err);
    void (*group_free)(pb_group_t *g);

    /* Memory the collectives use (host or device, per the config). */
    int (*alloc)(pb_backend_t *be, uint64_t bytes, void **ptr, pb_err_t *err);
    void (*free)(pb_backend_t *be, void *ptr);

    /* Collectives.  count = elements per rank as described beside each. */
    int (*allreduce)(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_redop_t op, pb_err_t *err);
    /* count = elements each rank contributes */
    int (*allgather)(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_err_t *err);
    /* count = elements each rank receives */
    int (*reduce_scatter)(pb_group_t *g, const void *s, void *r, uint64_t count,
                          pb_dtype_t t, pb_redop_t op, pb_err_t *err);
    /* count = elements sent to each peer */
    int (*alltoall)(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                    pb_err_t *err);
    int (*alltoallv)(pb_group_t *g, const void *s, const uint64_t *scounts,
                     const uint64_t *sdispls, void *r, const uint64_t *rcounts,
                     const uint64_t *rdispls, pb_dtype_t t, pb_err_t *err);
    int (*broadcast)(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, int root,
                     pb_err_t *err);
    int (*reduce)(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                  pb_redop_t op, int root, pb_err_t *err);
    /* Send count elements to peer `dst` while receiving count from `src`
     * (both group ranks; either may be -1 for none). */
    int (*sendrecv)(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t count,
                    pb_dtype_t t, pb_err_t *err);
    int (*barrier)(pb_group_t *g, pb_err_t *err);

    /* Timing.  mark() records a point in the group's stream of work
     * (host: the clock now; device: an event); elapsed() waits for both
     * marks and returns the seconds between them. */
    int (*mark)(pb_group_t *g, int slot, pb_err_t *err);
    int (*elapsed)(pb_group_t *g, int from, int to, double *seconds, pb_err_t *err);
    int (*sync)(pb_group_t *g, pb_err_t *err);

    /* Data: fill with the pattern (base + j) mod q, fill as rank `rank`'s
     * input of a reduction, and count elements differing from `e`.  Device
     * backends do all three on the device. */
    int (*fill)(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                uint64_t q, pb_err_t *err);
    int (*fill_red)(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t,
                    pb_redparams_t p, int rank, uint64_t first_global, pb_err_t *err);
    int (*check)(pb_group_t *g, const void *buf, uint64_t count, pb_dtype_t t,
                 const pb_expect_t *e, uint64_t *wrong, pb_err_t *err);
    /* Set every byte to 0xff: NaN in every float type, -1 in every
     * integer type, never a value verification expects. */
    int (*poison)(pb_group_t *g, void *buf, uint64_t bytes, pb_err_t *err);
    /* Overwrite one element (fault injection: a corrupted transfer). */
    int (*poke)(pb_group_t *g, void *buf, uint64_t index, pb_dtype_t t, uint64_t value,
                pb_err_t *err);

    /* Which reductions and types this backend can run, with a reason. */
    int (*supports)(pb_backend_t *be, pb_dtype_t t, pb_redop_t op, char *why, size_t len);

    /* Optional parts; NULL where a backend has none. */
    /* Does the in-place variant of c exist here (default: it does when
     * pb_coll_has_in_place says so)? */
    int (*has_in_place)(pb_backend_t *be, pb_coll_t c);
    /* Graphs: record the operations issued between begin and end, then
     * replay them `times` times with no launch gaps (CUDA graphs). */
    int (*graph_begin)(pb_group_t *g, pb_err_t *err);
    int (*graph_end)(pb_group_t *g, pb_err_t *err);
    int (*graph_launch)(pb_group_t *g, uint64_t times, pb_err_t *err);
    /* Destroys the group's captured graph, which refers to the buffers it
     * was captured on: called before those buffers are freed (optional;
     * NULL where graph_begin is). */
    void (*graph_release)(pb_group_t *g);
    /* Fault injection: make this rank's next operations wait `seconds`
     * (a device stalled), to prove the hang detection. */
    int (*inject_stall)(pb_group_t *g, double seconds, pb_err_t *err);
    /* Memory free where this backend's buffers go, in bytes, so that a
     * size that cannot fit is refused before allocating.  *per_node: the
     * amount is shared by all ranks of the node (host memory), else it is
     * this rank's own (its GPU).  Returns 0 when unknown. */
    int (*mem_available)(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                         size_t len);
    /* One line about this rank's device, e.g. "GPU 0 NVIDIA H200 0000:18:00.0". */
    void (*device_info)(pb_backend_t *be, char *buf, size_t len);

    /* The executed training step (bench/pb_step_cmd.c) needs three more.
     *
     * p2p_batch: post every send and receive of `ops` together and
     * complete them together, as torch.distributed.batch_isend_irecv and
     * one NCCL group do (Megatron's pipeline exchanges).  Peers are group
     * ranks and may repeat (in a ring of two, next == previous).  Sends
     * and receives pair up by `tag` and, within a tag, by order (MPI uses
     * the tag; NCCL has none and pairs by issue order, so callers issue
     * the parts in one agreed order).  Device backends return once the
     * work is issued on the group's stream; sync() completes it. */
    int (*p2p_batch)(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t, pb_err_t *err);
    /* set_async: while on, collectives and p2p_batch on g return once
     * issued instead of once complete (a DDP gradient bucket on its own
     * stream); sync(g) completes them.  Device backends are asynchronous
     * already and only accept the call. */
    int (*set_async)(pb_group_t *g, int on, pb_err_t *err);
    /* busy: keep this rank's compute engine busy for `seconds`, the stand-
     * in for a layer's GEMMs.  Host: the core spins, driving the progress
     * of every asynchronous operation of this backend instance meanwhile
     * (a host MPI has no engine of its own to move them).  Device: a
     * kernel on g's stream shaped like a GEMM - waves of short blocks over
     * every SM - so that NCCL kernels on other streams share the SMs as
     * they do with real GEMMs.  Returns once issued on a device; sync(g)
     * waits for it. */
    int (*busy)(pb_group_t *g, double seconds, pb_err_t *err);

    /* Optional.  set_tight: while on, every blocking collective of g
     * takes marks 0 and 1 itself, at its entry and its end, so that a
     * latency sample's timed region holds the operation and nothing of
     * the caller's dispatch (elapsed(g, 0, 1) reads them).  Host backends
     * have it; a device backend's events are on the stream already. */
    int (*set_tight)(pb_group_t *g, int on, pb_err_t *err);
};

/* A backend instance: its table and its private state.  Backends keep
 * their state in `priv`; there is no global state anywhere. */
struct pb_backend {
    const pb_backend_ops_t *ops;
    void *priv;
};

/* A group of ranks that run collectives together.  The common part is
 * public so callers need no accessor calls in timed loops; `priv` is the
 * backend's (an MPI communicator, an NCCL communicator and its stream). */
struct pb_group {
    pb_backend_t *be;
    int rank; /* in this group */
    int size;
    void *priv;
    /* What the group is doing now ("allreduce 1048576 B float, group tp"),
     * set by the caller before it issues work, so that a backend that
     * detects a hang can say which operation hung. */
    char doing[160];
};

/* Registry: every backend built into this binary. */
const pb_backend_ops_t *pb_backend_find(const char *name);
int pb_backend_count(void);
const pb_backend_ops_t *pb_backend_at(int i);

#endif
