/* pb_comm_ops.h - the communication side of a backend: the library that
 * moves data between ranks (MPI, NCCL; later RCCL, UCC).
 *
 * One table per library, in one file, listed once in pb_backend_list.def.
 * Everything not marked optional is required: pb_backend_check refuses a
 * table with a hole, so no caller ever tests a pointer.  Optional
 * operations exist exactly where the capability bits returned by caps()
 * say so.  doc/BACKENDS.md gives each operation's contract. */
#ifndef PB_COMM_OPS_H
#define PB_COMM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "pb_check.h"
#include "pb_mem_ops.h"
#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

typedef struct pb_comm_ops pb_comm_ops_t;
typedef struct pb_backend_config pb_backend_config_t;
typedef struct pb_p2p_part pb_p2p_part_t;

/* pb_comm_ops_t.moves: the memories a library can move. */
enum { PB_MOVES_HOST = 1u << PB_MEM_HOST, PB_MOVES_DEVICE = 1u << PB_MEM_DEVICE };

struct pb_comm_ops {
    const char *name;        /* --backend NAME, the CSV backend column */
    const char *description; /* one line for help texts */
    /* PB_MOVES_* bits.  A run gets host buffers unless --memory device;
     * a library that moves device memory only gets device buffers. */
    unsigned moves;
    /* The optional abilities (PB_CAP_ASYNC, _TIGHT, _GRAPH, _DEADLINE)
     * when the buffers are in `memory`.  Asked once, when the backend is
     * opened; pure (no library call). */
    unsigned (*caps)(pb_memory_t memory);

    /* Can this library run here at all (the library loads, a GPU
     * answers)?  0 with a reason ("no CUDA device: cudaGetDeviceCount
     * returned 35") when not.  cfg says which library file was asked for
     * (lib_path).  Not collective: it looks at this process's machine
     * only. */
    int (*available)(const pb_backend_config_t *cfg, char *why, size_t len);
    /* Collective over cfg->ctl.  cfg->memory is the memory this
     * side moves in this run; state goes in be->priv.  A device library
     * binds the rank to its GPU here (pb_cuda_bind_local). */
    int (*init)(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err);
    void (*finalize)(pb_backend_t *be);
    /* Library versions, e.g. "Open MPI v4.1.4 (MPI 3.1)". */
    void (*version)(pb_backend_t *be, char *buf, size_t len);
    /* Which reductions and types this library can run on a group of
     * nranks, with a reason. */
    int (*supports)(pb_backend_t *be, pb_dtype_t t, pb_redop_t op, int nranks, char *why,
                    size_t len);
    /* Does this library define the in-place variant of c (asked only
     * where pb_coll_has_in_place(c) holds)? */
    int (*has_in_place)(pb_backend_t *be, pb_coll_t c);

    /* Groups: the world, and sub-groups by color/key like MPI_Comm_split
     * (color < 0: this rank joins none, *out = NULL).  Collective over
     * `parent`. */
    int (*world)(pb_backend_t *be, pb_group_t **out, pb_err_t *err);
    int (*split)(pb_group_t *parent, int color, int key, pb_group_t **out, pb_err_t *err);
    void (*group_free)(pb_group_t *g);
    /* A communication setting (tune/pb_knob.h) for the groups split after
     * this call, groups already made keeping theirs: name as the library
     * spells it, value NULL for the value it had before the first change.
     * Collective in effect (every rank sets the same before the same
     * split).  PB_EINPUT with one line when this setting cannot change
     * in a running process.  NULL: the library has none settable so. */
    int (*knob)(pb_backend_t *be, const char *name, const char *value, pb_err_t *err);
    /* The group's stream (a cudaStream_t as void *), on which the memory
     * side orders device work; NULL where there is none (host libraries,
     * MPI on device memory): device work then completes on return. */
    void *(*stream)(const pb_group_t *g);

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
    /* Blocking on every library: host and device of every rank are past
     * the same point when it returns. */
    int (*barrier)(pb_group_t *g, pb_err_t *err);

    /* p2p_batch: post every send and receive of `ops` together and
     * complete them together, as torch.distributed.batch_isend_irecv and
     * one NCCL group do (Megatron's pipeline exchanges).  Peers are group
     * ranks and may repeat (in a ring of two, next == previous).  Sends
     * and receives pair up by `tag` and, within a tag, by order (MPI uses
     * the tag; NCCL has none and pairs by issue order, so callers issue
     * the parts in one agreed order).  Device libraries return once the
     * work is issued on the group's stream; sync() completes it. */
    int (*p2p_batch)(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t,
                     pb_err_t *err);

    /* Timing.  mark() records a point in the group's stream of work
     * (host: the clock now; device: an event), slots 0..PB_BACKEND_MARKS-1;
     * elapsed() waits for both marks and returns the seconds between. */
    int (*mark)(pb_group_t *g, int slot, pb_err_t *err);
    int (*elapsed)(pb_group_t *g, int from, int to, double *seconds, pb_err_t *err);
    /* Waits for everything issued on g, the memory side's work on g's
     * stream included. */
    int (*sync)(pb_group_t *g, pb_err_t *err);
    /* One progress poll of every asynchronous operation of this instance;
     * the host compute stand-in calls it while it spins.  PB_OK at once
     * for a library that progresses by itself (a GPU's). */
    int (*progress)(pb_backend_t *be, pb_err_t *err);

    /* Optional: PB_CAP_ASYNC.  While on, collectives and p2p_batch on g
     * return once issued instead of once complete (a DDP gradient bucket
     * on its own stream); sync(g) completes them.  Device libraries are
     * asynchronous already and only accept the call. */
    int (*set_async)(pb_group_t *g, int on, pb_err_t *err);
    /* Optional: PB_CAP_TIGHT.  While on, every blocking collective of g
     * takes marks 0 and 1 itself, at its entry and its end, so that a
     * latency sample's timed region holds the operation and nothing of
     * the caller's dispatch (elapsed(g, 0, 1) reads them). */
    int (*set_tight)(pb_group_t *g, int on, pb_err_t *err);
    /* Optional: PB_CAP_GRAPH.  Record the operations issued on g between
     * begin and end, then replay them `times` times with no launch gaps
     * (CUDA graphs).  graph_release destroys the captured graph, which
     * refers to the buffers it was captured on: called before those
     * buffers are freed. */
    int (*graph_begin)(pb_group_t *g, pb_err_t *err);
    int (*graph_end)(pb_group_t *g, pb_err_t *err);
    int (*graph_launch)(pb_group_t *g, uint64_t times, pb_err_t *err);
    void (*graph_release)(pb_group_t *g);
    /* Optional: PB_CAP_DEADLINE.  The library waits by polling against
     * cfg->timeout_s and reports a hang naming g->doing; inject_stall
     * makes this rank's next operations wait `seconds` (a device
     * stalled), to prove it. */
    int (*inject_stall)(pb_group_t *g, double seconds, pb_err_t *err);
};

#endif
