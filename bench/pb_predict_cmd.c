/* parbench model and plan: a step predicted for one layout, and every
 * layout of a model ranked.  Pure computations over files and presets
 * (no MPI, nothing launched), printed by the one process that runs them. */
#include "pb_model_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/pb_band.h"
#include "../model/pb_gemm_fit.h"
#include "../model/pb_plan.h"
#include "../patterns/pb_stages.h"
#include "pb_against.h"
#include "pb_band_runs.h"
#include "pb_calib_csv.h"
#include "pb_job.h"
#include "pb_meas_rows.h"
#include "pb_pattern_plan.h"

/* what model and plan share: the hardware and the step settings (model
 * and layout are each command's own), the calibration, the compute rate */
typedef struct env {
    pb_job_t job;
    pb_calib_t calib;
    int have_calib;
    char rate_src[256];
} env_t;

static int env_init(const pb_predict_opts_t *h, const pb_train_opts_t *t, env_t *e, pb_err_t *err)
{
    memset(e, 0, sizeof *e);
    pb_calib_init(&e->calib);
    if (pb_job_settings(h, t, &e->job, err) != PB_OK)
        return err->code;
    if (h->calib) {
        if (pb_calib_csv_read(h->calib, &e->calib, err))
            return err->code;
        e->have_calib = 1;
    }
    return PB_OK;
}

/* --gemm-csv: the shapes of parbench gemm's bf16 rows (their label
 * starts "M=.. N=.. K=..") with the rates measured */
static int gemm_rows(const char *path, pb_gemm_meas_t **out, size_t *n, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    size_t nr = 0;
    *out = NULL;
    *n = 0;
    if (pb_meas_read_files(&path, 1, &rows, &nr, err))
        return err->code;
    pb_gemm_meas_t *g = malloc((nr ? nr : 1) * sizeof *g);
    if (g == NULL) {
        free(rows);
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", path);
    }
    for (size_t i = 0; i < nr; i++) {
        const pb_result_t *r = &rows[i];
        unsigned long long m, nn, k;
        if (strcmp(r->pattern, "gemm") != 0 || strcmp(r->dtype, "bfloat16") != 0 ||
            !(r->tflops > 0) || sscanf(r->label, "M=%llu N=%llu K=%llu", &m, &nn, &k) != 3)
            continue;
        g[*n] = (pb_gemm_meas_t){(double)m, (double)nn, (double)k, r->tflops};
        (*n)++;
    }
    free(rows);
    if (*n == 0) {
        free(g);
        return pb_err_set(err, PB_EINPUT, "%s has no bf16 parbench gemm rows", path);
    }
    *out = g;
    return PB_OK;
}

/* model and plan: the compute rate, from --tflops (flat), else the kernel
 * model, its GEMM share fitted to --gemm-csv's rows where given */
static int env_rate(const pb_predict_opts_t *h, env_t *e, pb_err_t *err)
{
    snprintf(e->rate_src, sizeof e->rate_src,
             "kernel by kernel: GEMM efficiency, attention, memory-bound kernels");
    if (h->tflops > 0) {
        e->job.step.compute_tflops = h->tflops;
        snprintf(e->rate_src, sizeof e->rate_src, "--tflops");
    } else if (h->gemm_csv) {
        pb_gemm_meas_t *rows;
        size_t n;
        if (gemm_rows(h->gemm_csv, &rows, &n, err) != PB_OK)
            return err->code;
        pb_gemm_fit_t fit;
        pb_gemm_fit(&e->job.hw, rows, n, &fit);
        free(rows);
        if (fit.used == 0)
            return pb_err_set(err, PB_EINPUT,
                              "%s: every GEMM row is bound by HBM, none measures the GEMM rate "
                              "(measure larger shapes)",
                              h->gemm_csv);
        snprintf(e->rate_src, sizeof e->rate_src,
                 "kernel by kernel, the GEMM share fitted to %zu measured GEMM%s: %.3f of the "
                 "peak at the best shape (preset %.3f)%s",
                 fit.used, fit.used == 1 ? "" : "s", fit.gemm_eff, e->job.hw.gemm_eff,
                 fit.above ? "; some rows beat the model's best, taken as 1" : "");
        e->job.hw.gemm_eff = fit.gemm_eff;
    }
    return PB_OK;
}

static void print_hw(const pb_hw_t *h)
{
    printf("hardware: %s: bf16 %.0f TFLOP/s dense, %.0f GiB HBM at %.2f TB/s, NVLink %.0f GB/s "
           "per direction, %d x %.0f Gb/s NIC%s per %d GPU%s\n",
           h->name, h->bf16_tflops, h->hbm_gib, h->hbm_tbps, h->nvlink_gbps, h->nics_per_node,
           h->nic_gbitps, h->nics_per_node == 1 ? "" : "s", h->gpus_per_node,
           h->gpus_per_node == 1 ? "" : "s");
}

static void print_step(const pb_model_t *m, const pb_layout_t *l, const env_t *e,
                       const pb_step_t *st)
{
    static const char *const kinds[] = {"TP", "CP", "DP", "PP", "EP", "EDP"};
    printf("model: %s: %llu layers, hidden %llu, %llu heads (%llu KV), ffn %llu, vocab %llu, "
           "seq %llu, %.2f B parameters\n",
           m->name, (unsigned long long)m->layers, (unsigned long long)m->hidden,
           (unsigned long long)m->heads, (unsigned long long)m->kv_heads,
           (unsigned long long)m->ffn, (unsigned long long)m->vocab, (unsigned long long)m->seq,
           (double)pb_model_params(m) / 1e9);
    uint64_t world = pb_layout_world(l);
    uint64_t nodes = (world + (uint64_t)e->job.hw.gpus_per_node - 1) / (uint64_t)e->job.hw.gpus_per_node;
    printf("layout: tp %d%s, pp %d, vp %d, dp %d, cp %d, ep %d on %llu GPU%s (%llu node%s of %d); "
           "mbs %llu, gbs %llu: %llu micro-batches; recompute %s%s%s%s%s\n",
           l->size[PB_DIM_TP], l->sp ? " (sp)" : "", l->size[PB_DIM_PP], l->vp,
           l->size[PB_DIM_DP],
           l->size[PB_DIM_CP], l->size[PB_DIM_EP], (unsigned long long)world,
           world == 1 ? "" : "s", (unsigned long long)nodes, nodes == 1 ? "" : "s",
           e->job.hw.gpus_per_node, (unsigned long long)m->mbs,
           (unsigned long long)(st->micro * m->mbs * (uint64_t)l->size[PB_DIM_DP]),
           (unsigned long long)st->micro, pb_recomp_name(e->job.step.recomp),
           e->job.step.flash ? ", flash attention" : ", materialised attention scores",
           e->job.step.causal ? " (causal)" : e->job.step.flash ? " (every score)" : "",
           e->job.step.zero3_copies ? ", FSDP2 copies" : "",
           e->job.step.grad_accum_fused ? "" : ", unfused gradient accumulation");
    pb_stages_t sg; /* said only when uneven */
    pb_stages_of(m, l->size[PB_DIM_PP], &sg);
    if (l->size[PB_DIM_PP] > 1 && (sg.first != sg.last || (l->size[PB_DIM_PP] > 2 && sg.first != sg.mid)))
        printf("stages: %llu layers on the first, %llu on each between, %llu on the last\n",
               (unsigned long long)sg.first, (unsigned long long)sg.mid,
               (unsigned long long)sg.last);
    print_hw(&e->job.hw);
    printf("compute rate: %.1f TFLOP/s per GPU (%s)\n", st->rate_tflops, e->rate_src);
    printf("collectives: %d operation kinds from the calibration, %d from the %s preset%s\n",
           st->ops_calibrated, st->ops_preset, e->job.hw.name,
           e->have_calib ? "" : " (no --calib)");
    if (st->ops_other_dtype)
        printf("collectives: %d operation kinds are reductions calibrated with another data "
               "type (theirs was not measured, or not at that size, or the file predates the "
               "dtype column: see README, Calibration)\n",
               st->ops_other_dtype);
    if (e->have_calib) {
        char note[512];
        pb_step_calib_note(st, e->job.hw.name, note, sizeof note);
        printf("%s\n", note);
    }
    printf("groups:");
    for (int k = 0; k < PB_GK_COUNT; k++) {
        int n = pb_layout_group_size(l, (pb_gkind_t)k);
        if (n <= 1)
            continue;
        printf(" %s %d %s", kinds[k], n, st->net[k] ? "across nodes" : "within a node");
        if (k == PB_GK_EP) /* the dispatcher its all-to-alls are costed as */
            printf(" (%s dispatcher)",
                   pb_ep_disp_name(pb_ep_disp_resolve(e->job.step.ep_disp, st->net[k])));
        printf(";");
    }
    printf("\n\n%-10s %12s %9s %16s\n", "part", "seconds", "% step", "before overlap");
    for (int p = 0; p < PB_PART_COUNT; p++) {
        printf("%-10s %12.4f %8.1f%%", pb_part_name(p), st->part[p],
               100.0 * st->part[p] / st->total);
        int comm = p == PB_PART_TP || p == PB_PART_PP || p == PB_PART_DP || p == PB_PART_EP ||
                   p == PB_PART_CP;
        if (comm)
            printf(" %16.4f", st->comm_total[p]);
        printf("\n");
    }
    printf("%-10s %12.4f %8.1f%%\n\n", "step", st->total, 100.0);
    printf("throughput: %.0f tokens/s; %.1f TFLOP/s per GPU (model), %.1f (hardware, with "
           "recomputation)\n",
           st->tokens_per_s, st->tflops_model, st->tflops_hw);
    printf("MFU %.1f %%, HFU %.1f %% of %.0f TFLOP/s bf16\n", 100 * st->mfu, 100 * st->hfu,
           e->job.hw.bf16_tflops);
    printf("efficiency: TP %.1f %% (compute / (compute + exposed TP)), PP %.1f %% (work / "
           "(work + bubble + p2p)), DP %.1f %% (step without exposed DP / step)\n",
           100 * st->eff_tp, 100 * st->eff_pp, 100 * st->eff_dp);
    printf("memory per GPU: %.2f B parameters x %.2f B = %.2f GiB weights+grads+optimizer; "
           "activations %.2f GiB (%.2f micro-batches in flight) + %.2f GiB embedding/output; "
           "total %.2f GiB of %.1f GiB usable (%.0f GiB x %.2f): %s\n",
           st->mem.params / 1e9, st->mem.weights / st->mem.params, st->mem.weights / PB_GIB,
           st->mem.act_layers / PB_GIB, st->mem.inflight, st->mem.act_extra / PB_GIB,
           st->mem.total / PB_GIB, st->capacity / PB_GIB, e->job.hw.hbm_gib, PB_HBM_USABLE,
           st->fits ? "fits" : "DOES NOT FIT");
}

/* The likely range of a step: the model's record on runs like it
 * (pb_band.h), widened by the ends of its measured collectives. */
typedef struct band_out {
    pb_band_t band;
    double lo_s, hi_s;         /* the step with the collectives at their ends */
    double likely_lo, likely_hi;
} band_out_t;

static int step_band(const env_t *e, const pb_band_run_t *runs, size_t nruns,
                     const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                     const pb_step_t *st, band_out_t *b, pb_err_t *err)
{
    memset(b, 0, sizeof *b);
    if (pb_band_from_runs(runs, nruns, pb_band_mech(m, l, c), &b->band, err) != PB_OK)
        return err->code;
    b->lo_s = b->hi_s = st->total;
    if (e->have_calib) {
        /* the step again with every measured collective at the optimistic
         * and at the pessimistic end of its range */
        for (int bound = -1; bound <= 1; bound += 2) {
            pb_cost_t cost = {&e->job.hw, &e->calib, bound};
            pb_step_t sb;
            if (pb_step_model(m, l, c, &cost, &sb, err) != PB_OK)
                return err->code;
            b->lo_s = sb.total < b->lo_s ? sb.total : b->lo_s;
            b->hi_s = sb.total > b->hi_s ? sb.total : b->hi_s;
        }
    }
    pb_band_range(&b->band, b->lo_s, b->hi_s, &b->likely_lo, &b->likely_hi);
    return PB_OK;
}

static void print_band(const env_t *e, const pb_step_t *st, const band_out_t *b)
{
    char like[96], mech[96];
    pb_band_mech_words(b->band.match & b->band.mech, like, sizeof like);
    pb_band_mech_words(b->band.mech, mech, sizeof mech);
    printf("step %.3f s, likely %.3f-%.3f s: the model's errors on the %d published runs most "
           "like this one (%s%s) span %+.1f %% to %+.1f %%",
           st->total, b->likely_lo, b->likely_hi, b->band.runs,
           b->band.match == 0 ? "all of them" : like,
           b->band.match != PB_MECH_ALL && b->band.match != 0 ? ", the closest the file has" : "",
           100.0 * b->band.err_lo, 100.0 * b->band.err_hi);
    (void)mech;
    if (e->have_calib)
        printf("; measured collectives at the ends of their ranges: %.3f-%.3f s", b->lo_s,
               b->hi_s);
    printf(" (README, Uncertainty)\n");
}

/* model's hardware, settings, compute rate, model and layout (the
 * calibration too, which the caller frees) */
static int model_env(const pb_options_t *o, env_t *e, pb_err_t *err)
{
    int code = env_init(&o->predict, &o->model.train, e, err);
    if (code == PB_OK)
        code = env_rate(&o->predict, e, err);
    if (code != PB_OK)
        return code;
    pb_model_opts_t mo = o->model;
    if (mo.sp && mo.layout[PB_DIM_TP] <= 1) {
        /* as Megatron: sequence parallelism without TP is switched off
         * with a warning, and the run goes on */
        fprintf(stderr, "parbench: warning: --sp needs --tp above 1; sequence parallelism "
                        "off\n");
        mo.sp = 0;
    }
    pb_pattern_plan_t p;
    code = pb_pattern_plan(&mo, 0, o->predict.gpus, 0, &p, err);
    if (code == PB_OK) {
        e->job.model = p.model;
        e->job.layout = p.layout;
    }
    pb_pattern_plan_free(&p);
    return code;
}

int pb_model_job(const pb_options_t *o, pb_job_t *j, pb_err_t *err)
{
    env_t e;
    int code = model_env(o, &e, err);
    if (code == PB_OK)
        *j = e.job;
    pb_calib_free(&e.calib);
    return code;
}

int pb_model_cmd(const pb_options_t *o, pb_err_t *err)
{
    if (o->predict.against) {
        pb_against_sum_t sum;
        return pb_against(o->predict.against, stdout, &sum, err);
    }
    env_t e;
    int code = model_env(o, &e, err);
    pb_step_t st;
    band_out_t b;
    pb_band_run_t *runs = NULL;
    size_t nruns = 0;
    if (code == PB_OK)
        code = pb_job_predict(&e.job, e.have_calib ? &e.calib : NULL, 0, &st, err);
    if (code == PB_OK)
        code = pb_band_runs(&runs, &nruns, err);
    if (code == PB_OK)
        code = step_band(&e, runs, nruns, &e.job.model, &e.job.layout, &e.job.step, &st, &b, err);
    if (code == PB_OK) {
        print_step(&e.job.model, &e.job.layout, &e, &st);
        print_band(&e, &st, &b);
        /* a layout that cannot run fails like a wrong result: after its
         * report, exit 1 (a script that plans with it must notice) */
        if (!st.fits)
            code = pb_err_set(err, PB_EVERIFY,
                              "does not fit: %.1f GiB per GPU of %.1f GiB usable (more tp or pp, "
                              "a sharded optimizer, recomputation or a smaller micro-batch)",
                              st.mem.total / PB_GIB, st.capacity / PB_GIB);
    }
    free(runs);
    pb_calib_free(&e.calib);
    return code;
}

int pb_model_predict(const pb_model_t *m, const pb_layout_t *l, const pb_predict_opts_t *hw,
                     const pb_train_opts_t *train, double tflops, pb_step_t *out,
                     int *calibrated, pb_err_t *err)
{
    env_t e;
    int code = env_init(hw, train, &e, err);
    if (code == PB_OK) {
        e.job.step.compute_tflops = tflops;
        e.job.model = *m;
        e.job.layout = *l;
        code = pb_job_predict(&e.job, e.have_calib ? &e.calib : NULL, 0, out, err);
        *calibrated = e.have_calib;
    }
    pb_calib_free(&e.calib);
    return code;
}

/* ---- plan: ties and what stands for them ---------------------------- */

#define TIE_TOKS 16
#define TIE_TOK 160

/* one description ("tp 8 sp, pp 4, dp 32, mbs 1, none, dist-opt") cut at
 * its commas, so that ties can be told apart by the parts that differ */
typedef struct alt {
    char tok[TIE_TOKS][TIE_TOK];
    int n;
} alt_t;

static void alt_split(const char *desc, alt_t *a)
{
    memset(a, 0, sizeof *a);
    const char *p = desc;
    while (*p && a->n < TIE_TOKS) {
        const char *q = strstr(p, ", ");
        size_t len = q ? (size_t)(q - p) : strlen(p);
        snprintf(a->tok[a->n++], TIE_TOK, "%.*s", (int)len, p);
        p = q ? q + 2 : p + len;
    }
}

/* the one part where a and b differ, or -1 (none, or several) */
static int alt_one_diff(const alt_t *a, const alt_t *b)
{
    if (a->n != b->n)
        return -1;
    int k = -1;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->tok[i], b->tok[i]) != 0) {
            if (k >= 0)
                return -1;
            k = i;
        }
    return k;
}

static void alt_join(const alt_t *a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < a->n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", a->tok[i]);
}

static int cmp_str(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* a := the alternatives of a and of b ("none or selective"), each once,
 * in alphabetical order, so that the same choice reads the same wherever
 * it stands */
static void tok_union(char *a, const char *b)
{
    char both[2 * TIE_TOK + 8], *alt[TIE_TOKS];
    int n = 0;
    snprintf(both, sizeof both, "%s or %s", a, b);
    for (char *p = both; p && n < TIE_TOKS;) {
        char *q = strstr(p, " or ");
        if (q)
            *q = '\0';
        alt[n++] = p;
        p = q ? q + 4 : NULL;
    }
    qsort(alt, (size_t)n, sizeof alt[0], cmp_str);
    size_t used = 0;
    a[0] = '\0';
    for (int i = 0; i < n && used < TIE_TOK; i++)
        if (i == 0 || strcmp(alt[i], alt[i - 1]) != 0)
            used += (size_t)snprintf(a + used, TIE_TOK - used, "%s%s", used ? " or " : "",
                                     alt[i]);
}

/* The tied entries e[0..n) as one description: alternatives that differ
 * in one part only merge into "none or selective" there; what stays apart
 * is listed in `others` by the parts that differ from the first. */
static void tie_words(const pb_plan_entry_t *e, size_t n, char *desc, size_t dlen, char *others,
                      size_t olen)
{
    alt_t *a = malloc(n * sizeof *a);
    if (a == NULL) {
        pb_plan_describe(&e[0], desc, dlen);
        snprintf(others, olen, "%zu alternatives of the same time", n - 1);
        return;
    }
    size_t live = n;
    for (size_t i = 0; i < n; i++) {
        char d[256];
        pb_plan_describe(&e[i], d, sizeof d);
        alt_split(d, &a[i]);
    }
    for (int merged = 1; merged;) {
        merged = 0;
        for (size_t i = 0; i < live && !merged; i++)
            for (size_t j = i + 1; j < live && !merged; j++) {
                int k = alt_one_diff(&a[i], &a[j]);
                if (k < 0)
                    continue;
                tok_union(a[i].tok[k], a[j].tok[k]);
                a[j] = a[--live];
                merged = 1;
            }
    }
    alt_join(&a[0], desc, dlen);
    size_t used = 0;
    others[0] = '\0';
    for (size_t j = 1; j < live && used < olen; j++) {
        used += (size_t)snprintf(others + used, olen - used, "%s", j > 1 ? "; " : "");
        int first = 1;
        for (int i = 0; i < a[j].n && used < olen; i++)
            if (i >= a[0].n || strcmp(a[j].tok[i], a[0].tok[i]) != 0) {
                used += (size_t)snprintf(others + used, olen - used, "%s%s", first ? "" : ", ",
                                         a[j].tok[i]);
                first = 0;
            }
    }
    free(a);
}

/* entries i.. that take the same time as e[i] (to a part in 10^9: the
 * same arithmetic, not a near miss) */
static size_t tie_run(const pb_plan_result_t *r, size_t i)
{
    size_t j = i + 1;
    while (j < r->n && r->e[j].st.total - r->e[i].st.total <= 1e-9 * r->e[i].st.total)
        j++;
    return j - i;
}

int pb_plan_cmd(const pb_options_t *o, pb_err_t *err)
{
    env_t e;
    int code = env_init(&o->predict, &o->model.train, &e, err);
    if (code == PB_OK)
        code = env_rate(&o->predict, &e, err);
    pb_pattern_plan_t p;
    memset(&p, 0, sizeof p);
    pb_model_t m;
    if (code == PB_OK) {
        /* the model only (on a layout of one GPU): the layout is what the
         * search decides */
        pb_model_opts_t one = o->model;
        one.layout[PB_LAYOUT_DP] = 1;
        code = pb_pattern_plan(&one, 0, 1, 0, &p, err);
        m = p.model;
        pb_pattern_plan_free(&p);
    }
    /* layouts compared at one batch: each at its own (2 x pp micro-
     * batches) would rank a small batch's few micro-batches against a
     * large one's, which no user is choosing between */
    if (code == PB_OK && m.gbs == 0)
        code = pb_err_set(err, PB_EINPUT,
                          "parbench plan needs the global batch: --gbs N (sequences), "
                          "--tokens-per-step T, or a --model-file or --megatron-args that sets it");
    if (code != PB_OK) {
        pb_calib_free(&e.calib);
        return code;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pb_cost_t cost = {&e.job.hw, e.have_calib ? &e.calib : NULL, 0};
    pb_plan_cfg_t pc = {o->predict.gpus, e.job.step};
    /* every entry counts a decoder's scores as its kernel does (flash:
     * half), unless --no-causal */
    pc.step.causal = !o->predict.no_causal;
    pb_plan_result_t r;
    code = pb_plan(&m, &pc, &cost, &r, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    pb_band_run_t *runs = NULL;
    size_t nruns = 0;
    if (code == PB_OK)
        code = pb_band_runs(&runs, &nruns, err);
    if (code == PB_OK) {
        printf("plan: %s (%.2f B parameters) on %d GPUs, %d per node; gbs %llu (%llu tokens), "
               "seq %llu\n",
               m.name, (double)pb_model_params(&m) / 1e9, o->predict.gpus,
               e.job.hw.gpus_per_node, (unsigned long long)m.gbs,
               (unsigned long long)(m.gbs * m.seq), (unsigned long long)m.seq);
        print_hw(&e.job.hw);
        if (e.job.step.compute_tflops > 0)
            printf("compute rate %.1f TFLOP/s per GPU (%s); ", e.job.step.compute_tflops,
                   e.rate_src);
        else
            printf("compute %s; ", e.rate_src);
        printf("collectives from %s\n", e.have_calib ? "the calibration where it covers them, else the preset"
                                        : "the preset");
        printf("searched %llu layouts in %.3f s: %llu break a constraint, %llu do not fit in "
               "%.0f GiB x %.2f, %zu ranked\n\n",
               (unsigned long long)r.considered, secs, (unsigned long long)r.invalid,
               (unsigned long long)r.oom, e.job.hw.hbm_gib, PB_HBM_USABLE, r.n);
        if (r.n == 0)
            code = pb_err_set(err, PB_EINPUT,
                              "no layout of %s fits %d GPUs of %.0f GiB at gbs %llu (more GPUs, "
                              "or a smaller batch or sequence)",
                              m.name, o->predict.gpus, e.job.hw.hbm_gib,
                              (unsigned long long)m.gbs);
    }
    double best_hi = 0.0;
    int equivalent = 0, printed = 0;
    const pb_plan_entry_t *prev = NULL;
    for (size_t i = 0; code == PB_OK && i < r.n && printed < o->top;) {
        size_t ties = tie_run(&r, i);
        const pb_plan_entry_t *en = &r.e[i];
        pb_model_t me;
        pb_step_cfg_t sc;
        pb_plan_entry_setup(&m, &pc, en, &me, &sc);
        band_out_t b;
        if (step_band(&e, runs, nruns, &me, &en->layout, &sc, &en->st, &b, err) != PB_OK) {
            code = err->code;
            break;
        }
        if (printed == 0) {
            best_hi = b.likely_hi;
            printf("%5s %9s %13s %6s %6s %6s %8s  %-58s %s\n", "rank", "step_s", "likely_s",
                   "MFU%", "bubbl%", "memGiB", "tok/s/G", "layout",
                   "why it loses to the one above");
        }
        /* '=': its likely range reaches into the fastest's, so the model
         * cannot tell the two apart */
        int same = printed > 0 && b.likely_lo <= best_hi;
        equivalent += same;
        char desc[512], others[512] = "", why[256] = "fastest", rank[16], likely[32];
        tie_words(en, ties, desc, sizeof desc, others, sizeof others);
        if (prev)
            pb_plan_reason(prev, en, why, sizeof why);
        snprintf(rank, sizeof rank, "%d%s", printed + 1, same ? "=" : "");
        snprintf(likely, sizeof likely, "%.3f-%.3f", b.likely_lo, b.likely_hi);
        printf("%5s %9.3f %13s %6.1f %6.1f %6.1f %8.0f  %-58s %s", rank, en->st.total, likely,
               100 * en->st.mfu, 100 * en->st.bubble_frac, en->st.mem.total / PB_GIB,
               en->st.tokens_per_s / o->predict.gpus, desc, why);
        if (others[0])
            printf("; same time: %s", others);
        printf("\n");
        prev = en;
        printed++;
        i += ties;
    }
    if (code == PB_OK && printed > 1)
        printf("\n%d of the %d layouts after the fastest (marked =) are likely as fast: their "
               "likely range overlaps its (README, Uncertainty)\n",
               equivalent, printed - 1);
    free(runs);
    pb_plan_free(&r);
    pb_calib_free(&e.calib);
    return code;
}
