/* pb_prof_rec.h - what parbench's NCCL profiler plugin writes: one file
 * per communicator rank and process, a header then fixed-size records, in the
 * writing machine's byte order (the reader is parbench on the same kind
 * of machine; the header's magic tells a foreign order apart).
 *
 * Times are nanoseconds: CPU times on CLOCK_REALTIME, so that ranks on
 * different nodes (NTP- or PTP-synchronised) can be joined; GPU times
 * are the kernel's globaltimer (NCCL's pTimer), 0 where NCCL gave none
 * (profiler API v3, or no kernel channel event seen). */
#ifndef PB_PROF_REC_H
#define PB_PROF_REC_H

#include <stddef.h>
#include <stdint.h>

#define PB_PROF_MAGIC "PBPROF01" /* 8 bytes, no NUL */
#define PB_PROF_VERSION 3 /* 2: world_rank, world_size; 3: device */

typedef struct pb_prof_head {
    char magic[8];
    uint32_t version;
    uint32_t rec_size;  /* sizeof(pb_prof_rec_t) */
    uint64_t comm_id;   /* NCCL's commId (v5) or commHash (v3, v4) */
    /* -1 where the API gave none: v3 gives none at init; its rank is
     * taken from the first operation's descriptor (written at close) */
    int32_t nranks, nnodes, rank;
    int32_t pid;
    int32_t api;        /* the profiler API version NCCL loaded: 3, 4 or 5 */
    uint32_t every;     /* one operation in `every` recorded (sampling) */
    uint64_t t0_ns;     /* CLOCK_REALTIME when the file was opened */
    char comm_name[64]; /* NCCL's commName (may be empty) */
    char host[64];
    /* The process's rank and size in the job as its launcher exported
     * them (RANK/WORLD_SIZE from torchrun, OMPI_COMM_WORLD_*, PMIX_RANK,
     * SLURM_PROCID/SLURM_NTASKS, PMI_*): how `parbench profile` names a
     * communicator's members by global rank; -1 where none was set. */
    int32_t world_rank, world_size;
    /* The CUDA device (the process's ordinal) current when NCCL
     * initialised the communicator - its rank's GPU: a process holding
     * several ranks (one thread per GPU, nccl-tests -g N, single-process
     * multi-GPU PyTorch) writes each rank's files with its own device, so
     * that `parbench profile` can tell its ranks apart; -1 where no CUDA
     * driver was loaded or no context current (and in format 2 files,
     * whose bytes here were padding). */
    int32_t device;
    uint8_t pad[60];
} pb_prof_head_t;

enum {
    PB_PROF_REC_COLL = 1,
    PB_PROF_REC_P2P = 2,
    PB_PROF_REC_END = 3 /* the last record: counts (seq: records written, count: dropped) */
};

typedef struct pb_prof_rec {
    uint32_t kind;
    int32_t peer;        /* coll: root; p2p: peer (communicator ranks) */
    uint64_t seq;        /* coll: NCCL's seqNumber; p2p: this plugin's count */
    uint64_t count;      /* elements */
    uint64_t t_enq0, t_enq1; /* CPU: the operation's enqueue began, ended */
    uint64_t t_k0, t_k1;     /* CPU: its first kernel channel seen started, last stopped */
    uint64_t g0, g1;         /* GPU globaltimer: first channel start, last channel stop */
    uint8_t nchannels, nwarps, nkch, pad;
    char func[16];       /* "AllReduce", "Send", ... as NCCL names them */
    char dtype[16];      /* "ncclFloat32", ... */
    char algo[12];       /* "RING", "TREE", ... ("" for p2p) */
    char proto[8];       /* "SIMPLE", "LL", "LL128" */
} pb_prof_rec_t;

/* The file of one communicator rank in one process:
 * DIR/parbench-prof-HOST-PID-COMMID-rRANK.bin (COMMID: 16 hex digits;
 * no -rRANK where the rank is not known at open, API v3), and its
 * clash'th alternative DIR/parbench-prof-HOST-PID-COMMID-rRANK-CLASH.bin
 * when that name is taken (the plugin never overwrites a file).  What
 * snprintf returns. */
int pb_prof_path_rank(char *buf, size_t len, const char *dir, const char *host, int pid,
                      uint64_t comm_id, int rank, int clash);
/* The first name of a file whose rank is not known: pb_prof_path_rank
 * with rank -1 and clash 0. */
int pb_prof_path(char *buf, size_t len, const char *dir, const char *host, int pid,
                 uint64_t comm_id);

_Static_assert(sizeof(pb_prof_head_t) == 256, "the header is 256 bytes");
_Static_assert(sizeof(pb_prof_rec_t) == 128, "a record is 128 bytes");
/* tests/gpu/bundle/run-lib.sh reads the device at this offset */
_Static_assert(offsetof(pb_prof_head_t, device) == 192, "the device is at byte 192");

#endif
