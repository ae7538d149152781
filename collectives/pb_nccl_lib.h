/* pb_nccl_lib.h - libnccl, or RCCL's librccl, opened at run time
 * (dlopen), never linked.  RCCL has NCCL's API (its src/nccl.h.in
 * declares the same names with the same values), so one table serves
 * both; a vendor (pb_nccl_vendor_t) says which file is looked for.
 *
 * parbench compiles against nccl.h for its types and enums only.  The
 * library is looked for when the nccl backend is asked for, so a binary
 * built with NCCL still starts, and its MPI backend still runs, on a
 * machine without libnccl.so.2; and one binary can run with the NCCL a
 * PyTorch environment brings.  Every entry point the backend calls is a
 * member of pb_nccl_lib_t, resolved with dlsym and checked when the
 * library is opened, so a library without one is refused by name before
 * any call instead of failing in the middle of a run.
 *
 * Where the library is looked for, first found wins:
 *   1. --nccl-lib PATH           (that file only)
 *   2. PARBENCH_NCCL_LIB=PATH    (that file only)
 *   3. libnccl.so.2 on the loader's path (LD_LIBRARY_PATH, ld.so.cache,
 *      the binary's RUNPATH)
 *   4. an active Python environment's: under $VIRTUAL_ENV, then under
 *      $CONDA_PREFIX, lib/python3.X/site-packages/nvidia/nccl/lib/
 *      libnccl.so.2 (the nvidia-nccl-cuXX wheel PyTorch installs)
 * A named file (1, 2) is never replaced by a library found elsewhere: a
 * run must measure the library it was told to.
 *
 * RCCL (the rccl backend): 1. --nccl-lib PATH (the same option names
 * either library), 2. PARBENCH_RCCL_LIB=PATH, 3. librccl.so.1 on the
 * loader's path, 4. $ROCM_PATH/lib/librccl.so.1, 5. /opt/rocm/lib/
 * librccl.so.1 (ROCm's default prefix, which ROCm does not put on the
 * loader's path).  No Python environment is searched: no pip wheel of
 * RCCL alone exists, and PyTorch's ROCm wheels copy ROCm's libraries
 * into torch/lib under names their wheel repair picks (pytorch/pytorch
 * #191450 shows torch/lib/librocm_smi64.so, unversioned): librccl's
 * name there is not confirmed. */
#ifndef PB_NCCL_LIB_H
#define PB_NCCL_LIB_H

#include <stddef.h>

/* The NCCL API's types and enums: nccl.h, or in a build with HIP and
 * without CUDA, RCCL's rccl.h (the same names; CMakeLists.txt picks). */
#ifdef PARBENCH_NCCL_FROM_RCCL_H
#include <rccl/rccl.h>
#else
#include <nccl.h>
#endif

/* The name the loader is asked for (3), and the file of a Python
 * environment (4), below ENV/lib/python3.X/site-packages. */
#define PB_NCCL_SONAME "libnccl.so.2"
#define PB_NCCL_PY_LIB "nvidia/nccl/lib/" PB_NCCL_SONAME
#define PB_NCCL_ENV "PARBENCH_NCCL_LIB"

/* Where a candidate comes from, in search order. */
typedef enum pb_nccl_from {
    PB_NCCL_FROM_OPTION, /* --nccl-lib */
    PB_NCCL_FROM_ENV,    /* PARBENCH_NCCL_LIB */
    PB_NCCL_FROM_LOADER, /* libnccl.so.2 on the loader's path */
    PB_NCCL_FROM_VENV,   /* $VIRTUAL_ENV's site-packages (a glob pattern) */
    PB_NCCL_FROM_CONDA,  /* $CONDA_PREFIX's site-packages (a glob pattern) */
    PB_NCCL_FROM_ROCM    /* $ROCM_PATH/lib or /opt/rocm/lib (RCCL) */
} pb_nccl_from_t;

/* Which library of the NCCL API: NCCL (nvidia) or RCCL (amd). */
typedef struct pb_nccl_vendor {
    const char *lib_name; /* "NCCL", "RCCL": for messages */
    const char *backend;  /* "nccl", "rccl" */
    const char *soname;   /* the name the loader is asked for */
    const char *env;      /* the variable naming a file */
    const char *py_lib;   /* the file below site-packages; NULL: none */
    const char *alltoall; /* the optional all-to-all's symbol */
    int alltoall_minor;   /* the 2.x it needs (0: any version) */
    int rocm;             /* 1: look under $ROCM_PATH/lib and /opt/rocm/lib */
} pb_nccl_vendor_t;

/* ncclAlltoAll from NCCL 2.28; RCCL's older ncclAllToAll (same
 * arguments: rccl src/nccl.h.in) in any version */
extern const pb_nccl_vendor_t pb_nccl_vendor_nvidia;
extern const pb_nccl_vendor_t pb_nccl_vendor_amd;

/* Every entry point the nccl backend calls.  Streams are the runtime's
 * (cudaStream_t or hipStream_t) as void *: both are one pointer, and the
 * table serves either library.  Required, up to CommSplit
 * (2.18, the oldest library parbench drives: pb_nccl_ver.h); AlltoAll
 * (2.28) is NULL in an older library, which the backend replaces by
 * grouped send/receive.  Named as NCCL names them, without "nccl". */
typedef struct pb_nccl_lib {
    void *handle;        /* dlopen's; NULL when closed */
    char path[512];      /* the file loaded, as the loader resolved it */
    int version;         /* GetVersion()'s code */
    pb_nccl_from_t from; /* how it was found */
    ncclResult_t (*GetVersion)(int *version);
    const char *(*GetErrorString)(ncclResult_t result);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *id);
    ncclResult_t (*CommInitRank)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
    ncclResult_t (*CommSplit)(ncclComm_t comm, int color, int key, ncclComm_t *out,
                              ncclConfig_t *config);
    ncclResult_t (*CommDestroy)(ncclComm_t comm);
    ncclResult_t (*CommAbort)(ncclComm_t comm);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t comm, ncclResult_t *async_error);
    ncclResult_t (*CommCount)(const ncclComm_t comm, int *count);
    ncclResult_t (*CommUserRank)(const ncclComm_t comm, int *rank);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    ncclResult_t (*AllReduce)(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op,
                              ncclComm_t comm, void *stream);
    ncclResult_t (*AllGather)(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t comm,
                              void *stream);
    ncclResult_t (*ReduceScatter)(const void *s, void *r, size_t n, ncclDataType_t t,
                                  ncclRedOp_t op, ncclComm_t comm, void *stream);
    ncclResult_t (*Reduce)(const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op,
                           int root, ncclComm_t comm, void *stream);
    ncclResult_t (*Broadcast)(const void *s, void *r, size_t n, ncclDataType_t t, int root,
                              ncclComm_t comm, void *stream);
    ncclResult_t (*Send)(const void *s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
                         void *stream);
    ncclResult_t (*Recv)(void *r, size_t n, ncclDataType_t t, int peer, ncclComm_t comm,
                         void *stream);
    /* optional */
    ncclResult_t (*AlltoAll)(const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t comm,
                             void *stream);
} pb_nccl_lib_t;

/* NCCL: the loader's, a virtualenv's, conda's; RCCL: the loader's,
 * $ROCM_PATH's and /opt/rocm's (a named file is the only candidate) */
#define PB_NCCL_MAX_CANDIDATES 5

typedef struct pb_nccl_candidate {
    pb_nccl_from_t from;
    char name[512]; /* a path, the loader's name, or a glob(3) pattern */
} pb_nccl_candidate_t;

/* The candidates of vendor `v` in search order for these values of
 * --nccl-lib, the vendor's variable (PARBENCH_NCCL_LIB, PARBENCH_RCCL_LIB),
 * VIRTUAL_ENV, CONDA_PREFIX and, for RCCL, ROCM_PATH (each NULL or ""
 * when unset; `rocm` read only when v->rocm).  Pure: no file is looked
 * at.  Returns how many (1 to PB_NCCL_MAX_CANDIDATES) were written to
 * out, -1 for a path that does not fit. */
int pb_nccl_lib_candidates(const pb_nccl_vendor_t *v, const char *option, const char *env_lib,
                           const char *venv, const char *conda, const char *rocm,
                           pb_nccl_candidate_t out[PB_NCCL_MAX_CANDIDATES]);

/* Where a candidate came from, for messages: "--nccl-lib", ... */
const char *pb_nccl_from_name(pb_nccl_from_t from);

/* Opens vendor v's first candidate that loads (explicit_path:
 * --nccl-lib, or NULL; the environment is read here), resolves every
 * entry point and checks the version (2.18 or newer).  0 with *out
 * filled, else -1 with one line in `why` naming the file, the missing
 * symbol or the version; nothing stays open then. */
int pb_nccl_lib_open(const pb_nccl_vendor_t *v, const char *explicit_path, pb_nccl_lib_t *out,
                     char *why, size_t len);

/* Releases the handle (no-op on a closed or zeroed one). */
void pb_nccl_lib_close(pb_nccl_lib_t *lib);

#endif
