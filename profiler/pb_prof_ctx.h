/* pb_prof_ctx.h - one communicator's profiling state in parbench's NCCL
 * profiler plugin: its file, the operations in flight, one record ring
 * per thread that finishes operations, and the writer thread that moves
 * the rings' records to the file.  NCCL hands the context back on every
 * call (init returns it), so nothing here is global.
 *
 * Settings, read from the environment at init:
 *   PARBENCH_PROFILE_DIR    where the files go (default parbench-profile,
 *                           created if missing);
 *   PARBENCH_PROFILE_EVERY  record one operation in N (default 1);
 *   PARBENCH_PROFILE_RING   records a thread's ring holds (default 4096,
 *                           512 KiB);
 * and PARBENCH_PROFILE_SIGNAL (pb_prof_plugin.c) turns recording of new
 * operations off and on.  A failure (no directory, a write that fails) is
 * logged once and turns this context off; the job goes on. */
#ifndef PB_PROF_CTX_H
#define PB_PROF_CTX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "pb_prof_api.h"
#include "pb_prof_rec.h"
#include "pb_prof_ring.h"

#define PB_PROF_SLOTS 2048  /* operations in flight at once, per communicator */
#define PB_PROF_THREADS 64  /* threads that finish operations, per communicator */
/* A slot's alignment: an operation's handle is its slot's address with
 * the low bits of the slot's generation in the bits this leaves free
 * (pb_prof_events.h) */
#define PB_PROF_OP_ALIGN 256

struct pb_prof_ctx;

/* An operation in flight: the record being filled, and a count of what
 * still holds it: its own enqueue (start to stop), each kernel channel
 * between its start and stop, and - where NCCL says how many channels it
 * runs on (API v4+) - its completion, released when that many channels
 * have stopped (as NCCL's Inspector plugin decides completion).  The
 * count shares one word with the slot's generation (how many operations
 * it has held), so that a kernel channel joins its operation only while
 * that very operation still holds the slot: one compare-and-swap checks
 * both. */
typedef struct pb_prof_op {
    _Alignas(PB_PROF_OP_ALIGN) _Atomic int used; /* 0: the slot is free */
    _Atomic uint64_t hold;  /* generation << 32 | holders (0: complete) */
    struct pb_prof_ctx *ctx;
    pb_prof_rec_t rec;
    _Atomic uint64_t k0, k1, g0, g1; /* min / max over its kernel channels */
    _Atomic uint32_t nkch, kdone;    /* channels started, stopped */
    uint32_t nexpect;                /* channels to wait for (0: none) */
} pb_prof_op_t;

typedef struct pb_prof_ctx {
    pb_prof_head_t head;
    char path[768];
    int fd;
    pb_nccl_logger_t log;
    const _Atomic int *paused;  /* the plugin's signal switch (NULL: none) */
    _Atomic int active;         /* 0 once a failure turned it off */
    _Atomic int failed_logged;
    uint32_t every;
    _Atomic uint64_t nops;      /* operations seen (for sampling) */
    _Atomic uint64_t p2p_seq;
    _Atomic int comm_set;       /* v3: the communicator taken from an operation */
    _Atomic int op_rank;        /* v3: this rank, from that operation (-1: none); the
                                   header takes it at close, as NCCL's threads read head.rank */
    size_t ring_cap;
    pb_prof_op_t *slot;         /* PB_PROF_SLOTS, PB_PROF_OP_ALIGN-aligned */
    _Atomic uint32_t next_slot;
    _Atomic uint64_t slot_full; /* operations not recorded: no free slot */
    pthread_key_t key;          /* this thread's ring */
    _Atomic(pb_prof_ring_t *) ring[PB_PROF_THREADS]; /* NULL until its thread made it */
    _Atomic int nrings;
    _Atomic uint64_t no_ring;   /* records lost: more threads than rings */
    pthread_t writer;
    int writer_up;
    _Atomic int stop;
    uint64_t written;           /* records in the file (the writer's) */
} pb_prof_ctx_t;

/* The context of a communicator: settings from the environment, the file
 * created (a new one, never an existing one: pb_prof_rec.h names it) and
 * its header written, the writer thread started.  comm_id,
 * name, nnodes, nranks, rank as NCCL gave them (-1 / NULL where the API
 * version gives none: comm_id, name and rank are then taken from the
 * first operation); the device, the calling thread's current CUDA
 * device (pb_prof_dev.h).
 * NULL after logging why (the plugin then tells NCCL it is off). */
pb_prof_ctx_t *pb_prof_ctx_open(int api, uint64_t comm_id, const char *name, int nnodes,
                                int nranks, int rank, pb_nccl_logger_t log,
                                const _Atomic int *paused);
/* Stops the writer, writes what is left and the end record, closes.  An
 * operation still in flight (a kernel channel NCCL never stopped) is
 * counted in the end record's dropped operations. */
void pb_prof_ctx_close(pb_prof_ctx_t *c);

/* Logs once per context (NCCL's logger, else stderr) and turns it off. */
void pb_prof_ctx_fail(pb_prof_ctx_t *c, const char *what, int err);

/* The calling thread's ring (made on first use); NULL when none is left. */
pb_prof_ring_t *pb_prof_ctx_ring(pb_prof_ctx_t *c);

/* Moves every ring's records to the file; 0, or -1 after a failed write
 * (the context is then off).  The writer thread calls it. */
int pb_prof_ctx_drain(pb_prof_ctx_t *c);

/* CLOCK_REALTIME in nanoseconds. */
uint64_t pb_prof_now(void);

#endif
