/* pb_mem_ops.h - the memory side of a backend: where a rank's buffers
 * live, how they are filled and checked, and the compute stand-in that
 * runs where they live.
 *
 * Two implementations: host memory and the CPU (pb_host_mem.c), CUDA
 * device memory and the GPU (pb_cuda_mem.c, CUDA builds).  Any
 * communication side that moves a kind of memory is composed with that
 * kind's side (pb_backend_open), so a new library writes no memory code.
 *
 * Why `busy` is here and not on the communication side: the stand-in for
 * a layer's GEMMs runs on the engine that owns the buffers - the CPU for
 * host memory, the GPU for device memory - and, like fill and check, it
 * is ordered on the group's stream where there is one.  The one thing it
 * needs from the communication side is progress() (a host MPI moves
 * non-blocking operations only while the process calls into it), which
 * is a communication operation and is called as one.
 *
 * Data operations take the group so that device work is ordered on the
 * group's stream (comm->stream(g)); where the communication side has no
 * stream, device work completes before the call returns. */
#ifndef PB_MEM_OPS_H
#define PB_MEM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "pb_check.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

typedef struct pb_backend pb_backend_t;
typedef struct pb_group pb_group_t;
typedef struct pb_mem_ops pb_mem_ops_t;

typedef enum pb_memory { PB_MEM_HOST, PB_MEM_DEVICE } pb_memory_t;

struct pb_mem_ops {
    const char *name; /* "host", "cuda" */
    /* PB_CAP_DEVICE_MEM, PB_CAP_BUSY (pb_backend.h) */
    unsigned caps;

    /* After the communication side's init, which has bound the rank to
     * its device; state goes in be->mem_priv. */
    int (*init)(pb_backend_t *be, pb_err_t *err);
    void (*finalize)(pb_backend_t *be);

    /* Buffers, page aligned; never NULL on success, also for 0 bytes. */
    int (*alloc)(pb_backend_t *be, uint64_t bytes, void **ptr, pb_err_t *err);
    void (*free)(pb_backend_t *be, void *ptr);
    /* Blocking copy between two buffers of this side (the MPI side packs
     * reduce-scatter pieces and moves in-place results with it). */
    int (*copy)(pb_backend_t *be, void *dst, const void *src, uint64_t bytes, pb_err_t *err);
    /* Memory free where the buffers go, in bytes, so that a size that
     * cannot fit is refused before allocating.  *per_node: the amount is
     * shared by all ranks of the node (host memory), else it is this
     * rank's own (its GPU).  Returns 0 when unknown. */
    int (*mem_available)(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                         size_t len);
    /* One line about this rank's device, e.g. "GPU 0 NVIDIA H200
     * 0000:18:00.0 (sm_90, 140 GiB)"; empty for host memory. */
    void (*device_info)(pb_backend_t *be, char *buf, size_t len);

    /* Data: fill with the pattern (base + j) mod q, fill as rank `rank`'s
     * input of a reduction, and count elements differing from `e` (check
     * completes before returning).  The device side does all three on
     * the device, so only a count crosses the bus. */
    int (*fill)(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                uint64_t q, pb_err_t *err);
    int (*fill_red)(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t,
                    pb_redparams_t p, int rank, uint64_t first_global, pb_err_t *err);
    int (*check)(pb_group_t *g, const void *buf, uint64_t count, pb_dtype_t t,
                 const pb_expect_t *e, uint64_t *wrong, pb_err_t *err);
    /* Set every byte to 0xff: NaN in every float type, -1 in every
     * integer type, never a value verification expects. */
    int (*poison)(pb_group_t *g, void *buf, uint64_t bytes, pb_err_t *err);
    /* Overwrite one element (fault injection: a corrupted transfer);
     * completes before returning. */
    int (*poke)(pb_group_t *g, void *buf, uint64_t index, pb_dtype_t t, uint64_t value,
                pb_err_t *err);

    /* PB_CAP_BUSY.  Keep this rank's compute engine busy for `seconds`,
     * the stand-in for a layer's GEMMs.  Host: the core spins, calling the
     * communication side's progress() meanwhile.  Device: a kernel on g's
     * stream shaped like a GEMM - waves of short blocks over every SM - so
     * that communication kernels on other streams share the SMs as they
     * do with real GEMMs; returns once issued (sync(g) waits for it), or
     * once done where the group has no stream. */
    int (*busy)(pb_group_t *g, double seconds, pb_err_t *err);
};

/* The memory sides (pb_cuda_mem_ops: CUDA builds only; pb_hip_mem_ops:
 * HIP builds only; both in pb_gpu_mem.c). */
extern const pb_mem_ops_t pb_host_mem_ops;
extern const pb_mem_ops_t pb_cuda_mem_ops;
extern const pb_mem_ops_t pb_hip_mem_ops;

#endif
