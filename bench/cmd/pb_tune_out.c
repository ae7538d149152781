/* pb_tune_out.c - what parbench tune says (rank 0): the job's cases with
 * the default's time, each candidate's paired verdict as it comes, then
 * per case the fastest setting proven faster, the job's setting (one
 * value per knob), its effect on the job's measured communication and on
 * the step the model predicts, tune.env and tune.csv. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_tune.h"
#include "../../reports/pb_tune_csv.h"
#include "../../tune/pb_tenv.h"

void pb_tune_print_cases(const pb_tune_t *t)
{
    double total = 0.0;
    for (size_t i = 0; i < t->ncases; i++)
        total += pb_tune_case_weight(&t->cases[i]);
    printf("#\n# the job's operations under the default (the launch's settings), heaviest "
           "first; share = time x count of the job's communication\n");
    printf("%-40s %12s %14s %8s\n", "#case", "count/step", "default(us)", "share");
    for (size_t i = 0; i < t->ncases; i++) {
        const pb_tune_case_t *c = &t->cases[i];
        char nm[96];
        pb_tune_case_name(t, c, nm, sizeof nm);
        printf("%-40s %12" PRIu64 " %14.2f %7.1f%%%s\n", nm, c->count, c->def_s * 1e6,
               total > 0.0 ? 100.0 * pb_tune_case_weight(c) / total : 0.0,
               c->minor ? "  not tuned: the cases above make up 99% of the job" : "");
    }
    printf("#\n# each setting timed against the default in alternating pairs on the job's own "
           "groups; ratio = setting / default (below 1: faster), the median of the pairs with "
           "its 95%% interval\n");
    printf("%-48s %-40s %5s %8s %17s  %s\n", "#setting", "case", "pairs", "ratio", "95% CI",
           "verdict");
    fflush(stdout);
}

static const char *verdict_of(const pb_tres_t *r)
{
    return r->c.state == PB_TCELL_WRONG ? "WRONG results" : pb_tv_name(r->c.v.v);
}

void pb_tune_print_cand(const pb_tune_t *t, size_t i)
{
    char set[256];
    pb_tcand_format(&t->cands[i], 1, set, sizeof set);
    int shown = 0;
    for (size_t ci = 0; ci < t->ncases; ci++) {
        const pb_tres_t *r = &t->res[i][ci];
        if (r->c.state != PB_TCELL_DONE && r->c.state != PB_TCELL_WRONG)
            continue;
        char nm[96], ci95[40];
        pb_tune_case_name(t, &t->cases[ci], nm, sizeof nm);
        snprintf(ci95, sizeof ci95, "%.3f-%.3f", r->c.v.lo, r->c.v.hi);
        printf("%-48s %-40s %5zu %8.3f %17s  %s%s\n", set, nm, r->c.v.n, r->c.v.ratio, ci95,
               verdict_of(r), r->cut ? " (pairs cut by the budget)" : "");
        shown = 1;
    }
    if (!shown && t->cand_note[i][0])
        printf("%-48s %s\n", set, t->cand_note[i]);
    fflush(stdout);
}

double pb_tune_score(const pb_tune_t *t, size_t i)
{
    pb_tcell_t row[PB_TUNE_CASES];
    double w[PB_TUNE_CASES];
    for (size_t ci = 0; ci < t->ncases; ci++) {
        row[ci] = t->res[i][ci].c;
        w[ci] = pb_tune_case_weight(&t->cases[ci]);
    }
    return pb_tplan_score(row, w, t->ncases);
}

/* Case ci's ratio under the job's setting (the chosen candidates). */
static double job_ratio(const pb_tune_t *t, const size_t *chosen, size_t n, size_t ci)
{
    for (size_t j = 0; j < n; j++)
        if (t->res[chosen[j]][ci].c.state != PB_TCELL_NONE)
            return pb_tcell_ratio(&t->res[chosen[j]][ci].c);
    return 1.0;
}

static void print_winners(const pb_tune_t *t)
{
    printf("#\n# per case: the setting measured fastest among those proven faster than the "
           "default\n");
    printf("%-40s %-48s %8s %17s\n", "#case", "fastest setting", "ratio", "95% CI");
    for (size_t ci = 0; ci < t->ncases; ci++) {
        long best = -1;
        for (size_t i = 0; i < t->ncands; i++) {
            const pb_tres_t *r = &t->res[i][ci];
            if (r->c.state == PB_TCELL_DONE && r->c.v.v == PB_TV_FASTER &&
                (best < 0 || r->c.v.ratio < t->res[best][ci].c.v.ratio))
                best = (long)i;
        }
        char nm[96], set[256] = "no change: nothing measured was faster", ci95[40] = "";
        if (t->cases[ci].minor)
            snprintf(set, sizeof set, "not tuned (under 1%% of the job)");
        pb_tune_case_name(t, &t->cases[ci], nm, sizeof nm);
        if (best >= 0) {
            const pb_tres_t *r = &t->res[best][ci];
            pb_tcand_format(&t->cands[best], 1, set, sizeof set);
            snprintf(ci95, sizeof ci95, "%.3f-%.3f", r->c.v.lo, r->c.v.hi);
            printf("%-40s %-48s %8.3f %17s\n", nm, set, r->c.v.ratio, ci95);
        } else {
            printf("%-40s %s\n", nm, set);
        }
    }
}

/* The env file's items and the reason beside each. */
static size_t env_items(const pb_tune_t *t, const size_t *chosen, size_t n,
                        pb_tenv_item_t *items, size_t cap)
{
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        const pb_tcand_t *c = &t->cands[chosen[j]];
        double best = 2.0;
        size_t bc = 0;
        for (size_t ci = 0; ci < t->ncases; ci++) {
            const pb_tres_t *r = &t->res[chosen[j]][ci];
            if (r->c.state == PB_TCELL_DONE && r->c.v.v == PB_TV_FASTER && r->c.v.ratio < best) {
                best = r->c.v.ratio;
                bc = ci;
            }
        }
        char nm[96];
        pb_tune_case_name(t, &t->cases[bc], nm, sizeof nm);
        const pb_tres_t *r = &t->res[chosen[j]][bc];
        for (int s = 0; s < c->n && k < cap; s++, k++) {
            items[k].knob = c->set[s].knob;
            items[k].value = c->set[s].value;
            snprintf(items[k].why, sizeof items[k].why,
                     "x%.3f of the job's communication time; %s x%.3f (%.3f-%.3f)",
                     pb_tune_score(t, chosen[j]), nm, r->c.v.ratio, r->c.v.lo, r->c.v.hi);
        }
    }
    return k;
}

static void print_effect(const pb_tune_t *t, const size_t *chosen, size_t n)
{
    double def = 0.0, tuned = 0.0, sdef[PB_STRAT_COUNT] = {0}, stuned[PB_STRAT_COUNT] = {0};
    for (size_t ci = 0; ci < t->ncases; ci++) {
        const pb_tune_case_t *c = &t->cases[ci];
        double r = job_ratio(t, chosen, n, ci);
        def += pb_tune_case_weight(c);
        tuned += pb_tune_case_weight(c) * r;
        if (c->strategy >= 0) {
            sdef[c->strategy] += pb_tune_case_weight(c);
            stuned[c->strategy] += pb_tune_case_weight(c) * r;
        }
    }
    int ms = def < 10.0; /* milliseconds up to 10 s, seconds past */
    printf("# measured communication %s: %.3f %s under the default, %.3f %s under the job's "
           "setting (%+.1f%%)\n",
           t->have_plan ? "per step (time x count of every case)" : "of one pass over the cases",
           ms ? def * 1e3 : def, ms ? "ms" : "s", ms ? tuned * 1e3 : tuned, ms ? "ms" : "s",
           def > 0.0 ? 100.0 * (tuned / def - 1.0) : 0.0);
    if (!t->have_plan)
        return;
    double ratio[PB_STRAT_COUNT];
    for (int s = 0; s < PB_STRAT_COUNT; s++)
        ratio[s] = sdef[s] > 0.0 ? stuned[s] / sdef[s] : 1.0;
    pb_tune_print_step(t, ratio);
}

static void fill_row(const pb_tune_t *t, size_t ci, pb_tune_row_t *row)
{
    const pb_tune_case_t *c = &t->cases[ci];
    memset(row, 0, sizeof *row);
    snprintf(row->run_id, sizeof row->run_id, "%s", t->ctx->run_id);
    snprintf(row->backend, sizeof row->backend, "%s", t->ctx->be.comm->name);
    snprintf(row->group, sizeof row->group, "%s", pb_tune_group_name(t, c));
    row->group_size = c->gsize;
    snprintf(row->collective, sizeof row->collective, "%s", pb_coll_name(c->op.coll));
    row->bytes = c->op.bytes;
    snprintf(row->dtype, sizeof row->dtype, "%s", pb_dtype_name(c->op.dtype));
    row->count = c->count;
    row->wrong = -1;
}

/* Every case's default, then every candidate on every case it can
 * change (measured or not, with why). */
static int write_csv(const pb_tune_t *t, pb_err_t *err)
{
    size_t cap = t->ncases * (t->ncands + 1), n = 0;
    pb_tune_row_t *rows = calloc(cap ? cap : 1, sizeof *rows);
    if (rows == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    for (size_t ci = 0; ci < t->ncases; ci++, n++) {
        fill_row(t, ci, &rows[n]);
        snprintf(rows[n].setting, sizeof rows[n].setting, "default");
        rows[n].pairs = 1;
        rows[n].default_us = rows[n].candidate_us = t->cases[ci].def_s * 1e6;
        rows[n].ratio = rows[n].ratio_lo = rows[n].ratio_hi = 1.0;
        snprintf(rows[n].verdict, sizeof rows[n].verdict, "default");
        if (t->cases[ci].minor)
            snprintf(rows[n].note, sizeof rows[n].note, "not tuned: the heavier cases make up "
                     "%.0f%% of the job's communication", PB_TUNE_COVER * 100.0);
    }
    for (size_t i = 0; i < t->ncands; i++)
        for (size_t ci = 0; ci < t->ncases; ci++) {
            const pb_tres_t *r = &t->res[i][ci];
            if (r->c.state == PB_TCELL_NONE)
                continue;
            pb_tune_row_t *w = &rows[n++];
            fill_row(t, ci, w);
            pb_tcand_format(&t->cands[i], 0, w->setting, sizeof w->setting);
            w->wrong = r->wrong;
            if (r->c.state == PB_TCELL_SKIPPED) {
                snprintf(w->verdict, sizeof w->verdict, "not measured");
                snprintf(w->note, sizeof w->note, "%s", t->cand_note[i]);
                continue;
            }
            w->pairs = r->c.v.n;
            w->default_us = r->def_med * 1e6;
            w->candidate_us = r->cand_med * 1e6;
            w->ratio = r->c.v.ratio;
            w->ratio_lo = r->c.v.lo;
            w->ratio_hi = r->c.v.hi;
            snprintf(w->verdict, sizeof w->verdict, "%s",
                     r->c.state == PB_TCELL_WRONG ? "wrong" : pb_tv_name(r->c.v.v));
            if (r->cut)
                snprintf(w->note, sizeof w->note, "pairs cut short by the budget");
        }
    int code = pb_tune_csv_write(t->o->tune.csv_path, rows, n, err);
    free(rows);
    return code;
}

static int write_env(const pb_tune_t *t, const pb_tenv_item_t *items, size_t n, pb_err_t *err)
{
    FILE *f = fopen(t->o->tune.env_path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write '%s'", t->o->tune.env_path);
    char head[512];
    snprintf(head, sizeof head, "parbench tune, run %s: backend %s (%s), %d ranks on %d node%s; "
             "source this file before the job's launch",
             t->ctx->run_id, t->ctx->be.comm->name, t->ctx->version, t->ctx->size,
             t->ctx->nodes, t->ctx->nodes == 1 ? "" : "s");
    int code = pb_tenv_write(f, head, items, n, err);
    if (fclose(f) != 0 && code == PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "writing '%s' failed", t->o->tune.env_path);
    return code;
}

int pb_tune_finish_out(pb_tune_t *t, pb_err_t *err)
{
    size_t chosen[PB_TUNE_CANDS];
    double score[PB_TUNE_CANDS];
    for (size_t i = 0; i < t->ncands; i++)
        score[i] = pb_tune_score(t, i);
    size_t n = pb_tplan_choose(t->lib, t->cands, score, t->ncands, chosen);
    print_winners(t);
    pb_tenv_item_t items[PB_TUNE_CANDS];
    size_t nitems = env_items(t, chosen, n, items, PB_TUNE_CANDS);
    printf("#\n# the job's setting (one value per knob, over all of its sizes): ");
    if (nitems == 0)
        printf("the default - no setting was measured faster where it counts\n");
    for (size_t k = 0; k < nitems; k++) {
        char v[64];
        pb_knob_label(items[k].knob, (size_t)items[k].value, v, sizeof v);
        printf("%s%s=%s", k ? ", " : "", items[k].knob->name, v);
    }
    if (nitems)
        printf("\n");
    print_effect(t, chosen, n);
    if (t->nskipped_budget)
        printf("# %zu setting%s not measured within --budget %.3g s (listed in %s)\n",
               t->nskipped_budget, t->nskipped_budget == 1 ? "" : "s", t->o->tune.budget_s,
               t->o->tune.csv_path);
    if (t->skipped_knobs[0])
        printf("# not searched: %s (read once per process: each value needs a launch of its "
               "own)\n", t->skipped_knobs);
    int code = write_env(t, items, nitems, err);
    if (code == PB_OK)
        code = write_csv(t, err);
    if (code == PB_OK)
        printf("# wrote %s (source it in the job script) and %s (every candidate); %.0f s "
               "spent\n",
               t->o->tune.env_path, t->o->tune.csv_path, t->spent);
    fflush(stdout);
    return code;
}
