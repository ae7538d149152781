/* pb_jp_inst.h - the recorded operations as the job ran them: every
 * member's record of one collective joined into one instance, a send or
 * a receive an instance of its own.  What the statistics, the comparison
 * with the calibration and the straggler search count.
 *
 * A collective's records are joined by communicator, function and
 * sequence number: NCCL numbers collectives per communicator and
 * function (the profiler's seqNumber), PyTorch per process group, so
 * (comm, function, seq) names one operation under either.  A send or a
 * receive is matched with no one: its seq is its own rank's count. */
#ifndef PB_JP_INST_H
#define PB_JP_INST_H

#include <stddef.h>
#include <stdint.h>

#include "pb_jobprof.h"

typedef struct pb_jp_inst {
    int comm;
    pb_jkind_t kind;
    int known;            /* coll and dtype are parbench's */
    pb_coll_t coll;
    pb_dtype_t dtype;
    char func[16];        /* the recorder's name (the first record's) */
    uint64_t bytes;       /* nccl-tests' size (the first record's) */
    uint64_t seq;
    int rank;             /* send/receive: the global rank that issued it; -1 */
    int peer;             /* send/receive: the peer's global rank; -1 not known */
    int nrec;             /* records joined (members that recorded it) */
    size_t first;         /* its records: order[first .. first + nrec - 1] */
    int64_t t_issue_ns;   /* the first issue (0 not known) */
    int64_t t_start_ns;   /* the first start (0 not known) */
    int64_t t_end_ns;     /* the last end (0 not known) */
    /* the longest member's duration: its GPU time where recorded, else
     * t_end - t_start; -1 not known.  The longest, because a collective
     * is done when its last member is (the bus was busy that long). */
    int64_t dur_ns;
} pb_jp_inst_t;

typedef struct pb_jp_insts {
    pb_jp_inst_t *v;
    size_t n;
    size_t *order; /* jp->ops indices, grouped by instance */
    size_t norder;
} pb_jp_insts_t;

/* A record's duration as above (gpu_ns, else end - start; -1). */
int64_t pb_jp_op_dur(const pb_jop_t *o);

/* The operation's name as the tables print it: parbench's collective
 * ("allreduce"), "send" or "recv", else the recorder's. */
const char *pb_jp_op_name(int known, pb_jkind_t kind, pb_coll_t coll, const char *func);

int pb_jp_insts_build(const pb_jobprof_t *jp, pb_jp_insts_t *out, pb_err_t *err);
void pb_jp_insts_free(pb_jp_insts_t *x);

#endif
