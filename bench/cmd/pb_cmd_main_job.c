#include "pb_cmd_main_job.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pb_cmd_coll.h"
#include "pb_cmd_calibrate.h"
#include "../glue/pb_predict.h"
#include "../glue/pb_pattern_plan.h"
#include "pb_cmd_pattern.h"
#include "pb_cmd_report.h"
#include "../../topo/pb_topo_print.h"
#include "../glue/pb_topo_pairs.h"
#include "../cli/pb_opt_common.h"
#include "../run/pb_wall.h"

static int make_dir(const char *d, int exist_ok, pb_err_t *err)
{
    if (mkdir(d, 0777) == 0 || (exist_ok && errno == EEXIST))
        return PB_OK;
    return errno == EEXIST ? PB_EINPUT + 100 /* taken: try another name */
                           : pb_err_set(err, PB_EINPUT, "cannot create folder '%s': %s", d,
                                        strerror(errno));
}

static int fill_paths(pb_main_paths_t *p, const char *csv, pb_err_t *err)
{
    int n = snprintf(p->results, sizeof p->results, "%s/results.csv", p->dir);
    n |= snprintf(p->pairs, sizeof p->pairs, "%s/topo-pairs.csv", p->dir);
    n |= snprintf(p->calib, sizeof p->calib, "%s/calib.csv", p->dir);
    n |= snprintf(p->report, sizeof p->report, "%s/report.html", p->dir);
    if (csv != NULL)
        snprintf(p->results, sizeof p->results, "%s", csv);
    if (n < 0 || strlen(p->dir) + 20 >= sizeof p->results)
        return pb_err_set(err, PB_EINPUT, "output folder name too long: '%.60s...'", p->dir);
    return PB_OK;
}

int pb_main_job_prepare(const char *output, const char *csv, pb_main_paths_t *p, int rank,
                        pb_err_t *err)
{
    memset(p, 0, sizeof *p);
    if (rank != 0)
        return PB_OK;
    int rc;
    if (output) {
        if (strlen(output) >= sizeof p->dir)
            return pb_err_set(err, PB_EINPUT, "output folder name too long");
        snprintf(p->dir, sizeof p->dir, "%s", output);
        if ((rc = make_dir(p->dir, 1, err)) != PB_OK)
            return rc;
    } else {
        if ((rc = make_dir("parbench-out", 1, err)) != PB_OK)
            return rc;
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        /* two runs in one second get -2, -3, ...: never mix two runs */
        for (int k = 1; k < 100; k++) {
            if (k == 1)
                snprintf(p->dir, sizeof p->dir, "parbench-out/%s", stamp);
            else
                snprintf(p->dir, sizeof p->dir, "parbench-out/%s-%d", stamp, k);
            rc = make_dir(p->dir, 0, err);
            if (rc != PB_EINPUT + 100)
                break;
        }
        if (rc != PB_OK)
            return rc == PB_EINPUT + 100
                       ? pb_err_set(err, PB_EINPUT, "cannot find a free folder name in parbench-out")
                       : rc;
    }
    return fill_paths(p, csv, err);
}

/* ---- the steps ---------------------------------------------------- */

typedef int (*step_fn)(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err);

static int step_topology(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err)
{
    int code = PB_OK;
    if (ctx->rank == 0) {
        code = pb_topo_write_pairs(p->pairs, &ctx->topo, err);
        if (code == PB_OK && !ctx->opt->run.quiet) {
            char src[160];
            snprintf(src, sizeof src, "this node (%s, live)", pb_rankmap_host(&ctx->map, 0));
            pb_topo_print_matrix(stdout, &ctx->topo, src);
            fflush(stdout);
        }
    }
    return pb_ctx_agree(ctx, code, err);
}

static int step_sweep(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err)
{
    (void)p;
    return pb_coll_cmd(ctx, err);
}

static int step_patterns(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err)
{
    (void)p;
    return pb_pattern_cmd(ctx, err);
}

/* Calibration: the collective cost model fitted to this run's rows,
 * written to calib.csv (parbench calibrate's format); the report draws
 * the fitted curves over the measured ones. */
static int step_calibration(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err)
{
    int code = PB_OK;
    if (ctx->rank == 0) {
        const char *in = p->results;
        code = pb_calibrate_files(&in, 1, p->calib, PB_FIT_TOL_DEFAULT, err);
        fflush(stdout);
    }
    return pb_ctx_agree(ctx, code, err);
}

static void model_row(pb_ctx_t *ctx, const char *what, double sec, uint64_t bytes,
                      const char *label, pb_err_t *err)
{
    pb_result_t r;
    pb_ctx_result_base(ctx, &r);
    snprintf(r.mode, sizeof r.mode, "model");
    snprintf(r.pattern, sizeof r.pattern, "model");
    snprintf(r.collective, sizeof r.collective, "%s", what);
    snprintf(r.group, sizeof r.group, "world");
    r.group_size = ctx->size;
    r.bytes = bytes;
    r.time_us_min = r.time_us_median = r.time_us_p99 = r.time_us_max = sec * 1e6;
    snprintf(r.label, sizeof r.label, "%s", label);
    snprintf(r.redop, sizeof r.redop, "none");
    pb_ctx_emit(ctx, &r, err);
}

/* The reference step: the pattern suite's model on the same layout,
 * predicted with this run's calibration (and the A100 preset for what it
 * did not measure); one row per component (pattern "model"), memory per
 * GPU as mem_* rows - the report's stacked bars. */
static int step_reference(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err)
{
    int code = PB_OK;
    if (ctx->rank == 0) {
        const pb_options_t *o = ctx->opt;
        pb_predict_opts_t hw; /* the a100 preset, this run's calibration */
        memset(&hw, 0, sizeof hw);
        hw.calib = access(p->calib, R_OK) == 0 ? p->calib : NULL;
        pb_pattern_plan_t plan;
        pb_step_t st;
        int calibrated = 0;
        code = pb_pattern_plan(&o->model, 0, ctx->size, o->run.np, &plan, err);
        if (code == PB_OK)
            code = pb_model_predict(&plan.model, &plan.layout, &hw, &o->model.train, 0.0, &st,
                                    &calibrated, err);
        if (code == PB_OK) {
            const pb_layout_t *l = &plan.layout;
            char label[64];
            snprintf(label, sizeof label, "model tp%d-pp%d-dp%d", l->size[PB_DIM_TP],
                     l->size[PB_DIM_PP], l->size[PB_DIM_DP]);
            for (int i = 0; i < PB_PART_COUNT; i++)
                model_row(ctx, pb_part_name(i), st.part[i], 0, label, err);
            model_row(ctx, "step", st.total, 0, label, err);
            model_row(ctx, "mem_weights", 0.0, (uint64_t)st.mem.weights, label, err);
            model_row(ctx, "mem_activations", 0.0, (uint64_t)st.mem.act_layers, label, err);
            model_row(ctx, "mem_embedding_output", 0.0, (uint64_t)st.mem.act_extra, label, err);
            if (!ctx->opt->run.quiet)
                printf("# reference step of %s on %s: %.3f ms predicted (collectives from %s), "
                       "%.2f GiB per GPU; rows with pattern model\n",
                       plan.model.name, label, st.total * 1e3,
                       calibrated ? "this run's calibration" : "the A100 preset",
                       st.mem.total / 1073741824.0);
            if (!ctx->opt->run.quiet && calibrated) {
                char note[512];
                pb_step_calib_note(&st, "a100", note, sizeof note);
                printf("# %s\n", note);
            }
            fflush(stdout);
        }
        pb_pattern_plan_free(&plan);
    }
    return pb_ctx_agree(ctx, code, err);
}

static int step_report(pb_ctx_t *ctx, const pb_main_paths_t *p, pb_err_t *err)
{
    int code = PB_OK;
    if (ctx->rank == 0) {
        char note[320];
        snprintf(note, sizeof note, "backend %s: %s", ctx->be.comm->name, ctx->version);
        const char *calib = access(p->calib, R_OK) == 0 ? p->calib : NULL;
        pb_report_req_t q = {p->results, calib, p->pairs, p->report, ctx->run_id, 0, note, "", 0};
        code = pb_report_files(&q, err);
    }
    return pb_ctx_agree(ctx, code, err);
}

/* `measures`: the step runs operations on the ranks; the others work on
 * files rank 0 already has, so after a stop they still run and the
 * report shows what finished. */
static const struct {
    const char *name;
    step_fn fn;
    int measures;
} steps[] = {
    {"topology", step_topology, 0},
    {"collective sweep", step_sweep, 1},
    {"pattern suite", step_patterns, 1},
    {"calibration", step_calibration, 0},
    {"reference step", step_reference, 0},
    {"report", step_report, 0},
};

int pb_main_job_run(pb_ctx_t *ctx, pb_err_t *err)
{
    pb_main_paths_t paths, *p = &paths;
    memset(p, 0, sizeof *p);
    if (ctx->rank == 0 && ctx->out_dir) {
        snprintf(p->dir, sizeof p->dir, "%s", ctx->out_dir);
        if (fill_paths(p, ctx->csv_path, err) != PB_OK)
            return err->code;
    }
    int stopped = 0;
    double took[sizeof steps / sizeof steps[0]] = {0}; /* PARBENCH_PHASES */
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        double t0 = pb_ctl_now();
        if (stopped && steps[i].measures)
            continue;
        if (ctx->rank == 0 && !ctx->opt->run.quiet) {
            printf("#\n# ==== main job, step %zu of %zu: %s%s ====\n", i + 1,
                   sizeof steps / sizeof steps[0], steps[i].name,
                   stopped ? " (of what finished before the stop)" : "");
            fflush(stdout);
        }
        int code = steps[i].fn(ctx, p, err);
        if (code != PB_OK)
            return code;
        /* SIGINT/SIGTERM: no more measurements; the files still get made */
        stopped = stopped || pb_ctx_stopping(ctx);
        took[i] = pb_ctl_now() - t0;
    }
    if (ctx->rank == 0 && pb_wall_wanted()) {
        printf("# phases main job:");
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
            putchar(' '); /* one word per name, for a script's awk */
            for (const char *c = steps[i].name; *c; c++)
                putchar(*c == ' ' ? '_' : *c);
            printf(" %.3f", took[i]);
        }
        printf("\n");
    }
    if (ctx->rank == 0) {
        printf("#\n# parbench: %s %s/\n", stopped ? "stopped early; what finished is in" : "everything is in",
               p->dir);
        printf("#   %-16s every measurement (CSV; the same rows with --json)\n",
               strrchr(p->results, '/') && strncmp(p->results, p->dir, strlen(p->dir)) == 0
                   ? "results.csv"
                   : p->results);
        printf("#   %-16s the link of every device pair\n", "topo-pairs.csv");
        printf("#   %-16s %s\n", "calib.csv",
               access(p->calib, R_OK) == 0 ? "the calibrated cost model"
                                           : "not written (no collective rows to fit)");
        printf("#   %-16s open it in a browser\n", "report.html");
        fflush(stdout);
    }
    return PB_OK;
}

/* ---- the command: its options and table row ----------------------- */

/* a plan needs no ranks: a 16,384-GPU layout prints on a laptop */
static int main_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    if (o->cmd == PB_CMD_PATTERN && o->main.dry_run)
        return pb_pattern_dry_run(o, rank0, err);
    return PB_RUN_RANKS;
}

static int main_ranks(struct pb_ctx *ctx, pb_err_t *err)
{
    return ctx->opt->cmd == PB_CMD_PATTERN ? pb_pattern_cmd(ctx, err) : pb_main_job_run(ctx, err);
}

static int p_strategy(const char *s, int *o)
{
    pb_strategy_t t;
    int rc = pb_strategy_parse(s, &t);
    *o = (int)t;
    return rc;
}
static const char *n_strategy(int i) { return pb_strategy_name((pb_strategy_t)i); }

static int set_pattern(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                       pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_STRAT_COUNT], n;
    if (pb_parse_list("pattern", v, p_strategy, n_strategy, PB_STRAT_COUNT, PB_STRAT_COUNT, tmp,
                      &n, err))
        return err->code;
    o->main.pattern_mask = 0;
    for (int i = 0; i < n; i++)
        o->main.pattern_mask |= 1u << tmp[i];
    /* "all": every strategy once; tp and sp are one strategy */
    if (strcmp(v, "all") == 0)
        o->main.pattern_mask &= ~(1u << PB_STRAT_SP);
    return PB_OK;
}


static const pb_opt_spec_t main_specs[] = {
    {"pattern", 0, "LIST", set_pattern, 0, 0,
     "run the traffic of strategies tp, sp, pp, dp, ep, cp or all", "tp sp pp dp ep cp all",
     NULL},
    {"dry-run", 0, NULL, pb_opt_flag, PB_OFF(main.dry_run), 0,
     "print the operations per step and their totals; no MPI\n"
     "(world: --np N if given, else the layout's product; no\n"
     "layout and no --np: 8)",
     NULL, "--dry-run needs --pattern"},
    {"output", 'o', "DIR", pb_opt_output, PB_OFF(main.output), 0,
     "the output folder (default parbench-out/<date-time>)", "@dir", pb_o_elsewhere},
};
static const pb_opt_group_t main_group = PB_GROUP("", main_specs, NULL);

static void main_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    pb_meas_defaults(o);
    pb_model_defaults(o);
}

/* The main job's sweep: every collective, verified, 8 B to 64 MiB, in
 * well under a minute on a small machine - unless the user said
 * otherwise.  No --csv: results.csv in the output folder. */
static void main_job_defaults(pb_meas_opts_t *m)
{
    if (!(m->given & PB_GIVEN_OP)) {
        m->ncolls = 0;
        for (int c = 0; c < PB_COLL_COUNT; c++)
            m->colls[m->ncolls++] = (pb_coll_t)c;
    }
    if (!m->sizes_given) {
        m->size_min = 8;
        m->size_max = UINT64_C(64) << 20;
    }
    if (!(m->given & PB_GIVEN_CHECK))
        m->check = 1;
    if (!(m->given & PB_GIVEN_BUDGET))
        m->time_budget = 0.25;
    /* a 64 MiB operation warms up once or twice, not for as long as it is
     * timed (issue 35: the warm-up was a fifth of the sweep) */
    if (!(m->given & PB_GIVEN_WARMUP))
        m->warmup_cap = 0.1 * m->time_budget;
    if (!(m->given & PB_GIVEN_MIN_ITERS) && m->max_iters >= 5)
        m->min_iters = 5;
}

static int main_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->main.pattern_mask)
        o->cmd = PB_CMD_PATTERN;
    if (o->main.dry_run && o->cmd != PB_CMD_PATTERN)
        return pb_err_set(err, PB_EINPUT, "--dry-run needs --pattern");
    /* the sweep's sizes mean nothing to a pattern run, whose messages
     * follow from the model: a user who meant the hidden size is told */
    if (o->cmd == PB_CMD_PATTERN && o->meas.sizes_given)
        return pb_err_set(err, PB_EINPUT, "--sizes, -b and -e set the message sizes of a sweep "
                          "(coll, the main job); a pattern's messages follow from the model: "
                          "its hidden size is --size");
    if (o->cmd == PB_CMD_PATTERN && o->meas.ndtypes > 1)
        return pb_err_set(err, PB_EINPUT, "--dtype takes one type with --pattern (the model's)");
    if (o->cmd == PB_CMD_MAIN) {
        main_job_defaults(&o->meas);
        o->model.dtype = NULL; /* the sweep's types, not the model's */
    }
    return pb_meas_finish(o, err);
}

const pb_cmd_desc_t pb_cmd_main = {
    PB_CMD_MAIN, "",
    "the main job: topology, a verified sweep of every collective (8 B to\n"
    "           64 MiB), the pattern suite of a small model, calibration and the\n"
    "           predicted reference step, then results.csv, topo-pairs.csv,\n"
    "           calib.csv and report.html in -o DIR (default\n"
    "           parbench-out/<date-time>)",
    "usage: parbench [COMMAND] [OPTIONS]\n"
    "\n"
    "Measures the communication of large-model training on this machine.\n"
    "\n"
    "Started from a plain shell, parbench re-executes itself under mpirun with\n"
    "--np N ranks (default: as many as a layout fixes, else one per local GPU, else\n"
    "2); under mpirun or srun it runs.  Ctrl-C stops the ranks cleanly (exit 130).\n"
    "\n"
    "PATTERNS: parbench --pattern tp|sp|pp|dp|ep|cp|all [model] [layout] [--dry-run]\n"
    "runs the traffic each strategy issues per training step on its real groups.\n"
    "Without a layout a single strategy gets all ranks; dp, when not given, is\n"
    "what the launched ranks leave.  --dtype is the model's type with --pattern.\n",
    {{&main_group, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_output, NULL},
     {&pb_grp_model, "model"},
     {&pb_grp_layout, "layout"},
     {&pb_grp_train, "training"},
     {&pb_grp_what, "what to measure (see parbench coll --help)"},
     {&pb_grp_sizes, "sizes"},
     {&pb_grp_timing, "timing"},
     {&pb_grp_check, "checking"},
     {&pb_grp_help, "help"}},
    "Every command has its own --help.\n"
    "exit codes: 0 ok, 1 verification failure, 2 bad input, 3 runtime failure\n",
    0, main_defaults, main_finish, NULL, main_alone, main_ranks, 0, NULL};
