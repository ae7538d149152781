#include "pb_cmd_coll.h"
#include "pb_coll_sweep.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_table.h"
#include "../run/pb_harness.h"
#include "../run/pb_wall.h"
#include "../glue/pb_pattern_print.h"
#include "../run/pb_progress.h"
#include "../../util/pb_size.h"
#include "../cli/pb_opt_common.h"


/* Sizes for one collective on this group: a range is rounded down to the
 * collective's granule (a sweep must work at 3 ranks too), dropping sizes
 * that round to 0 and repeats; an explicit size must divide exactly, or
 * is skipped (counted in *skipped) when several collectives or types
 * share the list. */
static int sizes_for(const sweep_t *s, pb_coll_t c, pb_dtype_t t, uint64_t *out, size_t *n,
                     int *rounded, size_t *skipped, pb_err_t *err)
{
    uint64_t gran = pb_coll_granule(c, s->g->size, t);
    *n = 0;
    *rounded = 0;
    *skipped = 0;
    for (size_t i = 0; i < s->nsizes; i++) {
        uint64_t b = s->sizes[i];
        if (b % gran != 0) {
            if (!s->from_range && s->skip_indivisible) {
                (*skipped)++;
                continue;
            }
            if (!s->from_range)
                return pb_err_set(err, PB_EINPUT,
                                  "size %" PRIu64 " B is not a multiple of %" PRIu64
                                  " B, as %s of %s on %d ranks needs",
                                  b, gran, pb_coll_name(c), pb_dtype_name(t), s->g->size);
            b -= b % gran;
            *rounded = 1;
        }
        if (b == 0 || (*n > 0 && out[*n - 1] == b))
            continue;
        out[(*n)++] = b;
    }
    return PB_OK;
}

static int build_sizes(sweep_t *s, pb_err_t *err)
{
    const pb_options_t *o = s->ctx->opt;
    if (o->meas.size_list) {
        s->from_range = 0;
        if (pb_size_list(o->meas.size_list, &s->sizes, &s->nsizes, err) != PB_OK)
            return err->code;
        for (size_t i = 0; i < s->nsizes; i++)
            if (s->sizes[i] == 0)
                return pb_err_set(err, PB_EINPUT, "--sizes: 0 B measures nothing (sizes start at 1 B)");
        return PB_OK;
    }
    /* a single size (-b alone, or -b == -e) is an explicit one */
    s->from_range = o->meas.size_min != o->meas.size_max;
    return pb_size_range(o->meas.size_min, o->meas.size_max, o->meas.size_step ? 0.0 : o->meas.size_factor,
                         o->meas.size_step, &s->sizes, &s->nsizes, err);
}

/* A combination --dtype all leaves out (refuse) */
static int left_out(const sweep_t *s, pb_coll_t c, pb_dtype_t t, pb_redop_t r)
{
    return pb_coll_reduces(c) && (s->refused[t] >> r & 1u);
}

/* Measurements the sweep will make: the progress line's total. */
static uint64_t count_measurements(const sweep_t *s)
{
    const pb_options_t *o = s->ctx->opt;
    uint64_t *tmp = malloc((s->nsizes ? s->nsizes : 1) * sizeof *tmp);
    uint64_t total = 0;
    pb_err_t err;
    pb_err_clear(&err);
    for (int ci = 0; ci < o->meas.ncolls && tmp; ci++) {
        pb_coll_t c = o->meas.colls[ci];
        int in_ok = pb_backend_in_place(&s->ctx->be, c);
        uint64_t places = (uint64_t)(o->meas.in_place && in_ok) +
                          (uint64_t)(o->meas.out_of_place && pb_coll_has_out_of_place(c));
        for (int di = 0; di < o->meas.ndtypes; di++) {
            size_t n = 0, skipped;
            int rounded;
            uint64_t nred = 0;
            for (int ri = 0; ri < (pb_coll_reduces(c) ? o->meas.nredops : 1); ri++)
                nred += !left_out(s, c, o->meas.dtypes[di], o->meas.redops[ri]);
            if (sizes_for(s, c, o->meas.dtypes[di], tmp, &n, &rounded, &skipped, &err) == PB_OK)
                total += (uint64_t)n * places * nred * (uint64_t)o->meas.nmodes;
        }
    }
    free(tmp);
    return total;
}

/* A type and reduction the backend cannot run on this group: with
 * --dtype all, skipped and named (pb_coll_run_head); asked for by name,
 * refused. */
static int refuse(sweep_t *s, pb_dtype_t t, pb_redop_t r, pb_err_t *err)
{
    char *why = s->refused_why[t];
    if (s->ctx->be.comm->supports(&s->ctx->be, t, r, s->g->size, why, sizeof s->refused_why[t]))
        return PB_OK;
    if (!s->ctx->opt->meas.dtypes_all)
        return pb_err_set(err, PB_EINPUT, "%s", why);
    s->refused[t] |= 1u << r;
    return PB_OK;
}

/* Everything that can be refused is refused before anything runs. */
static int validate(sweep_t *s, pb_err_t *err)
{
    const pb_options_t *o = s->ctx->opt;
    uint64_t *tmp = malloc((s->nsizes ? s->nsizes : 1) * sizeof *tmp);
    if (tmp == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    int code = PB_OK;
    size_t usable = 0; /* (collective, type, size) combinations left */
    const pb_backend_t *be = &s->ctx->be;
    for (int mi = 0; mi < o->meas.nmodes && code == PB_OK; mi++)
        if (o->meas.modes[mi] == PB_MODE_GRAPH)
            code = pb_backend_require(be, PB_CAP_GRAPH, err);
    if (o->run.fault == PB_FAULT_STALL && code == PB_OK)
        code = pb_backend_require(be, PB_CAP_DEADLINE, err);
    if (o->run.fault == PB_FAULT_HANG && o->run.timeout_s <= 0.0 && code == PB_OK)
        code = pb_err_set(err, PB_EINPUT, "--fault hang needs a watchdog: -T S with S > 0");
    for (int ci = 0; ci < o->meas.ncolls && code == PB_OK; ci++) {
        pb_coll_t c = o->meas.colls[ci];
        if (pb_coll_rooted(c) && o->meas.root >= s->g->size)
            code = pb_err_set(err, PB_EINPUT, "--root %d is not a rank of a %d-rank group",
                              o->meas.root, s->g->size);
        for (int di = 0; di < o->meas.ndtypes && code == PB_OK; di++) {
            size_t n, skipped;
            int rounded;
            code = sizes_for(s, c, o->meas.dtypes[di], tmp, &n, &rounded, &skipped, err);
            usable += n;
            for (int ri = 0; ri < o->meas.nredops && code == PB_OK && pb_coll_reduces(c); ri++)
                code = refuse(s, o->meas.dtypes[di], o->meas.redops[ri], err);
        }
    }
    free(tmp);
    if (code == PB_OK && usable == 0)
        code = pb_err_set(err, PB_EINPUT,
                          "no listed size fits any of the collectives and types asked for on %d "
                          "ranks (each must be a multiple of n x the element size)",
                          s->g->size);
    return code;
}

static uint64_t max_size(const sweep_t *s)
{
    uint64_t m = 0;
    for (size_t i = 0; i < s->nsizes; i++)
        if (s->sizes[i] > m)
            m = s->sizes[i];
    return m;
}

static void fill_row(const sweep_t *s, const pb_op_t *op, pb_mode_t mode, const pb_timing_t *tm,
                     int64_t wrong, pb_result_t *r)
{
    pb_ctx_result_base(s->ctx, r);
    snprintf(r->mode, sizeof r->mode, "%s", pb_mode_name(mode));
    snprintf(r->pattern, sizeof r->pattern, "coll");
    snprintf(r->collective, sizeof r->collective, "%s", pb_coll_name(op->coll));
    snprintf(r->group, sizeof r->group, "%s", s->group_name);
    r->group_size = s->g->size;
    snprintf(r->link_class, sizeof r->link_class, "%s", s->link_class);
    r->bytes = op->bytes;
    snprintf(r->dtype, sizeof r->dtype, "%s", pb_dtype_name(op->dtype));
    r->in_place = op->in_place;
    r->iters = tm->iters;
    r->time_us_min = tm->st.min * 1e6;
    r->time_us_median = tm->st.median * 1e6;
    r->time_us_p99 = tm->st.p99 * 1e6;
    r->time_us_max = tm->st.max * 1e6;
    r->algbw_gbps = tm->st.median > 0.0 ? (double)op->bytes / tm->st.median / 1e9 : 0.0;
    r->busbw_gbps = r->algbw_gbps * pb_busbw_factor(op->coll, s->g->size);
    r->wrong = wrong;
    snprintf(r->redop, sizeof r->redop, "%s",
             pb_coll_reduces(op->coll) ? pb_redop_name(op->redop) : "none");
    r->slowest_rank = tm->slowest_rank;
}

/* Verification, outside the timed region: this rank's wrong elements,
 * then their sum over all ranks (every rank returns the same count). */
static int64_t verify(sweep_t *s, pb_op_t *op, int as_left, double *t)
{
    pb_ctx_t *ctx = s->ctx;
    pb_err_t err;
    pb_err_clear(&err);
    uint64_t w = 0;
    pb_watch_begin(ctx->wd, "verification of %s", s->g->doing);
    int corrupt = ctx->opt->run.fault == PB_FAULT_CORRUPT && ctx->opt->run.fault_rank == ctx->rank;
    /* a repeatable operation's last timed run is checked as it is (its
     * outputs were poisoned before timing); the others run once more */
    if (as_left ? pb_op_check(s->g, op, &s->bufs, corrupt, &w, &err)
                : pb_op_verify(s->g, op, &s->bufs, corrupt, &w, &err))
        pb_ctx_abort(ctx, &err);
    pb_wall_lap(&s->ph, PB_WALL_VERIFY, t);
    int64_t wrong = (int64_t)w;
    if (pb_ctl_allreduce(ctx->world, &wrong, 1, PB_CTL_I64, PB_CTL_SUM) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the sum of the wrong counts failed"});
    pb_watch_end(ctx->wd);
    pb_wall_lap(&s->ph, PB_WALL_AGREE, t);
    s->wrong_total += wrong;
    return wrong;
}

/* One measurement: time, then verify outside the timed region.  Returns
 * 1 with a row, 0 when a signal cut it short (no row). */
static int measure(sweep_t *s, pb_op_t *op, pb_mode_t mode, pb_result_t *r)
{
    pb_ctx_t *ctx = s->ctx;
    const pb_options_t *o = ctx->opt;
    pb_err_t err;
    pb_err_clear(&err);
    pb_harness_cfg_t cfg = {mode, o->meas.warmup, o->meas.iters, o->meas.min_iters, o->meas.max_iters, o->meas.batch,
                            o->meas.graph_replays, o->meas.precision, o->meas.time_budget, ctx->wd,
                            o->meas.samples_path != NULL, o->meas.warmup_cap, s->rotate};
    if (o->run.fault == PB_FAULT_HANG && o->run.fault_rank == ctx->rank)
        pb_watchdog_hang_forever(); /* the others' watchdogs must name this rank */
    snprintf(s->g->doing, sizeof s->g->doing, "%s of %" PRIu64 " B %s%s, group %s (%d ranks), %s",
             pb_coll_name(op->coll), op->bytes, pb_dtype_name(op->dtype),
             op->in_place ? " in place" : "", s->group_name, s->g->size, pb_mode_name(mode));
    pb_watch_begin(ctx->wd, "%s", s->g->doing);
    pb_timing_t tm;
    if (o->run.fault == PB_FAULT_STALL && o->run.fault_rank == ctx->rank && !s->stalled) {
        s->stalled = 1; /* an hour: far past any --timeout */
        if (s->g->be->comm->inject_stall(s->g, 3600.0, &err))
            pb_ctx_abort(ctx, &err);
    }
    double t = pb_ctl_now();
    /* rotated buffers: the last timed operation ran on some slice, so
     * the check runs one more on the filled one */
    int checked_as_left = o->meas.check && pb_op_repeatable(op) && !s->rotate;
    if (pb_op_setup(op, s->g, &s->bufs, &err) ||
        (checked_as_left ? pb_op_prepare(s->g, op, &s->bufs, &err)
                         : pb_op_fill(s->g, op, &s->bufs, &err)))
        pb_ctx_abort(ctx, &err);
    pb_wall_lap(&s->ph, PB_WALL_SETUP, &t);
    if (pb_harness_time(s->g, ctx->world_group, ctx->world, op, &s->bufs, &cfg, &tm, &err))
        pb_ctx_abort(ctx, &err);
    pb_wall_add_harness(&s->ph, &tm, &t);
    pb_watch_end(ctx->wd);
    if (tm.abandoned) { /* a signal: no row for a measurement cut short */
        ctx->stopped_by = tm.abandoned;
        free(tm.per_rank);
        return 0;
    }
    int64_t wrong = o->meas.check ? verify(s, op, checked_as_left, &t) : PB_RESULT_WRONG_UNCHECKED;
    fill_row(s, op, mode, &tm, wrong, r);
    if (pb_ctx_emit(ctx, r, &err) != PB_OK ||
        pb_ctx_emit_samples(ctx, r, tm.per_rank, tm.samples, &err) != PB_OK)
        pb_ctx_abort(ctx, &err);
    free(tm.per_rank);
    pb_wall_row(&s->ph, tm.st.median * (double)tm.iters, &t);
    return 1;
}

static void run_table(sweep_t *s, pb_coll_t c, pb_dtype_t t, pb_redop_t op_red, pb_mode_t mode)
{
    const pb_options_t *o = s->ctx->opt;
    uint64_t *sizes = malloc(s->nsizes * sizeof *sizes);
    size_t n = 0, skipped = 0;
    int rounded = 0;
    pb_err_t err;
    pb_err_clear(&err);
    if (sizes == NULL || sizes_for(s, c, t, sizes, &n, &rounded, &skipped, &err) != PB_OK) {
        pb_err_set(&err, PB_ERUNTIME, "cannot list sizes");
        pb_ctx_abort(s->ctx, &err);
    }
    const char *redop = pb_coll_reduces(c) ? pb_redop_name(op_red) : "none";
    if (s->ctx->rank == 0 && !o->run.quiet) {
        pb_progress_clear(&s->progress);
        pb_coll_table_head(s, c, t, redop, mode, rounded, skipped);
    }
    pb_table_summary_t sum;
    memset(&sum, 0, sizeof sum);
    for (size_t i = 0; i < n && !s->ctx->stopped_by; i++) {
        pb_result_t res[2];
        const pb_result_t *shown[2] = {NULL, NULL};
        for (int place = 0; place < 2; place++) {
            int in_ok = pb_backend_in_place(&s->ctx->be, c);
            int want = place ? o->meas.in_place && in_ok
                             : o->meas.out_of_place && pb_coll_has_out_of_place(c);
            if (!want)
                continue;
            pb_op_t op = {c, t, op_red, o->meas.root, place, sizes[i], {0, 0, 0, 0}, 0, 0, 0, 0.0};
            char what[96], hb[32];
            pb_fmt_bytes(hb, sizeof hb, (double)sizes[i]);
            snprintf(what, sizeof what, "%s %s %s%s %s", pb_coll_name(c), hb, pb_dtype_name(t),
                     place ? " in-place" : "", pb_mode_name(mode));
            pb_progress_step(&s->progress, what);
            /* SIGINT/SIGTERM: stop between measurements, all ranks alike */
            double tw = pb_ctl_now();
            int stop = pb_ctx_stopping(s->ctx);
            pb_wall_lap(&s->ph, PB_WALL_STOP, &tw);
            if (stop || !measure(s, &op, mode, &res[place]))
                break;
            shown[place] = &res[place];
            pb_table_account(&sum, &res[place]);
        }
        if (s->ctx->rank == 0 && !o->run.quiet && (shown[0] || shown[1])) {
            pb_progress_clear(&s->progress);
            pb_table_line_t l = {sizes[i], sizes[i] / pb_dtype_size(t), pb_dtype_name(t),
                                 redop, pb_coll_rooted(c) ? o->meas.root : -1, shown[0], shown[1]};
            pb_table_line(stdout, &l);
        }
    }
    if (s->ctx->rank == 0 && !o->run.quiet && !s->ctx->stopped_by)
        pb_table_footer(stdout, &sum);
    free(sizes);
}

static int make_group(sweep_t *s, pb_err_t *err)
{
    pb_ctx_t *ctx = s->ctx;
    int k = ctx->opt->meas.group_size;
    /* every rank holds the whole map: the same answer everywhere */
    pb_link_format(pb_nodemap_block_slowest(&ctx->map, k), s->link_class, sizeof s->link_class);
    if (k == 0 || k == ctx->size) {
        s->group_name = "world";
        return ctx->be.comm->split(ctx->world_group, 0, ctx->rank, &s->g, err);
    }
    if (ctx->size % k != 0)
        return pb_err_set(err, PB_EINPUT, "--group-size %d does not divide the %d launched ranks",
                          k, ctx->size);
    s->group_name = "split";
    return ctx->be.comm->split(ctx->world_group, ctx->rank / k, ctx->rank, &s->g, err);
}

int pb_coll_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    sweep_t s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    double t_start = pb_ctl_now();
    int code = make_group(&s, err);
    if (code == PB_OK)
        code = build_sizes(&s, err);
    s.skip_indivisible = !s.from_range && (o->meas.ncolls > 1 || o->meas.ndtypes > 1);
    s.rotate = pb_harness_rotate(o->meas.rotate, &ctx->be);
    if (code == PB_OK)
        code = validate(&s, err);
    /* input problems are found identically on every rank; allocation can
     * fail on one rank only, so agree before anyone starts measuring */
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    /* a size that cannot fit is refused, not tried (the counts of
     * all-to-all-v are the only other allocation) */
    code = pb_ctx_memory_fits(ctx, max_size(&s), 4u * (uint64_t)s.g->size * sizeof(uint64_t),
                              err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    code = pb_bufs_alloc(s.g, max_size(&s), &s.bufs, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    pb_coll_run_head(&s);
    pb_progress_start(&s.progress, pb_progress_wanted(ctx->rank, o->run.quiet),
                      count_measurements(&s));
    for (int ci = 0; ci < o->meas.ncolls; ci++) {
        pb_coll_t c = o->meas.colls[ci];
        for (int di = 0; di < o->meas.ndtypes; di++) {
            int nred = pb_coll_reduces(c) ? o->meas.nredops : 1;
            for (int ri = 0; ri < nred; ri++) {
                if (left_out(&s, c, o->meas.dtypes[di], o->meas.redops[ri]))
                    continue;
                for (int mi = 0; mi < o->meas.nmodes && !ctx->stopped_by; mi++)
                    run_table(&s, c, o->meas.dtypes[di], o->meas.redops[ri], o->meas.modes[mi]);
            }
        }
    }
    pb_progress_clear(&s.progress);
    s.ph.total = pb_ctl_now() - t_start;
    if (ctx->rank == 0 && pb_wall_wanted())
        pb_wall_print(stdout, "sweep", &s.ph);
    code = PB_OK;
    if (s.wrong_total > 0)
        code = pb_err_set(err, PB_EVERIFY, "verification failed: %" PRId64 " wrong elements",
                          s.wrong_total);
    if (ctx->rank == 0 && !o->run.quiet && ctx->csv_path && !ctx->stopped_by)
        printf("# results appended to %s\n", ctx->csv_path);
out:
    if (s.bufs.a2av || s.bufs.send)
        pb_bufs_free(s.g, &s.bufs);
    if (s.g)
        ctx->be.comm->group_free(s.g);
    free(s.sizes);
    return err->code ? err->code : code;
}

/* ---- the command: its table row ----------------------------------- */

static void coll_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    pb_meas_defaults(o);
}

const pb_cmd_desc_t pb_cmd_coll = {
    PB_CMD_COLL, "coll", "measure collectives (see parbench coll --help)",
    "usage: parbench coll [OPTIONS]\n",
    {{&pb_grp_what, NULL},
     {&pb_grp_sizes, NULL},
     {&pb_grp_timing, NULL},
     {&pb_grp_check, NULL},
     {&pb_grp_output, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_help, NULL}},
    "A size is the largest per-rank buffer (nccl-tests' convention): the message\n"
    "for allreduce, broadcast, reduce and sendrecv; the gathered output for\n"
    "allgather; the full input for reducescatter; one rank's send buffer for\n"
    "alltoall(v).  Range sizes are rounded down to what the collective needs.\n",
    0, coll_defaults, pb_meas_finish, NULL, NULL, pb_coll_cmd, 0, NULL};
