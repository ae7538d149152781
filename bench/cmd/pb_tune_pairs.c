/* pb_tune_pairs.c - one candidate setting against the default, on every
 * case of the job it can change.
 *
 * The setting is made, the candidate's groups are split under it, and
 * the setting is put back at once: the default's groups (split before
 * any setting) and the candidate's then live side by side and are timed
 * in pairs, back to back, the default first in even pairs and the
 * candidate first in odd ones (tune/pb_tverdict.h: a drift of the
 * machine hits both sides of a pair alike).  Each side is one harness
 * measurement with the timing options' precision; its median is the
 * slowest rank's, the same number on every rank, so every rank reaches
 * the same verdict without another exchange.
 *
 * The budget: a candidate starts only when its pairs, at the default's
 * measured cost, fit in what is left; a pair starts only when it fits at
 * the cost of the pair before it, so a candidate slower than its
 * estimate is cut short (its verdict then comes from fewer pairs, with
 * the wider interval that gives, and below PB_TV_MIN_PAIRS is "not
 * enough pairs": tune/pb_tverdict.h) instead of overrunning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_tune.h"
#include "../../util/pb_stats.h"

/* Whether work estimated at est seconds (this rank's estimate) starts:
 * every rank must decide alike, so the answer is the AND of theirs. */
static int agree_fits(pb_tune_t *t, double est)
{
    int go = pb_tplan_fits(t->o->tune.budget_s, pb_tune_clock(t), est);
    if (pb_ctl_allreduce(t->ctx->world, &go, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK)
        pb_ctx_abort(t->ctx, &(pb_err_t){PB_ERUNTIME, "the agreement on the budget failed"});
    return go;
}

static int affects(const pb_tcand_t *c, const pb_tune_case_t *k)
{
    for (int j = 0; j < c->n; j++)
        if (pb_knob_affects(c->set[j].knob, pb_coll_name(k->op.coll)))
            return 1;
    return 0;
}

/* Makes the candidate's settings (on) or puts the launch's back (off). */
static int apply(pb_tune_t *t, const pb_tcand_t *c, int on, pb_err_t *err)
{
    pb_backend_t *be = &t->ctx->be;
    for (int j = 0; j < c->n; j++) {
        char v[64];
        pb_knob_value(c->set[j].knob, (size_t)c->set[j].value, v, sizeof v);
        if (be->comm->knob(be, c->set[j].knob->name, on ? v : NULL, err) != PB_OK)
            return err->code;
    }
    return PB_OK;
}

static double median_of(double *x, size_t n)
{
    pb_stats_sort(x, n);
    return pb_quantile_sorted(x, n, 0.5);
}

/* The pairs of candidate i on case ci, on the candidate's group gc. */
static int run_pairs(pb_tune_t *t, size_t i, size_t ci, pb_group_t *gc, pb_err_t *err)
{
    pb_tune_case_t *c = &t->cases[ci];
    pb_tres_t *r = &t->res[i][ci];
    size_t np = t->cand_pairs[i], n = 0;
    double *def = calloc(3 * np, sizeof *def);
    if (def == NULL)
        pb_ctx_abort(t->ctx, &(pb_err_t){PB_ERUNTIME, "out of memory"});
    double *cand = def + np, *scratch = cand + np;
    pb_bufs_t b;
    if (pb_tune_bufs(t, c, &b, err) != PB_OK) {
        free(def);
        return err->code;
    }
    char setting[256];
    pb_tcand_format(&t->cands[i], 0, setting, sizeof setting);
    pb_group_t *gd = t->def[c->kind];
    double est = 2.0 * c->def_wall;
    for (size_t p = 0; p < np; p++, n++) {
        if (!agree_fits(t, est)) {
            r->cut = 1;
            break;
        }
        int cfirst = (int)(p % 2);
        double m1 = 0.0, m2 = 0.0, w1 = 0.0, w2 = 0.0;
        if (pb_tune_time(t, cfirst ? gc : gd, &c->op, &b, cfirst ? setting : "the default", &m1,
                         &w1) ||
            pb_tune_time(t, cfirst ? gd : gc, &c->op, &b, cfirst ? "the default" : setting, &m2,
                         &w2))
            break; /* a signal: every rank stops here alike */
        def[n] = cfirst ? m2 : m1;
        cand[n] = cfirst ? m1 : m2;
        est = w1 + w2;
    }
    int code = PB_OK;
    r->c.state = PB_TCELL_SKIPPED;
    r->wrong = -1;
    if (n > 0 && (code = pb_tverdict(def, cand, n, scratch, &r->c.v, err)) == PB_OK) {
        r->c.state = PB_TCELL_DONE;
        r->def_med = median_of(def, n);
        r->cand_med = median_of(cand, n);
        if (t->o->meas.check && !pb_ctx_stopping(t->ctx)) {
            r->wrong = pb_tune_verify(t, gc, &c->op, &b);
            if (r->wrong > 0)
                r->c.state = PB_TCELL_WRONG;
        }
    }
    pb_bufs_free(gd, &b);
    free(def);
    return code;
}

/* Marks every case the candidate changes as not measured, with why. */
static void leave_out(pb_tune_t *t, size_t i, const char *why)
{
    snprintf(t->cand_note[i], sizeof t->cand_note[i], "%.120s", why);
    for (size_t ci = 0; ci < t->ncases; ci++)
        if (t->res[i][ci].c.state != PB_TCELL_NONE)
            t->res[i][ci].c.state = PB_TCELL_SKIPPED;
}

/* The candidate's groups: every kind its cases use, split under it.
 * Agreed: a setting the library refuses on one rank fails everywhere. */
static int cand_groups(pb_tune_t *t, size_t i, pb_group_t **g, pb_err_t *err)
{
    int code = apply(t, &t->cands[i], 1, err);
    for (size_t ci = 0; ci < t->ncases && code == PB_OK; ci++) {
        int k = t->cases[ci].kind;
        if (t->res[i][ci].c.state != PB_TCELL_NONE && g[k] == NULL)
            code = pb_tune_split(t, k, &g[k], err);
    }
    pb_err_t back;
    pb_err_clear(&back);
    int put = apply(t, &t->cands[i], 0, &back);
    if (code == PB_OK && put != PB_OK) {
        *err = back;
        code = put;
    }
    return pb_ctx_agree(t->ctx, code, err);
}

/* The pairs candidate i gets: --pairs, or as many as fit in what is
 * left of the budget at the default's cost (per_pair seconds, this
 * rank's estimate), the same number on every rank; 0 below
 * PB_TV_MIN_PAIRS, the fewest that give an interval (--pairs is never
 * fewer: pb_cmd_tune.c refuses it). */
static size_t pairs_that_fit(pb_tune_t *t, double per_pair)
{
    double want = (double)t->o->tune.pairs, left = t->o->tune.budget_s - pb_tune_clock(t);
    double fit = t->o->tune.budget_s <= 0.0 ? want : per_pair > 0.0 ? left / per_pair : want;
    fit = fit < want ? fit : want;
    if (pb_ctl_allreduce(t->ctx->world, &fit, 1, PB_CTL_DOUBLE, PB_CTL_MIN) != PB_OK)
        pb_ctx_abort(t->ctx, &(pb_err_t){PB_ERUNTIME, "the agreement on the budget failed"});
    return fit >= (double)PB_TV_MIN_PAIRS ? (size_t)fit : 0;
}

int pb_tune_measure(pb_tune_t *t, size_t i, pb_err_t *err)
{
    const pb_tcand_t *cand = &t->cands[i];
    double per_pair = 0.0;
    int any = 0;
    for (size_t ci = 0; ci < t->ncases; ci++) {
        int a = !t->cases[ci].minor && affects(cand, &t->cases[ci]);
        t->res[i][ci].c.state = a ? PB_TCELL_SKIPPED : PB_TCELL_NONE;
        per_pair += a ? 2.0 * t->cases[ci].def_wall : 0.0;
        any |= a;
    }
    t->cand_per_pair[i] = per_pair;
    if (!any) {
        snprintf(t->cand_note[i], sizeof t->cand_note[i], "changes none of the cases tuned");
        return PB_OK;
    }
    if ((t->cand_pairs[i] = pairs_that_fit(t, per_pair)) == 0) {
        char why[128];
        size_t least = PB_TV_MIN_PAIRS;
        double left = t->o->tune.budget_s - t->spent;
        snprintf(why, sizeof why, "not measured: %zu pairs take about %.3g s, the budget has "
                 "%.3g s left", least, per_pair * (double)least, left > 0.0 ? left : 0.0);
        leave_out(t, i, why);
        t->cand_budget[i] = 1;
        t->nskipped_budget++;
        return PB_OK;
    }
    pb_group_t *g[PB_TUNE_KINDS] = {NULL};
    pb_err_t why;
    pb_err_clear(&why);
    int code = PB_OK;
    if (cand_groups(t, i, g, &why) != PB_OK) {
        /* the library would not make it: reported and left out, the
         * search goes on */
        leave_out(t, i, why.msg);
    } else {
        for (size_t ci = 0; ci < t->ncases && code == PB_OK && !pb_ctx_stopping(t->ctx); ci++)
            if (t->res[i][ci].c.state != PB_TCELL_NONE)
                code = run_pairs(t, i, ci, g[t->cases[ci].kind], err);
    }
    for (int k = 0; k < PB_TUNE_KINDS; k++)
        if (g[k])
            t->ctx->be.comm->group_free(g[k]);
    return code;
}
