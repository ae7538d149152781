/* pb_tune_out.c - what parbench tune says (rank 0): the job's cases with
 * the default's time, each candidate's paired verdict as it comes, then
 * per case the fastest setting proven faster, the job's setting
 * (pb_tune_choose.c), its effect on the job's measured communication and
 * on the step the model predicts, tune.env (with Open MPI's rules file)
 * and tune.csv. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_tune.h"
#include "../../reports/pb_tune_csv.h"

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
        char nm[96], ci95[40] = "-"; /* "not enough pairs" has no interval */
        pb_tune_case_name(t, &t->cases[ci], nm, sizeof nm);
        if (r->c.v.v != PB_TV_FEW)
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

/* What case ci says when no setting was proven faster on it: why. */
static void no_winner(const pb_tune_t *t, size_t ci, char *buf, size_t len)
{
    int measured = 0, budget = 0, reached = 0;
    for (size_t i = 0; i < t->ncands; i++) {
        const pb_tres_t *r = &t->res[i][ci];
        reached |= r->c.state != PB_TCELL_NONE;
        measured |= r->c.state == PB_TCELL_DONE || r->c.state == PB_TCELL_WRONG;
        budget |= r->c.state == PB_TCELL_SKIPPED && (t->cand_budget[i] || r->cut);
    }
    if (t->cases[ci].minor)
        snprintf(buf, len, "not tuned (under 1%% of the job)");
    else if (measured)
        snprintf(buf, len, "no change: nothing measured was faster");
    else if (budget)
        snprintf(buf, len, "nothing was measured: raise --budget to about %.0f s",
                 ceil(pb_tune_budget_needed(t)));
    else
        snprintf(buf, len, "nothing was measured: %s", reached ? "every setting failed "
                 "(tune.csv says why)" : "no setting searched changes it");
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
        char nm[96], set[256], ci95[40] = "";
        pb_tune_case_name(t, &t->cases[ci], nm, sizeof nm);
        if (best >= 0) {
            const pb_tres_t *r = &t->res[best][ci];
            pb_tcand_format(&t->cands[best], 1, set, sizeof set);
            snprintf(ci95, sizeof ci95, "%.3f-%.3f", r->c.v.lo, r->c.v.hi);
            printf("%-40s %-48s %8.3f %17s\n", nm, set, r->c.v.ratio, ci95);
        } else {
            no_winner(t, ci, set, sizeof set);
            printf("%-40s %s\n", nm, set);
        }
    }
}

/* The effect of the job's setting: on the job's measured communication,
 * and for a model on the step, part by part (pb_tune_part_ratios). */
static void print_effect(const pb_tune_t *t, const pb_tune_job_t *job)
{
    double def = 0.0, tuned = 0.0, w[PB_TUNE_CASES], ratio[PB_TUNE_CASES];
    int strat[PB_TUNE_CASES];
    for (size_t ci = 0; ci < t->ncases; ci++) {
        long a = job->apply[ci];
        w[ci] = pb_tune_case_weight(&t->cases[ci]);
        ratio[ci] = a >= 0 ? pb_tcell_ratio(&t->res[a][ci].c) : 1.0;
        strat[ci] = t->cases[ci].strategy;
        def += w[ci];
        tuned += w[ci] * ratio[ci];
    }
    int ms = def < 10.0; /* milliseconds up to 10 s, seconds past */
    printf("# measured communication %s: %.3f %s under the default, %.3f %s under the job's "
           "setting (%+.1f%%)\n",
           t->have_plan ? "per step (time x count of every case)" : "of one pass over the cases",
           ms ? def * 1e3 : def, ms ? "ms" : "s", ms ? tuned * 1e3 : tuned, ms ? "ms" : "s",
           def > 0.0 ? 100.0 * (tuned / def - 1.0) : 0.0);
    if (!t->have_plan)
        return;
    double part[PB_PART_COUNT];
    pb_tune_part_ratios(strat, w, ratio, t->ncases, part);
    pb_tune_print_step(t, part);
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
            /* "not enough pairs": ratio_lo and ratio_hi are NaN, written empty */
            snprintf(w->note, sizeof w->note, "%s%s%s",
                     r->c.v.v == PB_TV_FEW ? "fewer than 6 pairs: no 95% interval, no verdict"
                                           : "",
                     r->c.v.v == PB_TV_FEW && r->cut ? "; " : "",
                     r->cut ? "pairs cut short by the budget" : "");
        }
    int code = pb_tune_csv_write(t->o->tune.csv_path, rows, n, err);
    free(rows);
    return code;
}

/* Open MPI's rules file beside the env file: --env with ".env" replaced
 * by ".rules" (or ".rules" added), as an absolute path, which tune.env
 * names so that the job script may source it from anywhere. */
static void rules_path(const pb_tune_t *t, char *buf, size_t len)
{
    const char *env = t->o->tune.env_path;
    size_t n = strlen(env);
    int dotenv = n > 4 && strcmp(env + n - 4, ".env") == 0;
    char cwd[4096] = "";
    if (env[0] != '/' && getcwd(cwd, sizeof cwd) == NULL)
        cwd[0] = '\0'; /* then relative: still right from the directory tune ran in */
    snprintf(buf, len, "%s%s%.*s.rules", cwd, cwd[0] ? "/" : "", (int)(dotenv ? n - 4 : n), env);
}

static int write_rules(const pb_tune_t *t, pb_tune_job_t *job, pb_err_t *err)
{
    FILE *f = fopen(job->rules_path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write '%s'", job->rules_path);
    char head[512];
    snprintf(head, sizeof head, "parbench tune, run %s: backend %s (%s), %d ranks; named by "
             "%s", t->ctx->run_id, t->ctx->be.comm->name, t->ctx->version, t->ctx->size,
             t->o->tune.env_path);
    int code = pb_trules_write(f, head, job->rules, job->nrules, err);
    if (fclose(f) != 0 && code == PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "writing '%s' failed", job->rules_path);
    return code;
}

static int write_env(const pb_tune_t *t, const pb_tune_job_t *job, pb_err_t *err)
{
    FILE *f = fopen(t->o->tune.env_path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write '%s'", t->o->tune.env_path);
    char head[512], none[160] = "";
    snprintf(head, sizeof head, "parbench tune, run %s: backend %s (%s), %d ranks on %d node%s; "
             "source this file before the job's launch",
             t->ctx->run_id, t->ctx->be.comm->name, t->ctx->version, t->ctx->size,
             t->ctx->nodes, t->ctx->nodes == 1 ? "" : "s");
    int measured = 0;
    for (size_t i = 0; i < t->ncands; i++)
        for (size_t ci = 0; ci < t->ncases; ci++)
            measured |= t->res[i][ci].c.state == PB_TCELL_DONE ||
                        t->res[i][ci].c.state == PB_TCELL_WRONG;
    if (!measured)
        snprintf(none, sizeof none, "nothing was measured within --budget %.3g s: raise it to "
                 "about %.0f s; nothing to set", t->o->tune.budget_s,
                 ceil(pb_tune_budget_needed(t)));
    int code = pb_tenv_write(f, head, job->items, job->nitems, none[0] ? none : NULL, err);
    if (fclose(f) != 0 && code == PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "writing '%s' failed", t->o->tune.env_path);
    return code;
}

int pb_tune_finish_out(pb_tune_t *t, pb_err_t *err)
{
    pb_tune_job_t *job = malloc(sizeof *job);
    if (job == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    char rules[4096];
    rules_path(t, rules, sizeof rules);
    pb_tune_choose(t, rules, job);
    print_winners(t);
    pb_tune_print_job(t, job);
    print_effect(t, job);
    if (t->nskipped_budget)
        printf("# %zu setting%s not measured within --budget %.3g s (listed in %s)\n",
               t->nskipped_budget, t->nskipped_budget == 1 ? "" : "s", t->o->tune.budget_s,
               t->o->tune.csv_path);
    if (t->skipped_knobs[0])
        printf("# not searched: %s (read once per process: each value needs a launch of its "
               "own)\n", t->skipped_knobs);
    int code = job->nrules > 0 ? write_rules(t, job, err) : PB_OK;
    if (code == PB_OK)
        code = write_env(t, job, err);
    if (code == PB_OK)
        code = write_csv(t, err);
    if (code == PB_OK)
        printf("# wrote %s (source it in the job script)%s%s and %s (every candidate); %.0f s "
               "spent\n", t->o->tune.env_path, job->nrules ? ", " : "",
               job->nrules ? job->rules_path : "", t->o->tune.csv_path, t->spent);
    fflush(stdout);
    free(job);
    return code;
}
