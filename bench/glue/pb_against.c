#include "pb_against.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_csv_records.h"
#include "pb_job.h"

/* the columns, in no required order; all needed */
enum { C_NAME, C_GPU, C_GPUS, C_LAYERS, C_HIDDEN, C_HEADS, C_KV, C_HEAD_DIM, C_FFN, C_VOCAB,
       C_GATED, C_EXPERTS, C_TOPK, C_MOE_FFN, C_SEQ, C_MBS, C_GBS, C_TP, C_PP, C_DP, C_CP, C_EP,
       C_ETP, C_VP, C_SP, C_TRIM, C_RECOMP, C_ZERO, C_FLASH, C_OVERLAP, C_METRIC, C_VALUE, C_FLOPS, C_SOURCE,
       C_COUNT };
static const char *const cols[C_COUNT] = {
    "name", "gpu", "gpus", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab",
    "gated", "experts", "topk", "moe_ffn", "seq", "mbs", "gbs", "tp", "pp", "dp", "cp", "ep",
    "etp", "vp", "sp", "pp_trim", "recompute", "zero", "flash", "overlap", "metric", "value", "flops", "source"};

typedef struct state {
    const char *path;
    int map[C_COUNT];
    int disp_col; /* the optional "dispatcher" column, -1 when absent */
    int header;
    pb_against_fn fn;
    void *arg;
} state_t;

static int num(const state_t *s, size_t line, const pb_csv_rec_t *rec, int c, double *v,
               pb_err_t *err)
{
    const char *f = rec->field[s->map[c]];
    char *end;
    errno = 0;
    *v = strtod(f, &end);
    if (f[0] == '\0' || *end != '\0' || errno || !isfinite(*v) || *v < 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad %s '%s' (a number of at least 0)",
                          s->path, line, cols[c], f);
    return PB_OK;
}

/* the published figure as seconds per step, in the source's FLOPs
 * convention: hfu counts recomputation (Narayanan et al. 2021's 96-form),
 * mfu the model's 3 passes, both with the full s^2 attention; mfu-causal
 * halves it (Megatron since 2025) */
static int published_step(const state_t *s, size_t line, const pb_csv_rec_t *rec,
                          const pb_model_t *m, const pb_hw_t *hw, pb_recomp_t r, double gpus,
                          double v, double *step, pb_err_t *err)
{
    const char *metric = rec->field[s->map[C_METRIC]], *conv = rec->field[s->map[C_FLOPS]];
    if (strcmp(metric, "step_s") == 0) {
        *step = v;
        return PB_OK;
    }
    if (strcmp(metric, "tokens_s_gpu") == 0) {
        *step = (double)m->gbs * (double)m->seq / (v * gpus);
        return PB_OK;
    }
    double tf = v;
    if (strcmp(metric, "mfu") == 0)
        tf = v * hw->bf16_tflops;
    else if (strcmp(metric, "tflops") != 0)
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: metric '%s' is none of step_s, tokens_s_gpu, tflops, mfu",
                          s->path, line, metric);
    double f;
    if (strcmp(conv, "hfu") == 0)
        f = pb_flops_step(m, m->gbs, 0, r).hw;
    else if (strcmp(conv, "mfu") == 0)
        f = pb_flops_step(m, m->gbs, 0, r).model;
    else if (strcmp(conv, "mfu-causal") == 0)
        f = pb_flops_step(m, m->gbs, 1, r).model;
    else
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: flops '%s' is none of hfu, mfu, mfu-causal (needed by %s)",
                          s->path, line, conv, metric);
    *step = f / (tf * 1e12 * gpus);
    return PB_OK;
}

/* A row's model: its shape columns over the defaults, as --model-file
 * lines would set them. */
static int row_model(const state_t *s, size_t line, const pb_csv_rec_t *rec, pb_model_t *m,
                     pb_err_t *err)
{
    static const int mf[] = {C_LAYERS, C_HIDDEN, C_HEADS, C_KV, C_HEAD_DIM, C_FFN, C_VOCAB,
                             C_EXPERTS, C_TOPK, C_MOE_FFN, C_SEQ, C_MBS, C_GBS, C_TRIM};
    static const char *const mk[] = {"layers", "hidden", "heads", "kv_heads", "head_dim",
                                     "ffn", "vocab", "experts", "topk", "moe_ffn", "seq",
                                     "mbs", "gbs", "pp_trim"};
    snprintf(m->name, sizeof m->name, "%s", rec->field[s->map[C_NAME]]);
    m->dtype = PB_BF16, m->moe_every = 1;
    pb_err_t e;
    pb_err_clear(&e);
    for (size_t i = 0; i < sizeof mf / sizeof mf[0]; i++)
        if (pb_model_set(m, mk[i], rec->field[s->map[mf[i]]], &e) != PB_OK)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    if (pb_model_set(m, "gated", rec->field[s->map[C_GATED]], &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    return PB_OK;
}

/* A row's numbers: the layout and the small counts (whole numbers an int
 * holds), the GPUs, the published value. */
static const int num_cols[] = {C_TP, C_CP, C_EP, C_DP, C_PP, C_VP, C_SP, C_ZERO, C_FLASH, C_ETP};
enum { N_VP = 5, N_SP, N_ZERO, N_FLASH, N_ETP, N_COUNT };
typedef struct nums {
    double d[N_COUNT]; /* num_cols' columns */
    double gpus, value;
} nums_t;

static int row_numbers(const state_t *s, size_t line, const pb_csv_rec_t *rec, nums_t *n,
                       pb_err_t *err)
{
    for (int i = 0; i < N_COUNT; i++)
        if (num(s, line, rec, num_cols[i], &n->d[i], err) != PB_OK)
            return err->code;
    if (num(s, line, rec, C_GPUS, &n->gpus, err) || num(s, line, rec, C_VALUE, &n->value, err))
        return err->code;
    for (int i = 0; i < N_COUNT; i++)
        if (n->d[i] != floor(n->d[i]) || n->d[i] > 1 << 20)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: bad %s '%g' (a whole number up to %d)",
                              s->path, line, cols[num_cols[i]], n->d[i], 1 << 20);
    if (n->gpus != floor(n->gpus) || n->gpus < 1 || n->gpus > 1 << 20)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad gpus '%g' (a whole number, 1 to %d)",
                          s->path, line, n->gpus, 1 << 20);
    return PB_OK;
}

/* A row's step settings: recomputation, optimizer sharding, the EP
 * dispatcher, what overlapped, attention. */
static int row_step(const state_t *s, size_t line, const pb_csv_rec_t *rec, const nums_t *n,
                    const pb_model_t *m, pb_step_cfg_t *c, pb_err_t *err)
{
    if (pb_recomp_parse(rec->field[s->map[C_RECOMP]], &c->recomp) != 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: recompute '%s' is none of none, selective, full",
                          s->path, line, rec->field[s->map[C_RECOMP]]);
    c->traffic.zero = (int)n->d[N_ZERO];
    /* dispatcher (optional column): alltoall or flex (DeepEP); empty or
     * absent: auto, by whether the EP group spans nodes (pb_ep_cost.h) */
    if (s->disp_col >= 0 && (size_t)s->disp_col < rec->nfields &&
        pb_ep_disp_parse(rec->field[s->disp_col], &c->ep_disp) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: dispatcher '%s' is none of alltoall, flex, auto or empty",
                          s->path, line, rec->field[s->disp_col]);
    /* overlap: the letters of what the run overlapped - g gradient
     * reduction, t TP backward collectives, p interleaved send/recv;
     * and how its gradients were kept: u, accumulated by a separate add
     * per micro-batch rather than inside the weight-gradient GEMMs (the
     * 2021 code); h, kept and reduced in 16 bits (fp16 runs without
     * --accumulate-allreduce-grads-in-fp32, DeepSpeed fp16); c, ZeRO-3
     * through PyTorch FSDP2's copies on the compute stream; "-" none */
    const char *ov = rec->field[s->map[C_OVERLAP]];
    if (ov[0] == '\0' || strspn(ov, "gtpuhc-") != strlen(ov))
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: overlap '%s' is not letters of g, t, p, u, h, c or '-'",
                          s->path, line, ov);
    c->overlap_grad = strchr(ov, 'g') != NULL;
    c->overlap_tp_bwd = strchr(ov, 't') != NULL;
    c->overlap_p2p = strchr(ov, 'p') != NULL;
    c->grad_accum_fused = strchr(ov, 'u') == NULL;
    c->zero3_copies = strchr(ov, 'c') != NULL;
    if (strchr(ov, 'h'))
        c->traffic.grad_dtype = m->dtype;
    /* as on the command line (pb_job_settings): a fused attention kernel
     * skips the masked half, the materialised path of the 2021-22 runs
     * computes every score */
    c->flash = c->causal = n->d[N_FLASH] > 0;
    return PB_OK;
}

/* One row: the model, the layout and the settings it names, in the
 * struct the command line fills (pb_job.h), predicted with its GPU's
 * preset and handed to fn (with why when the model refused it). */
static int row(state_t *s, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    pb_job_t j;
    pb_job_defaults(&j);
    pb_model_t *m = &j.model;
    pb_layout_t *l = &j.layout;
    pb_step_cfg_t *c = &j.step;
    nums_t n;
    if (row_model(s, line, rec, m, err) != PB_OK || row_numbers(s, line, rec, &n, err) != PB_OK)
        return err->code;
    for (int i = 0; i < PB_DIM_COUNT; i++)
        l->size[i] = (int)n.d[i];
    l->vp = (int)n.d[N_VP], l->sp = n.d[N_SP] > 0, l->etp = (int)n.d[N_ETP];
    if (row_step(s, line, rec, &n, m, c, err) != PB_OK)
        return err->code;
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_hw_preset(rec->field[s->map[C_GPU]], &j.hw, &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    c->gpus_per_node = j.hw.gpus_per_node;
    pb_against_run_t run;
    memset(&run, 0, sizeof run);
    run.name = m->name;
    run.source = rec->field[s->map[C_SOURCE]];
    run.gpu = j.hw.name;
    run.line = line;
    run.gpus = n.gpus;
    if (published_step(s, line, rec, m, &j.hw, c->recomp, n.gpus, n.value, &run.published_s,
                       err) != PB_OK)
        return err->code;
    pb_step_t st;
    if (pb_model_check(m, &e) != PB_OK || pb_layout_check(l, m, (uint64_t)n.gpus, &e) != PB_OK ||
        pb_job_predict(&j, NULL, 0, &st, &e) != PB_OK) {
        run.why = e.msg;
        return s->fn(s->arg, &run, err);
    }
    run.job = &j;
    run.step = &st;
    run.predicted_s = st.total;
    return s->fn(s->arg, &run, err);
}

static int record(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    state_t *s = arg;
    if (!s->header) {
        for (int i = 0; i < C_COUNT; i++)
            if ((s->map[i] = pb_csv_rec_find(rec, cols[i])) < 0)
                return pb_err_set(err, PB_EINPUT, "%s:%zu: no '%s' column", s->path, line,
                                  cols[i]);
        s->disp_col = pb_csv_rec_find(rec, "dispatcher");
        s->header = 1;
        return PB_OK;
    }
    if (rec->nfields != 0 && rec->nfields < C_COUNT)
        for (int i = 0; i < C_COUNT; i++)
            if ((size_t)s->map[i] >= rec->nfields)
                return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, the header names %d",
                                  s->path, line, rec->nfields, C_COUNT);
    return row(s, line, rec, err);
}

int pb_against_each(FILE *f, const char *path, pb_against_fn fn, void *arg, pb_err_t *err)
{
    state_t s;
    memset(&s, 0, sizeof s);
    s.path = path, s.fn = fn, s.arg = arg;
    int code = pb_csv_parse_file(f, path, record, &s, err);
    if (code == PB_OK && !s.header)
        code = pb_err_set(err, PB_EINPUT, "%s has no runs", path);
    return code;
}

/* pb_against's printing and its summary */
typedef struct printer {
    FILE *out;
    pb_against_sum_t *sum;
    double abs_sum;
} printer_t;

static int print_run(void *arg, const pb_against_run_t *r, pb_err_t *err)
{
    (void)err;
    printer_t *p = arg;
    p->sum->runs++;
    if (r->step == NULL) {
        if (p->out)
            fprintf(p->out, "%-28s %-5s %6.0f %10.3f %10s %8s  not predicted: %s\n", r->name,
                    r->gpu, r->gpus, r->published_s, "-", "-", r->why);
        return PB_OK;
    }
    double er = r->predicted_s / r->published_s - 1.0;
    p->sum->predicted++;
    p->sum->within += fabs(er) <= 0.10 + 1e-12;
    p->abs_sum += fabs(er);
    p->sum->max_abs = fabs(er) > p->sum->max_abs ? fabs(er) : p->sum->max_abs;
    if (p->out)
        fprintf(p->out, "%-28s %-5s %6.0f %10.3f %10.3f %+7.1f%%  %s\n", r->name, r->gpu,
                r->gpus, r->published_s, r->predicted_s, 100.0 * er, r->source);
    return PB_OK;
}

int pb_against(const char *path, FILE *out, pb_against_sum_t *sum, pb_err_t *err)
{
    memset(sum, 0, sizeof *sum);
    printer_t p = {out, sum, 0.0};
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read CSV '%s': %s", path, strerror(errno));
    if (out)
        fprintf(out, "# parbench model --against %s: each run with its GPU's preset, no "
                     "calibration; error = predicted / published step time - 1\n"
                     "%-28s %-5s %6s %10s %10s %8s  %s\n",
                path, "run", "gpu", "gpus", "published", "predicted", "error", "source");
    int code = pb_against_each(f, path, print_run, &p, err);
    fclose(f);
    if (code != PB_OK)
        return code;
    if (sum->runs == 0)
        return pb_err_set(err, PB_EINPUT, "%s has no runs", path);
    sum->mean_abs = sum->predicted ? p.abs_sum / sum->predicted : 0.0;
    if (out)
        fprintf(out,
                "summary: %d runs, %d predicted, %d within +-10 %% (%.0f %% of all runs); mean "
                "absolute error %.1f %%, max %.1f %%\n",
                sum->runs, sum->predicted, sum->within, 100.0 * sum->within / sum->runs,
                100.0 * sum->mean_abs, 100.0 * sum->max_abs);
    return PB_OK;
}
