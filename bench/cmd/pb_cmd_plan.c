/* parbench plan: every layout of a model on N GPUs, ranked by predicted
 * step time, each with the reason it loses to the one above and its
 * likely range.  A pure computation over files and presets (no MPI,
 * nothing launched), printed by the one process that runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../model/pb_plan.h"
#include "../cli/pb_opt_common.h"
#include "../glue/pb_pattern_plan.h"
#include "../glue/pb_predict.h"
#include "../glue/pb_step_json.h"
#include "pb_cmd_model.h"
#include "pb_plan_ties.h"

/* The fields no flag gave where no preset or file names the model
 * (pb_pattern_plan_t assumed), said under the plan's first line */
typedef struct plan_said {
    char assumed[320];
    const char *from;
} plan_said_t;

/* The model alone (on a layout of one GPU: the layout is what the search
 * decides), with the hardware, settings and compute rate.  On failure
 * nothing is left to free. */
static int plan_model(const pb_options_t *o, pb_predict_env_t *e, pb_model_t *m,
                      plan_said_t *said, pb_err_t *err)
{
    said->assumed[0] = '\0';
    said->from = NULL;
    int code = pb_predict_env_init(&o->predict, &o->model.train, e, err);
    if (code == PB_OK)
        code = pb_predict_env_rate(&o->predict, e, err);
    if (code == PB_OK) {
        pb_model_opts_t one = o->model;
        pb_pattern_plan_t p;
        memset(&p, 0, sizeof p);
        one.layout[PB_LAYOUT_DP] = 1;
        code = pb_pattern_plan(&one, 0, 1, 0, &p, err);
        *m = p.model;
        snprintf(said->assumed, sizeof said->assumed, "%s", code == PB_OK ? p.assumed : "");
        said->from = p.assumed_from;
        pb_pattern_plan_free(&p);
    }
    /* layouts compared at one batch: each at its own (2 x pp micro-
     * batches) would rank a small batch's few micro-batches against a
     * large one's, which no user is choosing between */
    if (code == PB_OK && m->gbs == 0)
        code = pb_err_set(err, PB_EINPUT,
                          "parbench plan needs the global batch: --gbs N (sequences), "
                          "--tokens-per-step T, or a --model-file or --megatron-args that sets it");
    if (code != PB_OK)
        pb_calib_free(&e->calib);
    return code;
}

/* What was searched, on what, and how fast; PB_EINPUT when nothing fits. */
static int print_head(const pb_options_t *o, const pb_model_t *m, const pb_predict_env_t *e,
                      const pb_plan_cfg_t *pc, const pb_plan_result_t *r, double secs,
                      const plan_said_t *said, pb_err_t *err)
{
    printf("plan: %s (%.2f B parameters) on %d GPUs, %d per node; gbs %llu (%llu tokens), "
           "seq %llu\n",
           m->name, (double)pb_model_params(m) / 1e9, o->predict.gpus, e->job.hw.gpus_per_node,
           (unsigned long long)m->gbs, (unsigned long long)(m->gbs * m->seq),
           (unsigned long long)m->seq);
    if (said->assumed[0])
        printf("assumed (%s): %s\n", said->from, said->assumed);
    pb_print_hw(&e->job.hw);
    if (e->job.step.compute_tflops > 0)
        printf("compute rate %.1f TFLOP/s per GPU (%s); ", e->job.step.compute_tflops,
               e->rate_src);
    else
        printf("compute %s; ", e->rate_src);
    printf("collectives from %s\n", e->have_calib
                                        ? "the calibration where it covers them, else the preset"
                                        : "the preset");
    printf("searched %llu layouts in %.3f s: %llu break a constraint, %llu do not fit (their "
           "memory band wholly over what the allocator can reserve of %.2f GiB), %zu ranked, "
           "%llu of them tight (their band reaches capacity)\n\n",
           (unsigned long long)r->considered, secs, (unsigned long long)r->invalid,
           (unsigned long long)r->oom, e->job.hw.hbm_cuda_gib, r->n,
           (unsigned long long)r->tight);
    /* memory's words only where memory refused some (issue 50): else
     * what the layouts broke */
    if (r->n == 0 && r->oom > 0)
        return pb_err_set(err, PB_EINPUT,
                          "no layout of %s fits %d GPUs of %.0f GiB at gbs %llu (more GPUs, "
                          "or a smaller batch or sequence)",
                          m->name, o->predict.gpus, e->job.hw.hbm_gib, (unsigned long long)m->gbs);
    if (r->n == 0) {
        char why[480];
        pb_plan_why_none(m, pc, r, why, sizeof why);
        return pb_err_set(err, PB_EINPUT, "no layout of %s runs on %d GPUs, none for lack of "
                          "memory: %s", m->name, o->predict.gpus, why);
    }
    return PB_OK;
}

/* What the ranking prints beside each entry: the runs its band comes
 * from, the fastest's likely top, the one above. */
typedef struct ranking {
    const pb_options_t *o;
    const pb_model_t *m;
    const pb_plan_cfg_t *pc;
    const pb_predict_env_t *e;
    const pb_band_run_t *runs;
    size_t nruns;
    double best_hi;
    int equivalent, printed;
    const pb_plan_entry_t *prev;
} ranking_t;

/* One line: the entry and the `ties` after it that take the same time. */
static int print_entry(ranking_t *k, const pb_plan_entry_t *en, size_t ties, pb_err_t *err)
{
    pb_model_t me;
    pb_step_cfg_t sc;
    pb_plan_entry_setup(k->m, k->pc, en, &me, &sc);
    pb_step_band_t b;
    if (pb_step_band(k->e, k->runs, k->nruns, &me, &en->layout, &sc, &en->st, &b, err) != PB_OK)
        return err->code;
    if (k->printed == 0) {
        k->best_hi = b.likely_hi;
        printf("%5s %9s %13s %6s %6s %6s %-5s %8s  %-58s %s\n", "rank", "step_s", "likely_s",
               "MFU%", "bubbl%", "memGiB", "mem", "tok/s/G", "layout",
               "why it loses to the one above");
    }
    /* '=': its likely range reaches into the fastest's, so the model
     * cannot tell the two apart */
    int same = k->printed > 0 && b.likely_lo <= k->best_hi;
    k->equivalent += same;
    char desc[512], others[512] = "", why[256] = "fastest", rank[16], likely[32];
    pb_plan_tie_words(en, ties, desc, sizeof desc, others, sizeof others);
    if (k->prev)
        pb_plan_reason(k->prev, en, why, sizeof why);
    snprintf(rank, sizeof rank, "%d%s", k->printed + 1, same ? "=" : "");
    snprintf(likely, sizeof likely, "%.3f-%.3f", b.likely_lo, b.likely_hi);
    printf("%5s %9.3f %13s %6.1f %6.1f %6.1f %-5s %8.0f  %-58s %s", rank, en->st.total, likely,
           100 * en->st.mfu, 100 * en->st.bubble_frac, pb_mem_needed(en->st.mem.total) / PB_GIB,
           pb_mem_fit_name(en->mem.fit),
           en->st.tokens_per_s / k->o->predict.gpus, desc, why);
    if (others[0])
        printf("; same time: %s", others);
    printf("\n");
    k->prev = en;
    k->printed++;
    return PB_OK;
}

/* The best --top entries, ties on one line each, then how many of them
 * the model cannot tell from the fastest. */
static int print_ranking(ranking_t *k, const pb_plan_result_t *r, pb_err_t *err)
{
    for (size_t i = 0; i < r->n && k->printed < k->o->top;) {
        size_t ties = pb_plan_tie_run(r, i);
        if (print_entry(k, &r->e[i], ties, err) != PB_OK)
            return err->code;
        i += ties;
    }
    if (k->printed > 1)
        printf("\n%d of the %d layouts after the fastest (marked =) are likely as fast: their "
               "likely range overlaps its (doc/prediction.md, Uncertainty)\n",
               k->equivalent, k->printed - 1);
    return PB_OK;
}

/* --json: the best --top layouts, fastest first, each as model --json
 * writes one (pb_step_json.h) with its rank (exact ties apart, as the
 * search ranked them), and the search's counts */
static int plan_json(const pb_options_t *o, const pb_model_t *m, const pb_plan_cfg_t *pc,
                     const pb_predict_env_t *e, const pb_plan_result_t *r, pb_err_t *err)
{
    json_t *list = json_array();
    for (size_t i = 0; i < r->n && i < (size_t)o->top && list; i++) {
        pb_job_t j = e->job;
        pb_plan_entry_setup(m, pc, &r->e[i], &j.model, &j.step);
        j.layout = r->e[i].layout;
        json_t *one = pb_step_json(&j, &r->e[i].st, NULL, &r->e[i].mem);
        char desc[512];
        pb_plan_describe(&r->e[i], desc, sizeof desc);
        if (one == NULL || json_object_set_new(one, "rank", json_integer((json_int_t)i + 1)) ||
            json_object_set_new(one, "describe", json_string(desc)) ||
            json_array_append_new(list, one)) {
            json_decref(list);
            list = NULL;
        }
    }
    json_t *root = list ? json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "considered",
                                    (json_int_t)r->considered, "invalid", (json_int_t)r->invalid,
                                    "do_not_fit", (json_int_t)r->oom, "ranked", (json_int_t)r->n,
                                    "tight", (json_int_t)r->tight, "best", list)
                        : NULL;
    int code = pb_json_emit(root, o->predict.json, err);
    json_decref(root);
    return code;
}

static int plan_cmd(const pb_options_t *o, pb_err_t *err)
{
    pb_predict_env_t e;
    pb_model_t m;
    plan_said_t said;
    if (plan_model(o, &e, &m, &said, err) != PB_OK)
        return err->code;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pb_cost_t cost = {&e.job.hw, e.have_calib ? &e.calib : NULL, 0};
    pb_band_run_t *mruns = NULL;
    size_t nmruns = 0;
    if (pb_band_mem_runs(&mruns, &nmruns, err) != PB_OK) {
        pb_calib_free(&e.calib);
        return err->code;
    }
    pb_plan_cfg_t pc = {o->predict.gpus, e.job.step, mruns, nmruns};
    /* every entry counts a decoder's scores as its kernel does (flash:
     * half), unless --no-causal */
    pc.step.causal = !o->predict.no_causal;
    pb_plan_result_t r;
    int code = pb_plan(&m, &pc, &cost, &r, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    pb_band_run_t *runs = NULL;
    size_t nruns = 0;
    if (code == PB_OK)
        code = pb_band_runs(&runs, &nruns, err);
    if (code == PB_OK)
        code = print_head(o, &m, &e, &pc, &r, secs, &said, err);
    if (code == PB_OK && o->predict.json)
        code = plan_json(o, &m, &pc, &e, &r, err);
    if (code == PB_OK && !(o->predict.json && strcmp(o->predict.json, "-") == 0)) {
        ranking_t k = {o, &m, &pc, &e, runs, nruns, 0.0, 0, 0, NULL};
        code = print_ranking(&k, &r, err);
    }
    free(runs);
    free(mruns);
    pb_plan_free(&r);
    pb_calib_free(&e.calib);
    return code;
}

/* ---- the command: its options and table row ----------------------- */

static int plan_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? plan_cmd(o, err) : PB_OK;
}

static const pb_opt_spec_t plan_specs[] = {
    {"top", 0, "N", pb_opt_int, PB_OFF(top), 1, "layouts printed (default 10)", NULL, NULL},
};
static const pb_opt_group_t plan_group = PB_GROUP("", plan_specs, NULL);

static int plan_finish(pb_options_t *o, pb_err_t *err)
{
    if (pb_predict_finish(o, err) != PB_OK)
        return err->code;
    if (o->predict.gpus == 0 && !o->model.megatron_args)
        return pb_err_set(err, PB_EINPUT, "parbench plan needs --gpus N");
    if (o->predict.against)
        return pb_err_set(err, PB_EINPUT,
                          "--against is an option of parbench model (it predicts a file's runs; "
                          "plan searches layouts)");
    return PB_OK;
}

static const char *plan_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    if (g == &pb_grp_layout)
        return "parbench plan searches the layout: no --tp, --pp, --vp, --sp, --cp, --ep or --dp";
    return pb_pure_foreign(s, g);
}

const pb_cmd_desc_t pb_cmd_plan = {
    PB_CMD_PLAN, "plan", "rank every layout of a model on N GPUs (parbench plan --help)",
    "usage: parbench plan [model] --gpus N --gpus-per-node G [--hw NAME] [--calib F]\n"
    "\n"
    "Enumerates tp, pp, vp, dp, cp, ep, micro-batch, recomputation and optimizer\n"
    "sharding; drops layouts that break a constraint or do not fit in memory;\n"
    "ranks the rest by predicted step time and prints the best --top N (10), each\n"
    "with the reason it loses to the one above.\n",
    {{&plan_group, NULL},
     {&pb_grp_predict, NULL},
     {&pb_grp_model_own, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_help, NULL}},
    "", 0, pb_model_cmd_defaults, plan_finish, plan_foreign, plan_alone, NULL, 0, NULL};
