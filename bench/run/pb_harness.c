#include "pb_harness.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pb_mode_name(pb_mode_t m)
{
    return m == PB_MODE_THROUGHPUT ? "throughput" : m == PB_MODE_GRAPH ? "graph" : "latency";
}

int pb_harness_rotate(int asked, const pb_backend_t *be)
{
    return asked >= 0 ? asked : pb_backend_has(be, PB_CAP_ROTATE);
}

/* What a sample needs: the operation, its buffers, where they move to
 * next (cfg->rotate), and who synchronises.  steps = capacity /
 * rot_stride offsets fit in the buffers; the k-th timed operation runs at
 * offset (k mod steps) x rot_stride, as nccl-tests' startColl shifts
 * its buffers "so that we avoid cache effects": otherwise an operation
 * whose buffers fit in the GPU's L2 (50 MB on an H100/H200) finds its
 * input there and times the cache, not the memory training uses.
 * Measured on an H200 (doc/gpu-acceptance.md): a one-GPU all-reduce of
 * 16 MiB took 6.6 us with fixed buffers, 11.1 us in nccl-tests. */
typedef struct opsite {
    pb_group_t *g, *world;
    const pb_op_t *op;
    pb_bufs_t *b;
    pb_watchdog_t *wd;
    /* rot_end = rot_steps x rot_stride, 0 without rotation; rot_off the
     * next operation's offset (wrapped, no division in the timed loop) */
    uint64_t rot_stride, rot_end, rot_off;
} opsite_t;

/* The operation at the next offset. */
static int run_next(opsite_t *o, pb_err_t *err)
{
    if (o->rot_end == 0)
        return pb_op_run(o->g, o->op, o->b, err);
    uint64_t off = o->rot_off;
    o->rot_off = off + o->rot_stride < o->rot_end ? off + o->rot_stride : 0;
    pb_bufs_t v = *o->b;
    v.send = (char *)o->b->send + off;
    v.recv = (char *)o->b->recv + off;
    v.bytes = o->b->bytes - off;
    return pb_op_run(o->g, o->op, &v, err);
}

/* Offsets for cfg->rotate: the operation's footprint rounded up to 256 B
 * (every type's alignment, and NCCL's for its fastest copies). */
static void rotation(opsite_t *o, int rotate)
{
    uint64_t need = pb_op_buffer_bytes(o->op, o->g->size);
    o->rot_stride = (need + 255) / 256 * 256;
    uint64_t steps = rotate && o->rot_stride ? o->b->bytes / o->rot_stride : 1;
    o->rot_end = steps > 1 ? steps * o->rot_stride : 0;
    o->rot_off = 0;
}

/* One sample: this rank's seconds per operation.  In graph mode the
 * batch was captured once and each sample replays it `replays` times. */
static int sample(opsite_t *o, uint64_t batch, uint64_t replays, int tight, double *sec,
                  pb_err_t *err)
{
    pb_group_t *g = o->g;
    const pb_comm_ops_t *ops = g->be->comm;
    /* A group that spans the world synchronises on itself: the barrier
     * and the operation then share one communicator, as in OSU's loop.
     * Measured (bench/perf/latency_vs_loop.sh, 15 pairs, 8 B all-reduce): 1.04
     * x the plain loop with the barrier on a second communicator, 1.00
     * with it on the group.  Smaller groups need the world barrier so
     * that concurrent groups start together. */
    pb_group_t *sync_on = g->size == o->world->size ? g : o->world;
    pb_watch_tick(o->wd);
    if (tight) { /* the operation takes its own marks (set_tight) */
        if (ops->barrier(sync_on, err) || run_next(o, err) || ops->elapsed(g, 0, 1, sec, err))
            return err->code;
        return PB_OK;
    }
    if (ops->barrier(sync_on, err) || ops->mark(g, 0, err))
        return err->code;
    if (replays) {
        if (ops->graph_launch(g, replays, err))
            return err->code;
    } else {
        for (uint64_t i = 0; i < batch; i++)
            if (run_next(o, err))
                return err->code;
    }
    if (ops->mark(g, 1, err) || ops->elapsed(g, 0, 1, sec, err))
        return err->code;
    *sec /= (double)batch * (double)(replays ? replays : 1);
    return PB_OK;
}

static int capture(opsite_t *o, uint64_t batch, pb_err_t *err)
{
    pb_group_t *g = o->g;
    const pb_comm_ops_t *ops = g->be->comm;
    /* callers refuse graph mode up front; this keeps the harness safe
     * for any caller that did not */
    if (pb_backend_require(g->be, PB_CAP_GRAPH, err))
        return err->code;
    if (ops->graph_begin(g, err))
        return err->code;
    for (uint64_t i = 0; i < batch; i++)
        if (run_next(o, err)) {
            pb_err_t ignore;
            pb_err_clear(&ignore);
            ops->graph_end(g, &ignore); /* leave capture mode before reporting */
            return err->code;
        }
    return ops->graph_end(g, err);
}

typedef pb_ctl_loc_t dbl_int_t; /* a sample and the rank that took it */

static int reduce_round(pb_ctl_t *ctrl, dbl_int_t *v, int n, pb_err_t *err)
{
    if (pb_ctl_maxloc(ctrl, v, (uint64_t)n) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the reduction of timing samples failed");
    return PB_OK;
}

/* Throughput batches last about a millisecond, so that the two marks and
 * the barrier are small next to what is measured; the estimate is the
 * slowest rank's warm-up time, so every rank picks the same batch. */
static int pick_batch(opsite_t *o, pb_ctl_t *ctrl, const pb_harness_cfg_t *cfg, uint64_t *batch,
                      pb_err_t *err)
{
    *batch = 1;
    if (cfg->mode == PB_MODE_LATENCY)
        return PB_OK;
    if (cfg->batch) {
        *batch = cfg->batch;
        return PB_OK;
    }
    dbl_int_t est;
    int wr = ctrl->rank;
    if (sample(o, 1, 0, 0, &est.v, err))
        return err->code;
    est.rank = wr;
    if (reduce_round(ctrl, &est, 1, err))
        return err->code;
    double want = 1e-3 / (est.v > 1e-9 ? est.v : 1e-9);
    *batch = want < 1.0 ? 1u : want > 1000.0 ? 1000u : (uint64_t)ceil(want);
    return PB_OK;
}

static int done(const pb_harness_cfg_t *cfg, const pb_stats_t *st, uint64_t n, double elapsed)
{
    if (cfg->iters)
        return n >= cfg->iters;
    if (n >= cfg->max_iters)
        return 1;
    if (n < cfg->min_iters)
        return 0;
    return pb_stats_precise(st, cfg->precision) || elapsed >= cfg->budget;
}

/* Next round's size: enough to reach min_iters, then a quarter more each
 * time (so the stop check stays cheap relative to sampling), never past
 * the sample limit or, by the time per sample so far, the budget. */
static uint64_t round_size(const pb_harness_cfg_t *cfg, uint64_t n, double elapsed)
{
    uint64_t limit = cfg->iters ? cfg->iters : cfg->max_iters;
    uint64_t r;
    if (cfg->iters) {
        /* fixed counts: rounds of about 50 ms (at least 64 samples), so
         * that the exchange between rounds, which disturbs the caches of
         * the next samples, comes rarely, and a stop still comes fast */
        double per = n ? elapsed / (double)n : 0.0;
        double fit = per > 0.0 ? 0.05 / per : 64.0;
        r = fit < 64.0 ? 64u : fit > 1e9 ? UINT64_C(1000000000) : (uint64_t)fit;
    } else if (n < cfg->min_iters)
        r = cfg->min_iters - n;
    else {
        r = n / 4 < 4 ? 4 : n / 4;
        double per = n ? elapsed / (double)n : 0.0;
        if (per > 0.0) {
            double left = (cfg->budget - elapsed) / per;
            if (left < (double)r)
                r = left < 1.0 ? 1u : (uint64_t)left;
        }
    }
    if (r > limit - n)
        r = limit - n;
    return r ? r : 1;
}

/* What the sampling rounds share: the operation, how a sample is taken,
 * and the arrays they fill (samples, this round's, who was slowest). */
typedef struct sampler {
    opsite_t at;
    pb_ctl_t *ctrl;
    const pb_harness_cfg_t *cfg;
    uint64_t batch, replays;
    int tight, rank;
    double *samples, *scratch;
    /* this round's samples as they are taken: plain doubles, written in
     * sequence and faulted in before the first round, so that the timed
     * loop stores 8 B per sample into resident memory, as a plain loop's
     * array of times does (the rank tags for the MAXLOC follow after) */
    double *taken;
    double *mine; /* cfg->keep: this rank's own samples, before the max */
    dbl_int_t *round;
    int *slow;
} sampler_t;

/* Rounds of samples until the stop rule holds; every rank takes the same
 * decision from the round's all-reduce (wall time and signals ride with
 * the samples).  Returns the samples taken in *n and the statistics. */
static int rounds(sampler_t *sp, pb_timing_t *out, uint64_t *n, pb_stats_t *st, pb_err_t *err)
{
    const pb_harness_cfg_t *cfg = sp->cfg;
    dbl_int_t *round = sp->round;
    double t0 = pb_ctl_now(), elapsed = 0.0;
    /* operations per sample: a sample is the time per operation */
    uint64_t per_sample = sp->batch * (sp->replays ? sp->replays : 1);
    *n = 0;
    memset(st, 0, sizeof *st);
    while (!done(cfg, st, *n, elapsed)) {
        uint64_t r = round_size(cfg, *n, elapsed);
        double lap = pb_ctl_now(); /* two clock reads a round: the phase split */
        for (uint64_t i = 0; i < r; i++)
            if (sample(&sp->at, sp->batch, sp->replays, sp->tight, &sp->taken[i], err) != PB_OK)
                return err->code;
        out->sampling_s += pb_ctl_now() - lap;
        /* after the round's samples, so the copies cost them nothing */
        for (uint64_t i = 0; i < r; i++)
            round[i] = (dbl_int_t){sp->taken[i], sp->rank};
        if (sp->mine)
            memcpy(sp->mine + *n, sp->taken, (size_t)r * sizeof *sp->taken);
        /* the last entry carries the wall time, so the stop is unanimous */
        round[r].v = pb_ctl_now() - t0;
        round[r].rank = sp->rank;
        /* and the next a signal, so that all ranks abandon together */
        round[r + 1].v = (double)pb_watchdog_signal(cfg->wd);
        round[r + 1].rank = sp->rank;
        if (reduce_round(sp->ctrl, round, (int)r + 2, err) != PB_OK)
            return err->code;
        pb_watch_tick(cfg->wd);
        if (round[r + 1].v > 0.0) {
            out->abandoned = (int)round[r + 1].v;
            return PB_OK;
        }
        for (uint64_t i = 0; i < r; i++) {
            sp->samples[*n + i] = round[i].v;
            sp->slow[round[i].rank]++;
            out->timed_s += round[i].v * (double)per_sample;
        }
        *n += r;
        elapsed = round[r].v;
        /* the statistics (a sort of every sample so far) only where the
         * stop depends on them: with fixed counts once, at the end */
        if (!cfg->iters || *n >= cfg->iters)
            pb_stats_compute(sp->samples, *n, sp->scratch, st);
    }
    out->rounds_s = pb_ctl_now() - t0 - out->sampling_s;
    return PB_OK;
}

/* --samples: every rank's own samples to rank 0, rank-major.  Every rank
 * took the same number (the stop is unanimous), so a plain gather does;
 * a failed allocation on rank 0 is agreed on first, through an all-reduce
 * (collectives/pb_ctl_mpi.c: no one-way message where avoidable).  The gather
 * itself is one-way by nature, which is why it runs only when asked and
 * after the measurement's samples. */
static int gather_mine(sampler_t *sp, uint64_t n, int wn, pb_timing_t *out, pb_err_t *err)
{
    if (n > (uint64_t)INT_MAX)
        return pb_err_set(err, PB_ERUNTIME, "%llu samples are too many to gather",
                          (unsigned long long)n);
    int ok = 1;
    if (sp->rank == 0)
        ok = (out->per_rank = malloc((size_t)n * (size_t)wn * sizeof *out->per_rank)) != NULL;
    int rc = pb_ctl_allreduce(sp->ctrl, &ok, 1, PB_CTL_INT, PB_CTL_MIN);
    if (rc != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the reduction before the samples' gather failed");
    if (!ok)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for %llu samples of %d ranks",
                          (unsigned long long)n, wn);
    rc = pb_ctl_gather(sp->ctrl, sp->mine, out->per_rank, n * sizeof(double), 0);
    if (rc != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the gather of the samples failed");
    return PB_OK;
}

/* The warm-up count under cfg->warmup_cap: as many operations as fit in
 * the cap at the pace of the first (its time on the slowest rank,
 * synchronised so that a device's queue is drained), between 1 and
 * cfg->warmup. */
static int warmup_count(sampler_t *sp, double t_first, uint64_t *total, pb_err_t *err)
{
    const pb_harness_cfg_t *cfg = sp->cfg;
    if (sp->at.g->be->comm->sync(sp->at.g, err) != PB_OK)
        return err->code;
    dbl_int_t slowest = {pb_ctl_now() - t_first, sp->rank};
    if (reduce_round(sp->ctrl, &slowest, 1, err) != PB_OK)
        return err->code;
    double fit = cfg->warmup_cap / (slowest.v > 1e-9 ? slowest.v : 1e-9);
    *total = fit >= (double)cfg->warmup ? cfg->warmup : fit < 1.0 ? 1u : (uint64_t)fit;
    return PB_OK;
}

/* Warm-up, then the batch size, then a graph capture where asked. */
static int prepare(sampler_t *sp, pb_err_t *err)
{
    const pb_harness_cfg_t *cfg = sp->cfg;
    uint64_t total = cfg->warmup;
    for (uint64_t i = 0; i < total; i++) {
        pb_watch_tick(cfg->wd);
        double t = pb_ctl_now();
        if (pb_op_run(sp->at.g, sp->at.op, sp->at.b, err) != PB_OK)
            return err->code;
        if (i == 0 && cfg->warmup_cap > 0.0 && total > 1 &&
            warmup_count(sp, t, &total, err) != PB_OK)
            return err->code;
    }
    if (sp->at.g->be->comm->sync(sp->at.g, err) != PB_OK ||
        pick_batch(&sp->at, sp->ctrl, cfg, &sp->batch, err) != PB_OK)
        return err->code;
    if (cfg->mode == PB_MODE_GRAPH) {
        sp->replays = cfg->graph_replays;
        if (capture(&sp->at, sp->batch, err) != PB_OK)
            return err->code;
    }
    return PB_OK;
}

int pb_harness_time(pb_group_t *g, pb_group_t *world, pb_ctl_t *ctrl, const pb_op_t *op,
                    pb_bufs_t *b, const pb_harness_cfg_t *cfg, pb_timing_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    int wn;
    sampler_t sp = {.at = {g, world, op, b, cfg->wd, 0, 0, 0}, .ctrl = ctrl, .cfg = cfg};
    rotation(&sp.at, cfg->rotate);
    sp.rank = ctrl->rank;
    wn = ctrl->size;
    uint64_t cap = cfg->iters ? cfg->iters : cfg->max_iters;
    sp.samples = malloc(cap * sizeof *sp.samples);
    sp.scratch = malloc(cap * sizeof *sp.scratch);
    sp.round = malloc((cap + 2) * sizeof *sp.round);
    sp.taken = malloc(cap * sizeof *sp.taken);
    sp.slow = calloc((size_t)wn, sizeof *sp.slow);
    sp.mine = cfg->keep ? malloc(cap * sizeof *sp.mine) : NULL;
    int code = PB_OK;
    if (!sp.samples || !sp.scratch || !sp.round || !sp.taken || !sp.slow ||
        (cfg->keep && !sp.mine)) {
        code = pb_err_set(err, PB_ERUNTIME, "out of memory for %llu samples",
                          (unsigned long long)cap);
        goto out;
    }
    memset(sp.taken, 0, cap * sizeof *sp.taken); /* resident before timing */
    double t_prep = pb_ctl_now();
    if ((code = prepare(&sp, err)) != PB_OK)
        goto out;
    out->warmup_s = pb_ctl_now() - t_prep;
    /* one operation per sample: the backend reads the clock around the
     * library call itself where it can (a plain loop's timed region) */
    sp.tight = cfg->mode == PB_MODE_LATENCY && sp.batch == 1 &&
               pb_backend_has(g->be, PB_CAP_TIGHT);
    if (sp.tight && (code = g->be->comm->set_tight(g, 1, err)) != PB_OK) {
        sp.tight = 0;
        goto out;
    }
    uint64_t n = 0;
    pb_stats_t st;
    if ((code = rounds(&sp, out, &n, &st, err)) != PB_OK || out->abandoned)
        goto out;
    if (sp.mine && (code = gather_mine(&sp, n, wn, out, err)) != PB_OK)
        goto out;
    out->st = st;
    out->samples = n;
    out->batch = sp.batch;
    out->iters = n * sp.batch * (sp.replays ? sp.replays : 1);
    out->converged = pb_stats_precise(&st, cfg->precision);
    out->slowest_rank = 0;
    for (int i = 1; i < wn; i++)
        if (sp.slow[i] > sp.slow[out->slowest_rank])
            out->slowest_rank = i;
out:
    if (sp.tight) {
        pb_err_t ignore;
        g->be->comm->set_tight(g, 0, &ignore);
    }
    free(sp.samples);
    free(sp.scratch);
    free(sp.round);
    free(sp.taken);
    free(sp.slow);
    free(sp.mine);
    if (code != PB_OK) {
        free(out->per_rank);
        out->per_rank = NULL;
    }
    return code;
}
