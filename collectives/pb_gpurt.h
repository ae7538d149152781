/* pb_gpurt.h - the GPU runtime a device backend drives, as one table:
 * CUDA (cudart, linked as before: pb_gpurt_cuda.c) or HIP (libamdhip64,
 * opened at run time: pb_gpurt_hip.c).
 *
 * Why a table: RCCL has NCCL's API, so the NCCL-API backend, the device
 * memory side, the rank-to-GPU binding and the GEMM probe are one source
 * for both vendors once every runtime call they make goes through here.
 * Handles (streams, events, graphs) are `void *` and codes are the
 * runtime's own ints (0 = success in both), explained by err_string, so
 * that no caller includes a vendor header.
 *
 * Why HIP is opened and not linked (doc/design.md, "AMD GPUs"): ROCm 6
 * renamed the library (libamdhip64.so.6; Debian 12 packages .so.5), so a
 * linked binary would not start on most AMD clusters, nor on a machine
 * without ROCm, where its MPI backend must still run.  Kernels are then
 * code objects loaded with hipModuleLoadData (pb_hip_kernels.h), not
 * hipcc's fat binaries, which need the runtime at link time.
 *
 * Every operation takes the table first: HIP's entry points live in its
 * opened instance, CUDA's wrappers ignore it. */
#ifndef PB_GPURT_H
#define PB_GPURT_H

#include <stddef.h>
#include <stdint.h>

#include "pb_check.h"
#include "../core/pb_dtype.h"

typedef enum pb_gpu_vendor { PB_GPU_NVIDIA, PB_GPU_AMD } pb_gpu_vendor_t;

/* One device as the runtime describes it. */
typedef struct pb_gpu_props {
    char name[256];     /* "NVIDIA H200", "AMD Instinct MI300X" */
    char arch[64];      /* "sm_90", "gfx942" (gcnArchName before its ':' features) */
    char bus_id[32];    /* "0000:18:00.0" */
    uint64_t total_mem; /* bytes */
    int units;          /* SMs (NVIDIA) or compute units (AMD) */
    int cc_major, cc_minor; /* CUDA compute capability; 0 on AMD */
} pb_gpu_props_t;

typedef struct pb_gpurt pb_gpurt_t;

struct pb_gpurt {
    const char *name; /* "cuda", "hip": the memory side's name too */
    const char *api;  /* "CUDA", "HIP": for messages */
    pb_gpu_vendor_t vendor;
    int not_ready;    /* the "still pending" code of queries (600 in both) */
    char path[512];   /* the library file opened (HIP), "" when linked */
    void *lib;        /* dlopen handle (HIP); NULL for CUDA */
    void *priv;       /* the implementation's state: HIP's entry points, kernels */

    const char *(*err_string)(const pb_gpurt_t *rt, int rc);
    int (*get_last_error)(const pb_gpurt_t *rt); /* reads and clears the slot */
    int (*driver_version)(const pb_gpurt_t *rt, int *v);
    int (*runtime_version)(const pb_gpurt_t *rt, int *v);

    /* devices */
    int (*device_count)(const pb_gpurt_t *rt, int *n);
    int (*set_device)(const pb_gpurt_t *rt, int dev);
    int (*get_device)(const pb_gpurt_t *rt, int *dev);
    int (*props)(const pb_gpurt_t *rt, int dev, pb_gpu_props_t *out);
    int (*bus_id)(const pb_gpurt_t *rt, int dev, char *buf, int len);
    int (*device_sync)(const pb_gpurt_t *rt);
    int (*mem_info)(const pb_gpurt_t *rt, size_t *free_b, size_t *total_b);

    /* memory: device, and host memory mapped into the device (the stall's
     * release flag) */
    int (*malloc)(const pb_gpurt_t *rt, void **p, size_t bytes);
    int (*free)(const pb_gpurt_t *rt, void *p);
    int (*host_alloc_mapped)(const pb_gpurt_t *rt, void **host, size_t bytes);
    int (*host_free)(const pb_gpurt_t *rt, void *host);
    int (*host_dev_ptr)(const pb_gpurt_t *rt, void **dev, void *host);
    int (*memcpy)(const pb_gpurt_t *rt, void *dst, const void *src, size_t bytes); /* any kind */
    int (*memcpy_async)(const pb_gpurt_t *rt, void *dst, const void *src, size_t bytes,
                        void *stream);
    int (*memset_async)(const pb_gpurt_t *rt, void *p, int v, size_t bytes, void *stream);

    /* streams (non-blocking with respect to the legacy stream), events
     * (timing ones), graphs (thread-local capture) */
    int (*stream_create)(const pb_gpurt_t *rt, void **s);
    int (*stream_destroy)(const pb_gpurt_t *rt, void *s);
    int (*stream_sync)(const pb_gpurt_t *rt, void *s);
    int (*stream_query)(const pb_gpurt_t *rt, void *s);
    int (*event_create)(const pb_gpurt_t *rt, void **e);
    int (*event_destroy)(const pb_gpurt_t *rt, void *e);
    int (*event_record)(const pb_gpurt_t *rt, void *e, void *s);
    int (*event_query)(const pb_gpurt_t *rt, void *e);
    int (*event_sync)(const pb_gpurt_t *rt, void *e);
    int (*event_elapsed_ms)(const pb_gpurt_t *rt, float *ms, void *from, void *to);
    int (*capture_begin)(const pb_gpurt_t *rt, void *s);
    int (*capture_end)(const pb_gpurt_t *rt, void *s, void **graph);
    int (*graph_instantiate)(const pb_gpurt_t *rt, void **exec, void *graph);
    int (*graph_launch)(const pb_gpurt_t *rt, void *exec, void *s);
    int (*graph_destroy)(const pb_gpurt_t *rt, void *graph);
    int (*graph_exec_destroy)(const pb_gpurt_t *rt, void *exec);

    /* the kernels of pb_cuda_kernels.h / pb_hip_kernels.h, same contracts */
    int (*fill)(const pb_gpurt_t *rt, void *buf, uint64_t count, pb_dtype_t t, uint64_t base,
                uint64_t q, void *stream);
    int (*fill_red)(const pb_gpurt_t *rt, void *buf, uint64_t count, pb_dtype_t t,
                    pb_redparams_t p, int rank, uint64_t first_global, void *stream);
    int (*check)(const pb_gpurt_t *rt, const void *buf, uint64_t count, pb_dtype_t t,
                 const pb_expect_t *e, unsigned long long *counter, void *stream);
    int (*stall)(const pb_gpurt_t *rt, double seconds, void *stream, const volatile int *release);
    int (*busy)(const pb_gpurt_t *rt, double seconds, void *stream, uint64_t *wave_cache);
};

/* CUDA builds: the linked runtime (always succeeds; a missing device is
 * device_count's answer). */
int pb_gpurt_cuda_open(pb_gpurt_t *out, char *why, size_t len);

/* HIP builds: where the kernel's KFD topology lists an AMD GPU (else -1
 * and "no AMD GPU: ...", the library never loaded), opens libamdhip64
 * (PARBENCH_HIP_LIB=PATH, else libamdhip64.so.6, .so.5, .so on the
 * loader's path) and resolves every entry point; the kernels are loaded
 * at first use on the device the rank binds (pb_gpu_mem.c).  0 with *out
 * filled, else -1 with one line in `why` naming the missing GPU, file or
 * symbol; nothing stays open then. */
int pb_gpurt_hip_open(pb_gpurt_t *out, char *why, size_t len);

/* Releases what open took (no-op on a zeroed table). */
void pb_gpurt_close(pb_gpurt_t *rt);

#endif
