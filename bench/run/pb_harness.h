/* pb_harness.h - timing one operation honestly.
 *
 * latency:    barrier, then one operation between two marks, per sample
 *             (OSU's method);
 * throughput: barrier, then a batch of back-to-back operations between
 *             two marks, divided by the batch (nccl-tests' method);
 * graph:      the batch captured once as a device graph, each sample
 *             replaying it N times (nccl-tests' -G: no launch gaps).
 * With cfg.rotate each timed operation runs on the next slice of the
 * buffers, as nccl-tests' do, so that none is timed out of the cache.
 * A collective takes as long as its slowest rank: each sample is the
 * maximum over all ranks of the world (every group runs at once, as in
 * training), and the rank that was slowest is counted.
 * Samples are taken in rounds; after each round every rank receives the
 * same reduced samples and so takes the same decision to stop: when the
 * median is known to the requested precision, or the time budget or
 * the sample limit is reached.  Fixed counts (-n) skip the adaptation. */
#ifndef PB_HARNESS_H
#define PB_HARNESS_H

#include "../../collectives/pb_ctl.h"
#include "pb_exec.h"
#include "../cli/pb_options.h"
#include "../../util/pb_stats.h"
#include "pb_watchdog.h"

typedef struct pb_harness_cfg {
    pb_mode_t mode;
    uint64_t warmup;
    uint64_t iters; /* fixed sample count, 0 = adaptive */
    uint64_t min_iters, max_iters;
    uint64_t batch; /* throughput, graph: ops per batch, 0 = auto */
    uint64_t graph_replays; /* graph: replays of the captured batch per sample */
    double precision;
    double budget;
    /* ticked once per operation or sample; asked for signals after each
     * round (NULL: none) */
    pb_watchdog_t *wd;
    /* keep every rank's own samples and gather them to rank 0
     * (pb_timing_t.per_rank): --samples */
    int keep;
    /* seconds (0: none): after the first warm-up operation, only as many
     * more as fit in this time at the slowest rank's pace (at least
     * one in all), so a 64 MiB operation does not warm up for as long as
     * it is timed; all ranks take the count from one reduction */
    double warmup_cap;
    /* move the buffers between timed operations, through as many
     * offsets as the buffers hold (nccl-tests' way: each operation finds
     * its data in memory, not in the cache the one before left); 0: the
     * same buffers every time (OSU's way) */
    int rotate;
} pb_harness_cfg_t;

typedef struct pb_timing {
    pb_stats_t st;    /* seconds per operation */
    uint64_t samples; /* timed samples */
    uint64_t batch;   /* operations per sample */
    uint64_t iters;   /* timed operations = samples * batch */
    int slowest_rank; /* world rank slowest in most samples */
    int converged;    /* precision reached */
    int abandoned;    /* SIGINT/SIGTERM seen by some rank: no result */
    /* where this rank's wall time went (bench/run/pb_phase.h): warm-up
     * and batch choice, the sample loops, the exchange and stop rule
     * between rounds; timed_s is the slowest rank's samples x batch,
     * summed (the time inside the timed operations) */
    double warmup_s, sampling_s, rounds_s, timed_s;
    /* cfg.keep, rank 0 only: per_rank[r * samples + i] is rank r's
     * seconds per operation in sample i; free() it (NULL elsewhere) */
    double *per_rank;
} pb_timing_t;

const char *pb_mode_name(pb_mode_t m);

/* cfg.rotate from --buffers (1, 0, or -1 for the backend's way:
 * PB_CAP_ROTATE). */
int pb_harness_rotate(int asked, const pb_backend_t *be);

/* Collective over `ctrl` (the world): every rank of every group calls it.
 * `world` is the backend's world group, whose barrier aligns the start of
 * every sample. */
int pb_harness_time(pb_group_t *g, pb_group_t *world, pb_ctl_t *ctrl, const pb_op_t *op,
                    pb_bufs_t *b, const pb_harness_cfg_t *cfg, pb_timing_t *out, pb_err_t *err);

#endif
