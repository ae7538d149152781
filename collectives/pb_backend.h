/* pb_backend.h - a backend: one communication side and one memory side,
 * composed when the run chooses them, and what the pair can do.
 *
 * The communication side (pb_comm_ops.h) is the library that moves data:
 * MPI, NCCL; later RCCL or UCC.  The memory side (pb_mem_ops.h) is where
 * the buffers live and where the compute stand-in runs: host memory and
 * the CPU, or CUDA device memory and the GPU.  MPI moves either, so
 * "--backend mpi --memory device" is the MPI side with the CUDA side; no
 * table is copied or patched for it.
 *
 * What a pair can do beyond the required operations is a capability mask
 * (pb_cap_t), worked out once by pb_backend_open.  Callers ask the mask,
 * never a function pointer: a run that needs a missing capability is
 * refused with one line (pb_backend_require) before anything runs.
 *
 * Conventions shared by both sides so the harness stays generic:
 *  - counts are 64-bit element counts; a library with 32-bit counts
 *    underneath (MPI 3.1) splits calls itself;
 *  - in-place is expressed by pointers, exactly as NCCL defines it:
 *      allreduce, alltoall, reduce: sendbuf == recvbuf;
 *      allgather:     sendbuf == recvbuf + rank * count;
 *      reducescatter: recvbuf == sendbuf + rank * count;
 *      broadcast:     one buffer;
 *  - work is issued in order on the group's stream (device) or completes
 *    on return (host, unless set_async put the group in asynchronous
 *    mode); sync() waits for everything issued;
 *  - every call returns PB_OK or an error code with err filled in.
 * doc/BACKENDS.md says what a new backend implements. */
#ifndef PB_BACKEND_H
#define PB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pb_check.h"
#include "pb_comm_ops.h"
#include "pb_ctl.h"
#include "pb_mem_ops.h"
#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

/* Optional abilities.  The communication side declares its bits per
 * memory (pb_comm_ops_t.caps), the memory side its own (pb_mem_ops_t.caps);
 * a set bit promises the operations named beside it. */
typedef enum pb_cap {
    /* communication side */
    PB_CAP_ASYNC = 1u << 0,    /* set_async: calls can return once issued */
    PB_CAP_TIGHT = 1u << 1,    /* set_tight: collectives take marks 0, 1 */
    PB_CAP_GRAPH = 1u << 2,    /* graph_begin, _end, _launch, _release */
    PB_CAP_DEADLINE = 1u << 3, /* own hang deadline (timeout_s), inject_stall */
    /* no operation: the library's reference benchmark moves its buffers
     * between timed operations (nccl-tests does, OSU does not), so
     * parbench's times compare with it by default (--buffers) */
    PB_CAP_ROTATE = 1u << 6,
    /* memory side */
    PB_CAP_DEVICE_MEM = 1u << 4, /* buffers on a GPU; device_info names it */
    PB_CAP_BUSY = 1u << 5        /* busy: the compute stand-in */
} pb_cap_t;

#define PB_CAP_COMM_BITS                                                                  \
    (PB_CAP_ASYNC | PB_CAP_TIGHT | PB_CAP_GRAPH | PB_CAP_DEADLINE | PB_CAP_ROTATE)
#define PB_CAP_MEM_BITS (PB_CAP_DEVICE_MEM | PB_CAP_BUSY)

/* Timer slots every backend offers to mark() and elapsed(). */
#define PB_BACKEND_MARKS 4

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
    /* The ranks the backend builds on (pb_ctl.h): MPI processes, or the
     * threads of `--gpus N`.  The mpi backend needs the former. */
    pb_ctl_t *ctl;
    /* Asked for (--memory); pb_backend_open hands init the memory the
     * communication side really moves (NCCL: always the device). */
    pb_memory_t memory;
    /* Largest message one underlying call may carry (bytes); 0 = the
     * backend's default.  Tests set it small to exercise the splitting of
     * large messages without allocating gigabytes. */
    uint64_t chunk_bytes;
    /* Seconds an operation may take before the backend declares a hang
     * (backends with PB_CAP_DEADLINE poll while they wait); 0 = forever. */
    double timeout_s;
    /* The library file to load (--nccl-lib) for a backend that opens its
     * library at run time (nccl: pb_nccl_lib.h); NULL: its own search. */
    const char *lib_path;
} pb_backend_config_t;

/* A backend instance: both sides, the capabilities of the pair, and each
 * side's private state.  No global state anywhere. */
struct pb_backend {
    const pb_comm_ops_t *comm;
    const pb_mem_ops_t *mem;
    unsigned caps;      /* pb_cap_t bits, set once by pb_backend_open */
    pb_memory_t memory; /* where the buffers are */
    void *priv;         /* the communication side's */
    void *mem_priv;     /* the memory side's */
};

/* A group of ranks that run collectives together.  The common part is
 * public so callers need no accessor calls in timed loops; `priv` is the
 * communication side's (an MPI communicator, an NCCL communicator and its
 * stream). */
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

/* Composes `comm` with the memory side for cfg->memory (host, or CUDA
 * where comm moves device memory only or device memory was asked for),
 * checks both tables against their capabilities, initialises the
 * communication side and then the memory side, and sets be->caps.
 * Collective over cfg->ctl as comm->init is.  On failure nothing
 * stays open. */
int pb_backend_open(pb_backend_t *be, const pb_comm_ops_t *comm, const pb_backend_config_t *cfg,
                    pb_err_t *err);
/* The memory side first, then the communication side; groups must be
 * freed before. */
void pb_backend_close(pb_backend_t *be);

static inline int pb_backend_has(const pb_backend_t *be, unsigned caps)
{
    return (be->caps & caps) == caps;
}

/* PB_OK when be has every bit of `caps`, else PB_EINPUT with one line
 * naming the first missing ability and the backends of this build that
 * have it, e.g. "graph mode needs a backend with graphs (nccl); mpi has
 * none".  Local and the same on every rank: no agreement needed. */
int pb_backend_require(const pb_backend_t *be, unsigned caps, pb_err_t *err);

/* Does the in-place variant of c exist, in general and on this backend? */
int pb_backend_in_place(const pb_backend_t *be, pb_coll_t c);

/* 0 when the tables are complete: every required operation present and
 * every operation a capability bit promises (over every memory the
 * communication side moves); else -1 with the first gap in `why`.
 * mem may be NULL to check the communication side alone. */
int pb_backend_check(const pb_comm_ops_t *comm, const pb_mem_ops_t *mem, char *why, size_t len);

/* The memory side for `memory` in this build (NULL: device memory in a
 * build without CUDA or HIP; CUDA's where both are built). */
const pb_mem_ops_t *pb_mem_ops_for(pb_memory_t memory);
/* The memory side comm composes with: HIP's device memory for rccl,
 * else pb_mem_ops_for's. */
const pb_mem_ops_t *pb_mem_ops_of(const pb_comm_ops_t *comm, pb_memory_t memory);

/* The memory a run of comm gets when `asked` was asked for (PB_EINPUT
 * where comm cannot move device memory that was asked for), and the
 * capabilities of comm composed with that memory's side (0 where the
 * pair cannot be made in this build).  Pure: pb_backend_open uses both. */
int pb_backend_memory(const pb_comm_ops_t *comm, pb_memory_t asked, pb_memory_t *out,
                      pb_err_t *err);
unsigned pb_backend_caps(const pb_comm_ops_t *comm, pb_memory_t memory);

/* Registry (pb_backend_registry.c): every communication side built into
 * this binary, in "--backend auto" order. */
const pb_comm_ops_t *pb_backend_find(const char *name);
int pb_backend_count(void);
const pb_comm_ops_t *pb_backend_at(int i);

#endif
