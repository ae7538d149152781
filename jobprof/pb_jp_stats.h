/* pb_jp_stats.h - what each communicator carried: per operation (a
 * collective, send or recv) and size bucket, how many, how many bytes,
 * how long, and the bandwidth achieved.
 *
 * Counted over instances (pb_jp_inst.h): a collective once however many
 * members recorded it, a send or a receive once per rank that issued it.
 * Sizes are nccl-tests' (pb_jobprof.h), so busbw compares with nccl-tests'
 * and parbench's tables: algbw = bytes / time, busbw = algbw x
 * pb_busbw_factor(coll, comm size) (send/recv: 1; a function parbench does
 * not measure: no bandwidth).
 *
 * Size buckets are powers of 4: bucket k holds sizes in [4^k, 4^(k+1))
 * bytes (size 0 in bucket 0), so a 8 MiB and a 12 MiB message share the
 * bucket [4 MiB, 16 MiB) - coarse enough that a layer's messages stay in
 * one row, fine enough to tell latency-bound from bandwidth-bound ones.
 *
 * Time: an instance's duration (the longest member's, GPU-timed where
 * recorded); a row's time is the sum over its instances of known
 * duration, its share that sum over the sum of every instance of the
 * job.  Operations on different communicators overlap in a real step
 * (TP and DP run on separate streams), so shares are of the time spent
 * communicating, summed, not of the step. */
#ifndef PB_JP_STATS_H
#define PB_JP_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "pb_jobprof.h"
#include "pb_jp_inst.h"

typedef struct pb_jp_stat {
    int comm;
    pb_jkind_t kind;
    int known;
    pb_coll_t coll;
    char func[32];
    int bucket;        /* k: sizes in [4^k, 4^(k+1)); -1: the operation's total row */
    uint64_t count;    /* instances */
    uint64_t bytes;    /* their sizes, summed */
    uint64_t timed;    /* instances of known duration */
    uint64_t timed_bytes; /* their sizes, summed */
    int64_t time_ns;   /* their durations, summed */
    double share;      /* time_ns / the job's summed communication time */
    double algbw_gbps; /* timed_bytes / time_ns; 0 not known */
    double busbw_gbps; /* algbw x the bus factor; 0 not known */
} pb_jp_stat_t;

typedef struct pb_jp_stats {
    pb_jp_stat_t *rows; /* by comm, operation, then bucket (the total row first) */
    size_t n;
    int64_t total_ns;   /* the job's summed communication time */
    uint64_t untimed;   /* instances without a duration */
} pb_jp_stats_t;

/* Bucket k of `bytes`; its lower bound. */
int pb_jp_bucket(uint64_t bytes);
uint64_t pb_jp_bucket_lo(int k);

/* PB_EINPUT when the durations sum past what 64 bits hold (a damaged
 * recording's: each is at most 2^62 ns as read); PB_ERUNTIME out of
 * memory. */
int pb_jp_stats_build(const pb_jobprof_t *jp, const pb_jp_insts_t *in, pb_jp_stats_t *out,
                      pb_err_t *err);
void pb_jp_stats_free(pb_jp_stats_t *s);
/* Communicator comm's totals: its operations' total rows added (count,
 * bytes, timed, time_ns, share; the rest 0). */
pb_jp_stat_t pb_jp_stats_comm(const pb_jp_stats_t *s, int comm);

#endif
