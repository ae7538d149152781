/* pb_jobprof.h - a real job's communication as it was recorded: the
 * communicators (by their members' global ranks) and every operation each
 * rank issued on them, whatever recorded it (parbench's NCCL profiler
 * plugin, a PyTorch profiler trace, or the ops CSV `parbench profile
 * --csv` and `parbench import` write).  `parbench profile` analyses it,
 * `parbench replay` runs it again.
 *
 * Pure data and file reading: no MPI, no CUDA.  Sizes follow nccl-tests'
 * convention (core/pb_coll.h) whatever the recorder counted: NCCL's and
 * PyTorch's all-gather count is the per-rank send count and their
 * reduce-scatter count the per-rank receive count; pb_jp_bytes turns
 * either into the size parbench measures. */
#ifndef PB_JOBPROF_H
#define PB_JOBPROF_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

#define PB_JP_NAME 64
/* The most ranks a recorded job or communicator may have: 2^20, ten times
 * the largest training jobs reported (about 100,000 GPUs).  A rank or a
 * size past it is a damaged file, refused before anything is sized by it
 * (a header claiming rank 2e7 would otherwise size every per-rank table). */
#define PB_JP_MAX_RANKS (1 << 20)

/* What a communicator is in the layout (pb_jp_infer). */
typedef enum pb_jdim {
    PB_JD_UNKNOWN,
    PB_JD_TP,
    PB_JD_CP,
    PB_JD_DP,
    PB_JD_PP,
    PB_JD_EP,
    PB_JD_EDP,
    PB_JD_WORLD,
    PB_JD_OTHER, /* a known Megatron group of no single dimension (tp-dp, model-parallel, ...) */
    PB_JD_COUNT
} pb_jdim_t;

typedef struct pb_jcomm {
    uint64_t id;              /* NCCL's commId/commHash; a process group's name hashed */
    char name[PB_JP_NAME];    /* NCCL's commName or the process group's name ("" none) */
    int nranks;               /* members */
    int *members;             /* global rank of each communicator rank; -1 not known */
    int nnodes;               /* 0 not known */
    pb_jdim_t dim;            /* PB_JD_UNKNOWN until pb_jp_infer */
} pb_jcomm_t;

typedef enum pb_jkind { PB_JK_COLL, PB_JK_SEND, PB_JK_RECV } pb_jkind_t;

typedef struct pb_jop {
    int rank;                 /* the global rank that issued it */
    int comm;                 /* index into pb_jobprof_t.comms */
    pb_jkind_t kind;
    int known;                /* coll and dtype are parbench's (else func/dtype_name only) */
    pb_coll_t coll;           /* PB_SENDRECV for send and receive */
    pb_dtype_t dtype;
    char func[32];            /* as the recorder named it: "AllReduce", "_reduce_scatter_base" */
    char dtype_name[16];      /* as the recorder named it */
    uint64_t count;           /* elements as the library was given them */
    uint64_t bytes;           /* nccl-tests' size (pb_jp_bytes); 0 not known */
    int peer;                 /* root (rooted collectives) or peer (p2p), communicator rank; -1 */
    uint64_t seq;             /* the operation's number on its communicator, from 0, as this
                               * rank issued them (for NCCL collectives: NCCL's seqNumber) */
    int64_t t_issue_ns;       /* CPU time the job called it (CLOCK_REALTIME ns; 0 not known) */
    int64_t t_start_ns;       /* CPU time it began running (first kernel channel; 0 not known) */
    int64_t t_end_ns;         /* CPU time it ended (last channel stopped; 0 not known) */
    int64_t gpu_ns;           /* GPU-timed duration (pTimer); -1 not known */
    char algo[12], proto[8];  /* NCCL's choice ("" not known) */
    int nchannels;            /* 0 not known */
} pb_jop_t;

typedef struct pb_jobprof {
    pb_jcomm_t *comms;
    size_t ncomms, comms_cap;
    pb_jop_t *ops;
    size_t nops, ops_cap;
    int world;                /* ranks in the job (0 not known) */
    char source[32];          /* "nccl-plugin", "pytorch", "csv" */
    uint64_t dropped;         /* operations the recorder dropped (plugin ring full) or
                               * could not describe (a trace's gloo operation of no known group) */
    int every;                /* one operation in `every` was recorded (sampling) */
    int ranks_guessed;        /* 1: global ranks were not recorded and were assigned */
    uint64_t impossible;      /* records left out because they end before they start (a
                               * clock stepped back, a damaged file) */
    uint64_t truncated;       /* files that end inside a record (a job killed mid-write) */
} pb_jobprof_t;

void pb_jobprof_init(pb_jobprof_t *jp);
void pb_jobprof_free(pb_jobprof_t *jp);

/* The communicator with id `id`, added (members all -1, nranks of them)
 * when not there yet; its index, or -1 with err set (out of memory, or an
 * id seen with another nranks). */
int pb_jp_comm(pb_jobprof_t *jp, uint64_t id, const char *name, int nranks, pb_err_t *err);
/* Appends a copy of op; PB_OK or the error. */
int pb_jp_add_op(pb_jobprof_t *jp, const pb_jop_t *op, pb_err_t *err);

/* A recorder's function name ("AllReduce", "allreduce", "all_reduce",
 * "_allgather_base", "reduce_scatter_tensor", "Send", "recv", ...) as a
 * kind and a parbench collective; 0 ok, -1 a function parbench does not
 * measure (Barrier, Gather, Scatter: kept in func, known = 0). */
int pb_jp_func(const char *name, pb_jkind_t *kind, pb_coll_t *coll);
/* A recorder's type name ("ncclFloat32", "ncclBfloat16", "Float",
 * "BFloat16", "c10::Half", "float", "bf16", ...); 0 ok, -1 unknown. */
int pb_jp_dtype(const char *name, pb_dtype_t *out);
/* nccl-tests' size of an operation given as the library counts it (count
 * elements of esize bytes on an n-rank communicator): all-gather and
 * reduce-scatter count * n * esize, every other count * esize. */
uint64_t pb_jp_bytes(pb_coll_t coll, int n, size_t esize, uint64_t count);
const char *pb_jdim_name(pb_jdim_t d); /* "tp", ..., "world", "other", "unknown" */

/* Reads every path (a file, or a directory: its parbench-prof-*.bin,
 * *.json and *.csv files, sorted by name) into jp: plugin record files
 * (the header's magic), PyTorch profiler traces (JSON with traceEvents)
 * and parbench's ops CSV, told apart by content.  Bad input: PB_EINPUT
 * naming the file and why. */
int pb_jp_load(const char *const *paths, size_t npaths, pb_jobprof_t *jp, pb_err_t *err);

#endif
