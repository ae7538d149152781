/* pb_cmd_tune.c - parbench tune: which communication settings make this
 * job's messages fastest on this cluster, measured before the big run.
 *
 * The stages: the job's cases (pb_tune_cases.c) and the default's pass;
 * the search (tune/pb_tplan.h: one knob at a time, knobs on the heaviest
 * collectives first, then the winners of knobs that act together
 * combined), each candidate timed against the default in alternating
 * pairs within --budget (pb_tune_pairs.c); the verdicts, the job's
 * setting (pb_tune_choose.c: each value only where it won or tied),
 * tune.env, Open MPI's rules file and tune.csv (pb_tune_out.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_tune.h"
#include "../cli/pb_cmd_table.h"
#include "../cli/pb_opt_common.h"
#include "../cli/pb_opt_set.h"
#include "../glue/pb_pattern_print.h"
#include "../../util/pb_list.h"

/* The single-knob candidates: the backend's library's knobs that change
 * the job's collectives, heaviest first, as --knobs narrows them; knobs
 * read once per process are named, not searched (a launch per value). */
static int plan_singles(pb_tune_t *t, pb_err_t *err)
{
    pb_top_t tops[PB_TUNE_CASES];
    for (size_t i = 0; i < t->ncases; i++)
        tops[i] = (pb_top_t){pb_coll_name(t->cases[i].op.coll),
                             pb_tune_case_weight(&t->cases[i])};
    pb_tcand_t all[PB_TUNE_CANDS];
    size_t n = pb_tplan_singles(t->lib, tops, t->ncases, all, PB_TUNE_CANDS);
    for (size_t i = 0; i < n && i < PB_TUNE_CANDS; i++) {
        const pb_knob_t *k = all[i].set[0].knob;
        if (t->o->tune.knobs && !pb_list_has(t->o->tune.knobs, k->name, ","))
            continue;
        if (k->apply == PB_APPLY_PROCESS_ENV) {
            pb_list_add(t->skipped_knobs, sizeof t->skipped_knobs, k->name, ", ");
            continue;
        }
        t->cands[t->ncands++] = all[i];
    }
    if (t->ncands == 0)
        return pb_err_set(err, PB_EINPUT, "no %s setting that can change while the job runs "
                          "acts on its collectives%s (parbench tune --list-knobs)",
                          t->lib == PB_KNOB_NCCL ? "NCCL" : "Open MPI",
                          t->o->tune.knobs ? " among --knobs" : "");
    return PB_OK;
}

/* What the candidates need from the launch (Open MPI's dynamic rules):
 * checked once, before anything is measured, so that a launch without it
 * is one line saying how to start, not a run of unchanged candidates. */
static int check_needs(pb_tune_t *t, pb_err_t *err)
{
    int code = PB_OK;
    for (size_t i = 0; i < t->ncands && code == PB_OK; i++) {
        char name[96];
        const char *value = pb_knob_need(t->cands[i].set[0].knob, name, sizeof name);
        if (value != NULL)
            code = t->ctx->be.comm->knob(&t->ctx->be, name, value, err);
    }
    return pb_ctx_agree(t->ctx, code, err);
}

static void print_head(const pb_tune_t *t)
{
    const pb_ctx_t *ctx = t->ctx;
    char what[640];
    snprintf(what, sizeof what, "tune | backend %s: %s | run %s | %d ranks on %d node%s",
             ctx->be.comm->name, ctx->version, ctx->run_id, ctx->size, ctx->nodes,
             ctx->nodes == 1 ? "" : "s");
    if (t->have_plan) {
        pb_pattern_print_head(stdout, &t->plan, what);
    } else {
        printf("# parbench %s | %s\n# workload: --op on %s\n", PB_VERSION, what,
               t->o->meas.group_size ? "groups of --group-size ranks" : "the world");
    }
    pb_ctx_print_oversub(ctx, stdout);
    printf("# budget %.3g s | %llu pairs per case | each side: at least %llu samples, then to "
           "+-%.3g%% or %.3g s | %s\n",
           t->o->tune.budget_s, (unsigned long long)t->o->tune.pairs,
           (unsigned long long)t->o->meas.min_iters, t->o->meas.precision * 100.0,
           t->o->meas.time_budget,
           t->o->meas.check ? "every candidate's results verified" : "not verified (-c 0)");
}

/* Heaviest first: a budget that runs out leaves out what matters least. */
static int by_weight(const void *a, const void *b)
{
    double wx = pb_tune_case_weight(a), wy = pb_tune_case_weight(b);
    return wx < wy ? 1 : wx > wy ? -1 : 0;
}

/* A model's cases past the heaviest that make up PB_TUNE_COVER of its
 * communication are reported, not tuned ("--op" cases are all asked for). */
static void mark_minor(pb_tune_t *t)
{
    double total = 0.0, run = 0.0;
    for (size_t i = 0; i < t->ncases; i++)
        total += pb_tune_case_weight(&t->cases[i]);
    for (size_t i = 0; i < t->ncases; i++) {
        t->cases[i].minor = i > 0 && run >= PB_TUNE_COVER * total;
        run += pb_tune_case_weight(&t->cases[i]);
    }
}

/* The singles, then the winners of knobs that act together, combined. */
static int search(pb_tune_t *t, pb_err_t *err)
{
    int code = PB_OK;
    size_t nsingles = t->ncands;
    for (size_t i = 0; i < nsingles && code == PB_OK && !pb_ctx_stopping(t->ctx); i++) {
        code = pb_tune_measure(t, i, err);
        if (code == PB_OK && !pb_ctx_stopping(t->ctx) && t->ctx->rank == 0) /* collective: every rank asks */
            pb_tune_print_cand(t, i);
    }
    double score[PB_TUNE_CANDS];
    for (size_t i = 0; i < nsingles; i++)
        score[i] = pb_tune_score(t, i);
    if (code == PB_OK && !pb_ctx_stopping(t->ctx) && t->ncands < PB_TUNE_CANDS &&
        pb_tplan_combo(t->cands, nsingles, score, &t->cands[t->ncands])) {
        size_t i = t->ncands++;
        code = pb_tune_measure(t, i, err);
        if (code == PB_OK && !pb_ctx_stopping(t->ctx) && t->ctx->rank == 0)
            pb_tune_print_cand(t, i);
    }
    return code;
}

static int run(pb_tune_t *t, pb_err_t *err)
{
    pb_ctx_t *ctx = t->ctx;
    int code = ctx->be.comm->knob ? PB_OK
                                  : pb_err_set(err, PB_EINPUT, "the %s backend has no setting "
                                               "parbench can change", ctx->be.comm->name);
    if (code == PB_OK)
        code = pb_tune_cases(t, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    if ((code = pb_tune_default_pass(t, err)) != PB_OK || pb_ctx_stopping(ctx))
        return code;
    qsort(t->cases, t->ncases, sizeof t->cases[0], by_weight);
    if (t->have_plan)
        mark_minor(t);
    if ((code = plan_singles(t, err)) != PB_OK || (code = check_needs(t, err)) != PB_OK)
        return code;
    if (ctx->rank == 0 && !t->o->run.quiet) {
        print_head(t);
        pb_tune_print_cases(t);
    }
    t->before_s = pb_tune_clock(t); /* for "raise --budget to about N s" */
    if ((code = search(t, err)) != PB_OK || pb_ctx_stopping(ctx))
        return code;
    pb_tune_clock(t);
    if (ctx->rank == 0)
        code = pb_tune_finish_out(t, err);
    /* rank 0 wrote the files; every rank exits with its code */
    if (pb_ctl_bcast(ctx->world, &code, sizeof code, 0) != PB_OK)
        pb_ctx_abort(ctx, &(pb_err_t){PB_ERUNTIME, "the broadcast of the outcome failed"});
    if (ctx->rank != 0 && code != PB_OK)
        pb_err_set(err, code, "tune: see rank 0");
    return code;
}

int pb_tune_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    pb_tune_t *t = calloc(1, sizeof *t);
    if (t == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    t->ctx = ctx;
    t->o = ctx->opt;
    t->lib = strcmp(ctx->be.comm->name, "nccl") == 0 ? PB_KNOB_NCCL : PB_KNOB_MPI;
    t->have_plan = pb_model_opts_given(&ctx->opt->model);
    pb_tune_clock_start(t);
    int code = run(t, err);
    for (int k = 0; k < PB_TUNE_KINDS; k++)
        if (t->def[k])
            ctx->be.comm->group_free(t->def[k]);
    if (t->have_plan)
        pb_pattern_plan_free(&t->plan);
    free(t);
    return err->code ? err->code : code;
}

/* ---- the command: its options and table row ----------------------- */

/* --list-knobs: the table, nothing run */
static int tune_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    (void)err;
    if (!o->tune.list)
        return PB_RUN_RANKS;
    if (!rank0)
        return PB_OK;
    printf("%-42s %-5s %-26s %s\n", "#knob", "lib", "applied", "values (since)");
    static const char *const how[] = {"MPI_T, new communicator", "env at communicator creation",
                                      "ncclConfig_t", "a launch per value (not searched)"};
    for (size_t i = 0; i < pb_knob_count(); i++) {
        const pb_knob_t *k = pb_knob_at(i);
        printf("%-42s %-5s %-26s %s (%s)\n", k->name, k->lib == PB_KNOB_MPI ? "mpi" : "nccl",
               how[k->apply], k->labels ? k->labels : k->values, k->since);
    }
    return PB_OK;
}

/* --pairs: at least PB_TV_MIN_PAIRS, the fewest whose median has a 95 %
 * interval (tune/pb_tverdict.h): fewer could never give a verdict. */
static int set_pairs(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s;
    if (pb_parse_u64(shown, v, 0, &o->tune.pairs, err) != PB_OK)
        return err->code;
    if (o->tune.pairs < PB_TV_MIN_PAIRS)
        return pb_err_set(err, PB_EINPUT, "%s must be at least %d (got %llu): with fewer pairs "
                          "the median ratio has no 95%% interval (%d pairs all on one side "
                          "happen by chance 2 x 0.5^%d = %.2f%% of the time, more than 5%%)",
                          shown, PB_TV_MIN_PAIRS, (unsigned long long)o->tune.pairs,
                          PB_TV_MIN_PAIRS - 1, PB_TV_MIN_PAIRS - 1,
                          200.0 * pow(0.5, PB_TV_MIN_PAIRS - 1));
    return PB_OK;
}

static const pb_opt_spec_t tune_specs[] = {
    {"budget", 0, "T", pb_opt_duration, PB_OFF(tune.budget_s), 0,
     "time for the whole search (90s, 2m, 1h; default 10m): a\n"
     "setting starts only when its pairs fit in what is left", NULL, NULL},
    {"pairs", 0, "N", set_pairs, PB_OFF(tune.pairs), 0,
     "default/setting pairs per case (default 10; at least 6,\n"
     "the fewest whose median ratio has a 95% interval; a\n"
     "setting cut below 6 by the budget gets no verdict)", NULL, NULL},
    {"knobs", 0, "LIST", pb_opt_str, PB_OFF(tune.knobs), 0,
     "search only these knobs (comma-separated; --list-knobs)", NULL, NULL},
    {"env", 0, "FILE", pb_opt_file, PB_OFF(tune.env_path), 0,
     "the settings to source in the job script (default\n"
     "tune.env; Open MPI's rules file beside it, .env\n"
     "replaced by .rules)", "@file", NULL},
    {"tune-csv", 0, "FILE", pb_opt_file, PB_OFF(tune.csv_path), 0,
     "every candidate on every case (default tune.csv)", "@file", NULL},
    {"list-knobs", 0, NULL, pb_opt_flag, PB_OFF(tune.list), 0,
     "print the knobs parbench knows and how each is applied", NULL, NULL},
};
static const pb_opt_group_t tune_group = PB_GROUP("tuning:", tune_specs, NULL);

static void tune_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    pb_meas_defaults(o);
    pb_model_defaults(o);
    o->tune.budget_s = 600.0;
    o->tune.pairs = 10;
    o->tune.env_path = "tune.env";
    o->tune.csv_path = "tune.csv";
    /* each side of a pair needs less precision than a sweep's row: the
     * pairs carry the verdict's (tune/pb_tverdict.h) */
    o->meas.min_iters = 5;
    o->meas.time_budget = 0.25;
    o->meas.warmup = 2;
    o->meas.check = 1;
}

static int tune_finish(pb_options_t *o, pb_err_t *err)
{
    for (const char *p = o->tune.knobs; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(p, ","), p);
        if (pb_knob_find(name) == NULL)
            return pb_err_set(err, PB_EINPUT, "--knobs: no knob '%s' (parbench tune --list-knobs "
                              "lists them)", name);
    }
    int model = pb_model_opts_given(&o->model);
    int ops = (o->meas.given & PB_GIVEN_OP) || o->meas.sizes_given;
    if (model && ops && !o->tune.list)
        return pb_err_set(err, PB_EINPUT, "tune takes the job from a model and layout or from "
                          "--op and sizes, not both");
    if (!model && !ops && !o->tune.list)
        return pb_err_set(err, PB_EINPUT, "tune needs the job: a model and layout (--preset "
                          "NAME --tp N --dp N ...) or --op with sizes (-b, -e, --sizes)");
    if (o->meas.nmodes > 1)
        return pb_err_set(err, PB_EINPUT, "tune times one --mode at a time");
    if (pb_predict_finish(o, err) != PB_OK)
        return err->code;
    return pb_meas_finish(o, err);
}

const pb_cmd_desc_t pb_cmd_tune = {
    PB_CMD_TUNE, "tune", "the communication settings that make this job's messages fastest",
    "usage: parbench tune [model and layout options | --op LIST sizes] [OPTIONS]\n"
    "\n"
    "Finds the communication settings (Open MPI's collective algorithms; NCCL's\n"
    "algorithm, protocol and channels) that make this job's own operations fastest\n"
    "on this cluster: the collectives, groups and sizes of one training step of\n"
    "the model and layout given, or --op at the sizes given.  The default (the\n"
    "launch's settings) is measured first; then each setting, one knob at a time,\n"
    "knobs on the heaviest collectives first, then the winners of knobs that act\n"
    "together combined.  Every setting is timed against the default in pairs, in\n"
    "alternating order, on groups split under it; a gain is the pairs' median\n"
    "ratio with its 95% interval, and a gain inside the noise is \"no change\".\n"
    "A setting whose results fail verification is reported and never chosen.\n"
    "Prints per case the fastest setting, the job's setting and its effect on the\n"
    "step; writes tune.env (export lines for the job script) and tune.csv (every\n"
    "candidate).  A setting reaches only the cases it was measured to win or tie\n"
    "on: Open MPI's algorithms go in a rules file (tune.rules) that holds each to\n"
    "the communicator and message sizes it won; an NCCL variable is exported only\n"
    "when it held on every case it reaches (NCCL 2.24+: for the collectives where\n"
    "it did), and what is left out is said.  Under your own mpirun, give it\n"
    "-x OMPI_MCA_coll_tuned_use_dynamic_rules=1 (parbench's own launch sets it).\n",
    {{&tune_group, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_layout, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_predict_run, NULL},
     {&pb_grp_what, NULL},
     {&pb_grp_sizes, NULL},
     {&pb_grp_timing, NULL},
     {&pb_grp_check, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_help, NULL}},
    "", 0, tune_defaults, tune_finish, NULL, tune_alone, pb_tune_cmd, 0,
    "OMPI_MCA_coll_tuned_use_dynamic_rules=1"};
