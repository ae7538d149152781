/* pb_tune_choose.c - the job's setting from the verdicts (rank 0), and
 * what of it is left out: pb_tune.h's pb_tune_job_t says the rule.
 *
 * Why per case: an environment variable holds one value for every
 * collective of the job, so the winner on one case would otherwise run
 * on every case of its collective, those listed "not tuned" included.
 * Open MPI's rules file holds each algorithm to the communicator and
 * message sizes it won (tune/pb_trules.h); a knob of NCCL cannot be held
 * to sizes, so it is exported only where it holds on every case it
 * reaches, or (NCCL 2.24+) only for the collectives where it does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_tune.h"

static void row_of(const pb_tune_t *t, size_t i, pb_tcell_t *row, double *w)
{
    for (size_t ci = 0; ci < t->ncases; ci++) {
        row[ci] = t->res[i][ci].c;
        w[ci] = pb_tune_case_weight(&t->cases[ci]);
    }
}

/* Cases one rule of Open MPI's file covers: its collective, communicator
 * size and message size (the bytes Open MPI computes are parbench's). */
static int same_rule(const pb_tune_case_t *a, const pb_tune_case_t *b)
{
    return a->op.coll == b->op.coll && a->gsize == b->gsize && a->op.bytes == b->op.bytes;
}

/* The rule for the cases in reach under candidate i: its algorithm, and
 * the case it gained most on as the comment. */
static void add_rule(const pb_tune_t *t, size_t i, const int *reach, pb_tune_job_t *job)
{
    const pb_tcand_t *c = &t->cands[i];
    size_t bc = 0;
    double best = INFINITY;
    for (size_t ci = 0; ci < t->ncases; ci++)
        if (reach[ci] && t->res[i][ci].c.v.v == PB_TV_FASTER && t->res[i][ci].c.v.ratio < best) {
            best = t->res[i][ci].c.v.ratio;
            bc = ci;
        }
    char v[64], set[256], nm[96];
    pb_knob_value(c->set[0].knob, (size_t)c->set[0].value, v, sizeof v);
    pb_tcand_format(c, 1, set, sizeof set);
    pb_tune_case_name(t, &t->cases[bc], nm, sizeof nm);
    pb_trule_t *r = &job->rules[job->nrules++];
    r->coll = c->set[0].knob->rules_coll;
    r->comm_size = t->cases[bc].gsize;
    r->bytes = t->cases[bc].op.bytes;
    r->alg = (int)strtol(v, NULL, 10);
    const pb_tverdict_t *vd = &t->res[i][bc].c.v;
    snprintf(r->why, sizeof r->why, "%.95s: %.120s x%.3f (%.3f-%.3f)", nm, set, vd->ratio, vd->lo,
             vd->hi);
}

/* Open MPI: per rule's cases, the single algorithm of lowest score
 * among those that hold on all of them. */
static void choose_mpi(const pb_tune_t *t, pb_tune_job_t *job)
{
    int done[PB_TUNE_CASES] = {0}, reach[PB_TUNE_CASES];
    pb_tcell_t row[PB_TUNE_CASES];
    double w[PB_TUNE_CASES];
    for (size_t ci = 0; ci < t->ncases; ci++) {
        if (done[ci])
            continue;
        for (size_t cj = 0; cj < t->ncases; cj++) {
            reach[cj] = same_rule(&t->cases[ci], &t->cases[cj]);
            done[cj] |= reach[cj];
        }
        long best = -1;
        double bs = 0.0;
        for (size_t i = 0; i < t->ncands; i++) {
            const pb_tcand_t *c = &t->cands[i];
            if (c->n != 1 || c->set[0].knob->rules_coll < 0 ||
                !pb_knob_affects(c->set[0].knob, pb_coll_name(t->cases[ci].op.coll)))
                continue;
            row_of(t, i, row, w);
            double s = pb_tplan_score_reach(row, reach, w, t->ncases);
            if (s > 0.0 && (best < 0 || s < bs)) {
                best = (long)i;
                bs = s;
            }
        }
        if (best < 0)
            continue;
        for (size_t cj = 0; cj < t->ncases; cj++)
            if (reach[cj])
                job->apply[cj] = best;
        add_rule(t, (size_t)best, reach, job);
    }
}

/* NCCL 2.24+ takes per-collective values (tune/pb_knob.h's per_coll). */
static int nccl_per_coll(const pb_tune_t *t)
{
    int major = 0, minor = 0;
    return sscanf(t->ctx->version, "NCCL %d.%d", &major, &minor) == 2 &&
           (major > 2 || (major == 2 && minor >= 24));
}

/* Why candidate i may not reach case ci (it does not hold there). */
static void why_not(const pb_tune_t *t, size_t i, size_t ci, char *buf, size_t len)
{
    const pb_tcell_t *c = &t->res[i][ci].c;
    char nm[96];
    pb_tune_case_name(t, &t->cases[ci], nm, sizeof nm);
    if (c->state == PB_TCELL_NONE)
        snprintf(buf, len, "%s, %s", nm, t->cases[ci].minor ? "not tuned (under 1% of the job)"
                                                            : "not measured");
    else if (c->state == PB_TCELL_SKIPPED)
        snprintf(buf, len, "%s, not measured", nm);
    else if (c->state == PB_TCELL_WRONG)
        snprintf(buf, len, "%s, with wrong results", nm);
    else if (c->v.v == PB_TV_FEW)
        snprintf(buf, len, "%s, %zu pairs: not enough for a verdict", nm, c->v.n);
    else
        snprintf(buf, len, "%s, slower there (x%.3f)", nm, c->v.ratio);
}

/* A note in tune.env and the output for candidate i, faster where it was
 * measured but left out: the first case it would reach and not hold on. */
static void note_left_out(const pb_tune_t *t, size_t i, const int *reach, pb_tune_job_t *job)
{
    char set[256], why[160] = "";
    pb_tcand_format(&t->cands[i], 1, set, sizeof set);
    for (size_t ci = 0; ci < t->ncases && why[0] == '\0'; ci++)
        if (reach[ci] && !pb_tcell_holds(&t->res[i][ci].c))
            why_not(t, i, ci, why, sizeof why);
    pb_tenv_item_t *it = &job->items[job->nitems++];
    memset(it, 0, sizeof *it);
    snprintf(it->why, sizeof it->why, "left out: %.100s (x%.3f where measured) would also reach "
             "%.120s", set, pb_tune_score(t, i), why);
}

/* The exports of candidate i, scoped to funcs when funcs is not empty. */
static void export_nccl(const pb_tune_t *t, size_t i, const char *funcs, double score,
                        pb_tune_job_t *job)
{
    const pb_tcand_t *c = &t->cands[i];
    for (int s = 0; s < c->n && job->nitems < sizeof job->items / sizeof job->items[0]; s++) {
        char v[64], value[256] = "", why[256];
        pb_knob_value(c->set[s].knob, (size_t)c->set[s].value, v, sizeof v);
        for (const char *p = funcs; *p; p += strcspn(p, ","), p += *p == ',') {
            size_t k = strlen(value);
            snprintf(value + k, sizeof value - k, "%s%.*s:%s", k ? ";" : "",
                     (int)strcspn(p, ","), p, v);
        }
        snprintf(why, sizeof why, "%s = %s: x%.3f of the job's communication time%s%s%s",
                 c->set[s].knob->name, v, score, funcs[0] ? "; only for " : "", funcs,
                 funcs[0] ? " (NCCL 2.24+), where it held on every case" : "");
        pb_tenv_knob(&job->items[job->nitems++], c->set[s].knob, funcs[0] ? value : v, why);
    }
}

/* NCCL: the one candidate of lowest score over what it may reach; notes
 * for those that looked better but would reach a case they did not win
 * or tie on. */
static void choose_nccl(const pb_tune_t *t, pb_tune_job_t *job)
{
    const size_t cap = sizeof job->items / sizeof job->items[0];
    const char *ops[PB_TUNE_CASES];
    pb_tcell_t row[PB_TUNE_CASES];
    double w[PB_TUNE_CASES], score[PB_TUNE_CANDS];
    int reach[PB_TUNE_CANDS][PB_TUNE_CASES];
    char funcs[PB_TUNE_CANDS][64];
    int per = nccl_per_coll(t);
    for (size_t ci = 0; ci < t->ncases; ci++)
        ops[ci] = pb_coll_name(t->cases[ci].op.coll);
    for (size_t i = 0; i < t->ncands; i++) {
        row_of(t, i, row, w);
        int r = pb_tplan_reach(&t->cands[i], ops, row, t->ncases, per, reach[i], funcs[i],
                               sizeof funcs[i]);
        if (r != PB_TREACH_SCOPED)
            funcs[i][0] = '\0';
        score[i] = pb_tplan_score_reach(row, reach[i], w, t->ncases);
    }
    size_t chosen = 0;
    int have = pb_tplan_choose(PB_KNOB_NCCL, t->cands, score, t->ncands, &chosen) > 0;
    if (have) {
        export_nccl(t, chosen, funcs[chosen], score[chosen], job);
        for (size_t ci = 0; ci < t->ncases; ci++)
            if (reach[chosen][ci])
                job->apply[ci] = (long)chosen;
    }
    for (size_t i = 0; i < t->ncands && job->nitems < cap; i++) {
        double old = pb_tune_score(t, i);
        if (score[i] <= 0.0 && old > 0.0 && (!have || old < score[chosen]))
            note_left_out(t, i, reach[i], job);
    }
}

void pb_tune_choose(const pb_tune_t *t, const char *rules_path, pb_tune_job_t *job)
{
    memset(job, 0, sizeof *job);
    for (size_t ci = 0; ci < PB_TUNE_CASES; ci++)
        job->apply[ci] = -1;
    if (t->lib == PB_KNOB_NCCL)
        choose_nccl(t, job);
    else
        choose_mpi(t, job);
    double def = 0.0, tuned = 0.0;
    for (size_t ci = 0; ci < t->ncases; ci++) {
        double wc = pb_tune_case_weight(&t->cases[ci]);
        def += wc;
        tuned += wc * (job->apply[ci] >= 0 ? pb_tcell_ratio(&t->res[job->apply[ci]][ci].c) : 1.0);
    }
    job->score = def > 0.0 ? tuned / def : 1.0;
    if (job->nrules == 0)
        return;
    /* Open MPI: the rules file, named by its absolute path so that the
     * job script may source tune.env from anywhere */
    snprintf(job->rules_path, sizeof job->rules_path, "%s", rules_path);
    pb_tenv_item_t *it = &job->items[job->nitems++];
    snprintf(it->name, sizeof it->name, "OMPI_MCA_coll_tuned_use_dynamic_rules");
    snprintf(it->value, sizeof it->value, "1");
    snprintf(it->why, sizeof it->why, "Open MPI's rules file: %zu rule%s, each algorithm on the "
             "communicator and message sizes it was measured faster on (x%.3f of the job's "
             "communication time)", job->nrules, job->nrules == 1 ? "" : "s", job->score);
    it = &job->items[job->nitems++];
    snprintf(it->name, sizeof it->name, "OMPI_MCA_coll_tuned_dynamic_rules_filename");
    snprintf(it->value, sizeof it->value, "%s", rules_path);
    it->why[0] = '\0';
}

double pb_tune_budget_needed(const pb_tune_t *t)
{
    return pb_tplan_budget(t->before_s, t->cand_per_pair, t->ncands, t->o->tune.pairs);
}

/* Whether any candidate was measured on any case. */
static int measured_any(const pb_tune_t *t)
{
    for (size_t i = 0; i < t->ncands; i++)
        for (size_t ci = 0; ci < t->ncases; ci++)
            if (t->res[i][ci].c.state == PB_TCELL_DONE || t->res[i][ci].c.state == PB_TCELL_WRONG)
                return 1;
    return 0;
}

void pb_tune_print_job(const pb_tune_t *t, const pb_tune_job_t *job)
{
    printf("#\n# the job's setting (each setting only on cases it was measured to win or tie "
           "on): ");
    if (job->nrules > 0) {
        printf("Open MPI's rules file %s, x%.3f of the job's communication time\n",
               job->rules_path, job->score);
        for (size_t r = 0; r < job->nrules; r++)
            printf("#   %s\n", job->rules[r].why);
    } else if (!measured_any(t)) {
        printf("the default - nothing was measured: raise --budget to about %.0f s\n",
               ceil(pb_tune_budget_needed(t)));
    }
    int shown = 0;
    for (size_t k = 0; k < job->nitems; k++) {
        const pb_tenv_item_t *it = &job->items[k];
        if (t->lib == PB_KNOB_NCCL && it->name[0])
            printf("%s%s=%s", shown++ ? ", " : "", it->name, it->value);
    }
    if (shown)
        printf(" (x%.3f of the job's communication time)\n", job->score);
    else if (job->nrules == 0 && measured_any(t))
        printf("the default - no setting was measured faster where it counts\n");
    for (size_t k = 0; k < job->nitems; k++)
        if (job->items[k].name[0] == '\0')
            printf("# %s\n", job->items[k].why);
}
