/* pb_profile_print.c - profile's tables on stdout (pb_profile_print.h).
 * Lines starting '#' say what a table is; the rows are fixed-width
 * columns a script can cut. */
#include "pb_profile_print.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "../../jobprof/pb_jp_trace.h"
#include "../../reports/pb_report.h"

/* at most this many rows of the calibration's slow list, the ranks and
 * the worst lags: the rest is in --html */
#define MAX_SLOW 20
#define MAX_RANKS 10
#define MAX_WORST 5

static void summary(const pb_jp_html_in_t *in)
{
    const pb_jobprof_t *jp = in->jp;
    const pb_jp_shape_t *sh = in->shape;
    printf("# recording: %s: %s, %d ranks, %zu communicators, %zu records, %zu operations\n",
           in->source, jp->source, sh->world, jp->ncomms, jp->nops, in->insts->n);
    if (jp->every > 1 || jp->dropped || jp->ranks_guessed)
        printf("# recording: one operation in %d recorded, %llu dropped%s\n", jp->every,
               (unsigned long long)jp->dropped,
               jp->ranks_guessed ? "; global ranks not recorded, assigned in host order" : "");
    if (sh->consistent)
        printf("# layout (%s): tp %d, cp %d, dp %d, pp %d\n",
               in->layout_given ? "given" : "inferred from the communicators", sh->tp, sh->cp,
               sh->dp, sh->pp);
    else
        printf("# layout: not inferred (the member sets do not decide it; give --tp, --cp, "
               "--pp)\n");
}

static void comms(const pb_jp_html_in_t *in)
{
    printf("\n# communicators: members are global ranks; time: summed durations, share of the "
           "job's\n%5s %-7s %6s %-24s %10s %10s %10s %7s\n", "comm", "dim", "ranks", "members",
           "ops", "bytes", "time ms", "share");
    for (size_t c = 0; c < in->jp->ncomms; c++) {
        const pb_jcomm_t *cm = &in->jp->comms[c];
        pb_jp_stat_t t = pb_jp_stats_comm(in->stats, (int)c);
        char mem[64], b[32];
        pb_jp_members_text(cm, 6, mem, sizeof mem);
        pb_report_bytes(b, sizeof b, (double)t.bytes);
        printf("%5zu %-7s %6d %-24s %10llu %10s %10.3f %6.1f%%\n", c, pb_jdim_name(cm->dim),
               cm->nranks, mem, (unsigned long long)t.count, b, (double)t.time_ns / 1e6,
               100 * t.share);
    }
}

static void traffic(const pb_jp_html_in_t *in)
{
    printf("\n# traffic per communicator, operation and size bucket (powers of 4)\n"
           "%5s %-7s %-14s %-22s %8s %10s %10s %7s %10s\n", "comm", "dim", "operation",
           "sizes", "count", "bytes", "time ms", "share", "busbw GB/s");
    for (size_t i = 0; i < in->stats->n; i++) {
        const pb_jp_stat_t *r = &in->stats->rows[i];
        char sizes[64] = "all", lo[24], hi[24], b[32];
        if (r->bucket >= 0) {
            pb_report_bytes(lo, sizeof lo, (double)pb_jp_bucket_lo(r->bucket));
            pb_report_bytes(hi, sizeof hi, (double)pb_jp_bucket_lo(r->bucket + 1));
            snprintf(sizes, sizeof sizes, "  %s - %s", lo, hi);
        }
        pb_report_bytes(b, sizeof b, (double)r->bytes);
        printf("%5d %-7s %-14s %-22s %8llu %10s %10.3f %6.1f%% %10.4g\n", r->comm,
               pb_jdim_name(in->jp->comms[r->comm].dim),
               pb_jp_op_name(r->known, r->kind, r->coll, r->func), sizes,
               (unsigned long long)r->count, b, (double)r->time_ns / 1e6, 100 * r->share,
               r->busbw_gbps);
    }
}

static int by_eff(const void *pa, const void *pb)
{
    const pb_jp_eff_t *a = *(const pb_jp_eff_t *const *)pa, *b = *(const pb_jp_eff_t *const *)pb;
    return (a->eff > b->eff) - (a->eff < b->eff);
}

static void calib(const pb_jp_html_in_t *in)
{
    const pb_jp_calcmp_t *c = in->cal;
    if (c == NULL)
        return;
    printf("\n# against the calibration: %zu of %zu rows (comm, operation, size) have a curve; "
           "median efficiency %.2f; %zu below %.2f\n",
           c->covered, c->n, c->median_eff, c->below, c->threshold);
    const pb_jp_eff_t **slow = malloc((c->below ? c->below : 1) * sizeof *slow);
    if (slow == NULL || c->below == 0) {
        free(slow);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->rows[i].below)
            slow[n++] = &c->rows[i];
    if (n > 0) /* qsort wants a valid array even for none */
        qsort(slow, n, sizeof *slow, by_eff);
    printf("%5s %-7s %-10s %10s %6s %-7s %10s %12s %12s %6s\n", "comm", "dim", "operation",
           "bytes", "ranks", "nodes", "median us", "busbw GB/s", "curve GB/s", "eff");
    for (size_t i = 0; i < n && i < MAX_SLOW; i++) {
        const pb_jp_eff_t *r = slow[i];
        char b[32];
        pb_report_bytes(b, sizeof b, (double)r->bytes);
        printf("%5d %-7s %-10s %10s %6d %-7s %10.1f %12.2f %12.2f %6.2f\n", r->comm,
               pb_jdim_name(in->jp->comms[r->comm].dim), pb_jp_op_name(1, r->kind, r->coll, ""),
               b, r->n, r->net ? "across" : "within", r->achieved_us, r->achieved_busbw,
               r->predicted_busbw, r->eff);
    }
    if (n > MAX_SLOW)
        printf("# ... %zu more (--html lists them all)\n", n - MAX_SLOW);
    free(slow);
}

static void stragglers(const pb_jp_html_in_t *in)
{
    const pb_jp_strag_t *s = in->strag;
    printf("\n# stragglers: %llu collectives matched on every member (%llu not); %llu with "
           "the last rank %.0f us or more behind the one before it\n",
           (unsigned long long)s->matched, (unsigned long long)s->unmatched,
           (unsigned long long)s->late, (double)s->min_lag_ns / 1e3);
    if (s->nranks == 0)
        return;
    printf("%6s %-22s %8s %8s %8s %14s %s\n", "rank", "where", "last", "of", "chance",
           "mean lag us", "repeatedly last");
    for (size_t i = 0; i < s->nranks && i < MAX_RANKS; i++) {
        const pb_jp_rank_late_t *r = &s->ranks[i];
        char where[32];
        pb_jp_coords(in->shape, r->rank, where, sizeof where);
        printf("%6d %-22s %8llu %8llu %8.1f %14.1f %s\n", r->rank, where[0] ? where : "-",
               (unsigned long long)r->last, (unsigned long long)r->ops, r->chance,
               r->mean_lag_ns / 1e3, r->repeated ? "yes" : "no");
    }
    printf("# the largest lags\n%5s %-7s %-14s %10s %6s %10s\n", "comm", "dim", "operation",
           "seq", "last", "lag us");
    for (int i = 0; i < s->nworst && i < MAX_WORST; i++) {
        const pb_jp_inst_t *x = &in->insts->v[s->worst[i].inst];
        printf("%5d %-7s %-14s %10llu %6d %10.1f\n", x->comm,
               pb_jdim_name(in->jp->comms[x->comm].dim),
               pb_jp_op_name(x->known, x->kind, x->coll, x->func), (unsigned long long)x->seq,
               s->worst[i].rank, (double)s->worst[i].lag_ns / 1e3);
    }
}

/* What the comparison leaves out, named: records of functions or types
 * the patterns do not hold (barriers, a uint8 flag's all-reduce), by
 * function and type, the first few. */
static void not_compared(const pb_jobprof_t *jp)
{
    enum { MAX_KINDS = 6 };
    struct {
        const pb_jop_t *o;
        size_t n;
    } k[MAX_KINDS];
    size_t nk = 0, total = 0;
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        if (o->known)
            continue;
        total++;
        size_t j = 0;
        while (j < nk && !(strcmp(k[j].o->func, o->func) == 0 &&
                           strcmp(k[j].o->dtype_name, o->dtype_name) == 0))
            j++;
        if (j < nk)
            k[j].n++;
        else if (nk < MAX_KINDS)
            k[nk].o = o, k[nk++].n = 1;
    }
    if (total == 0)
        return;
    printf("# not compared: %zu records of functions or types the patterns do not hold:", total);
    for (size_t j = 0; j < nk; j++)
        printf("%s %s%s%s x %zu", j ? "," : "", k[j].o->func, k[j].o->dtype_name[0] ? " of " : "",
               k[j].o->dtype_name, k[j].n);
    printf("%s\n", nk == MAX_KINDS ? ", ..." : "");
}

static void expect(const pb_jp_html_in_t *in)
{
    const pb_jp_expect_t *x = in->expect;
    if (x == NULL)
        return;
    if (x->steps)
        printf("\n# against the model: %llu step%s (%s); per step on the busiest rank\n",
               (unsigned long long)x->steps, x->steps == 1 ? "" : "s",
               x->steps_given ? "--steps" : "the count most operations agree on");
    else
        printf("\n# against the model: steps unknown, counts not compared (give --steps N); "
               "recorded counts are of the whole recording\n");
    printf("%-7s %-14s %12s %10s %12s %10s  %s\n", "dim", "operation", "model bytes", "per step",
           "rec. bytes", "per step", "verdict");
    for (size_t i = 0; i < x->n; i++) {
        const pb_jp_xrow_t *r = &x->rows[i];
        char eb[32] = "-", rb[32] = "-", ec[24] = "-", rc[24] = "-";
        if (r->exp_bytes)
            pb_report_bytes(eb, sizeof eb, (double)r->exp_bytes);
        if (r->exp_count)
            snprintf(ec, sizeof ec, "%llu", (unsigned long long)r->exp_count);
        if (r->rec_total)
            pb_report_bytes(rb, sizeof rb, (double)r->rec_bytes);
        if (r->rec_total && r->rec_count >= 0)
            snprintf(rc, sizeof rc, "%.2f", r->rec_count);
        else if (r->rec_total)
            snprintf(rc, sizeof rc, "%llu", (unsigned long long)r->rec_total);
        printf("%-7s %-14s %12s %10s %12s %10s  %s\n", pb_jdim_name(r->dim),
               pb_coll_name(r->coll), eb, ec, rb, rc, pb_jx_name(r->verdict));
    }
    printf("# %zu ok, %zu count, %zu size, %zu missing, %zu extra\n", x->nverdict[PB_JX_MATCH],
           x->nverdict[PB_JX_COUNT], x->nverdict[PB_JX_SIZE], x->nverdict[PB_JX_MISSING],
           x->nverdict[PB_JX_EXTRA]);
    not_compared(in->jp);
}

void pb_profile_print(const pb_jp_html_in_t *in)
{
    summary(in);
    comms(in);
    traffic(in);
    calib(in);
    stragglers(in);
    expect(in);
}
