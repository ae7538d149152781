/* pb_replay_plan.h - a recorded job (jobprof/pb_jobprof.h) as the
 * operations `parbench replay` runs again: each collective once for all
 * its members, each send matched with its receive, all of them in one
 * order that every rank computes alike from the same records.  Pure: no
 * MPI; the ranks run it (run/pb_replay_run.h).
 *
 * Why one order for the whole job.  A rank's own recorded order cannot
 * be replayed as it stands: NCCL issues asynchronously, so rank A may have
 * issued its TP all-reduce before its DP reduce-scatter while rank B, in
 * the same group of both, issued them the other way round; replayed with
 * blocking calls (MPI, or NCCL waited on after each), A would wait in TP
 * for B, and B in DP for A.  Instead every operation of the job - a
 * collective instance, or a send together with its receive - is one unit,
 * and the units are sorted by one key that every rank computes from the
 * same data: (the median over the unit's records of the recorded start,
 * communicator, sequence number, ..., building order).  Each rank runs
 * the units it takes part in, in that order.  No order restricted to each
 * rank can deadlock: take the first unit, in the total order, that has not
 * completed; every unit before it has, so each of its members has finished
 * everything it takes part in before it and is waiting in it; so it
 * completes, and by induction every unit does.  A send and its receive are
 * one unit for the same reason: replayed apart, the sender's send could be
 * ordered after something the receiver does only once it has received.
 *
 * Matching.  A collective instance is jobprof/pb_jp_inst.h's: the records
 * of one communicator, function and sequence number.  A member whose
 * record is missing (dropped, sampled out) still takes part: the
 * collective ran on every member.  The n-th send from
 * communicator rank s to d matches the n-th receive at d from s, each
 * side in its recorded order. */
#ifndef PB_REPLAY_PLAN_H
#define PB_REPLAY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../../jobprof/pb_jobprof.h"

/* Why a record is not replayed. */
typedef enum pb_rp_skip {
    PB_RP_SKIP_FUNC,      /* a function parbench does not measure (Barrier, Gather, ...) */
    PB_RP_SKIP_DTYPE,     /* a type parbench does not know */
    PB_RP_SKIP_SIZE,      /* size not recorded, or 0 */
    PB_RP_SKIP_MEMBERS,   /* its communicator's members were not all recorded */
    PB_RP_SKIP_UNMATCHED, /* a send without its receive, or a receive without its send */
    PB_RP_SKIP_COUNT
} pb_rp_skip_t;

const char *pb_rp_skip_text(pb_rp_skip_t s);

typedef struct pb_rp_unit {
    int comm;          /* index into the job's comms */
    pb_coll_t coll;    /* PB_SENDRECV: one send and its receive */
    pb_dtype_t dtype;
    uint64_t bytes;    /* as recorded (nccl-tests' size) */
    int root;          /* rooted collectives: communicator rank; else 0 */
    int src, dst;      /* a pair: sender's and receiver's communicator ranks; else -1 */
    int64_t key_ns;    /* median recorded start over its records (0: none recorded) */
    uint64_t seq;
    size_t ord;        /* building order: the last tie-break of the sort */
} pb_rp_unit_t;

typedef struct pb_rp_comm {
    int replayable;    /* its members are all known and distinct */
    int layer;         /* which split makes its group (-1: no unit on it) */
    uint64_t units, bytes;
    /* the slowest member's sum of its records' recorded durations (GPU
     * time where recorded, else end - start); 0 with timed == 0 */
    double recorded_s;
    uint64_t timed;    /* records with a duration */
} pb_rp_comm_t;

/* A rank's unit, in the replay's order. */
typedef struct pb_rp_step {
    size_t unit;
    int me;            /* this rank in the unit's communicator */
    /* this rank's recorded idle time before it: from the end of its
     * previous replayed operation to this one's start (0 when either was
     * not recorded or they overlapped) */
    int64_t gap_ns;
} pb_rp_step_t;

typedef struct pb_replay_plan {
    int world;           /* pb_jp_world */
    pb_rp_unit_t *units; /* in the total order */
    size_t nunits;
    pb_rp_comm_t *comms; /* one per job communicator */
    size_t ncomms;
    int nlayers;         /* splits that make every group: comms of a layer share no rank */
    uint64_t skipped[PB_RP_SKIP_COUNT]; /* records */
    char skipped_funcs[64];             /* the functions of PB_RP_SKIP_FUNC, ", " */
    uint64_t mismatched; /* instances whose members recorded different sizes, types, roots */
    /* the job's recorded communication: each rank's records' durations
     * over every communicator summed, the slowest rank's sum */
    double rank_recorded_s;
    uint64_t untimed;    /* replayed records with no recorded duration (counted as 0) */
    size_t *unit_of_op;  /* per job record: its unit, SIZE_MAX when skipped */
    size_t nops;
} pb_replay_plan_t;

/* The ranks a replay of the recording at `paths` launches: its world.
 * `asked` (--np; 0: not given) must be that world.  Reads the recording
 * (PB_EINPUT: a bad one, or --np another count). */
int pb_rp_launch_world(const char *const *paths, size_t npaths, int asked, int *np,
                       pb_err_t *err);

/* The plan of a whole job; PB_ERUNTIME (out of memory) or PB_EINPUT
 * (nothing at all to replay, or pb_rp_check_whole's refusal). */
int pb_rp_build(const pb_jobprof_t *jp, pb_replay_plan_t *p, pb_err_t *err);
void pb_rp_free(pb_replay_plan_t *p);

/* Every member of a replayed communicator issued a record.  A rank that
 * recorded nothing - its trace not given, its node's profiler files left
 * behind - would take part only with what the others recorded: its side
 * made up, its time none.  PB_EINPUT naming those ranks (issue 49). */
int pb_rp_check_whole(const pb_replay_plan_t *p, const pb_jobprof_t *jp, pb_err_t *err);

/* c's members in communicator order, "0-3,8,10-11" (runs of consecutive
 * ranks joined), cut with ",..." where len runs out. */
void pb_rp_members_text(const pb_jcomm_t *c, char *buf, size_t len);

/* The units global rank `rank` takes part in, in order (malloc'd;
 * *n may be 0 with *out NULL). */
int pb_rp_rank_steps(const pb_replay_plan_t *p, const pb_jobprof_t *jp, int rank,
                     pb_rp_step_t **out, size_t *n, pb_err_t *err);

/* A hash of the units in order (FNV-1a over what each runs), for the
 * ranks to check that they planned one replay. */
uint64_t pb_rp_hash(const pb_replay_plan_t *p);

/* The size a unit runs at on n ranks: bytes x scale, rounded down to the
 * collective's granule, never below one granule. */
uint64_t pb_rp_scaled(const pb_rp_unit_t *u, int n, double scale);

#endif
