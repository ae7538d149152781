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

/* Optional columns: absent or empty, the default.  The stack's settings
 * (framework, dtype, tp_overlap, param_dtype, moe_imbalance,
 * moe_ep_overlap, pp_schedule, fp8_recipe) go through pb_job_set and the model's
 * (shared_ffn, dense_first) through pb_model_set, as the flags do; the
 * GPU's (alloc_frag, and hw_set: "key=value ..." as --hw-set takes each,
 * e.g. the capacity of a card the presets lack) through pb_hw_set, and
 * gpus_per_node as --gpus-per-node (a node of 4 H200, say), shard_group
 * as --shard-group (HSDP); split,
 * family and inferred describe the row for the summaries. */
enum { O_DISP, O_FRAMEWORK, O_DTYPE, O_TP_OVERLAP, O_PARAM_DTYPE, O_MOE_IMB, O_MOE_OVERLAP,
       O_SHARED_FFN, O_DENSE_FIRST, O_SPLIT, O_FAMILY, O_INFERRED, O_GRAD_DTYPE, O_OPTIM_DTYPE,
       O_LOSS, O_ALLOC_FRAG, O_HW_SET, O_MEM_GIB, O_MEM_KIND, O_GPUS_PER_NODE, O_SHARD,
       O_PP_SCHED, O_FP8_RECIPE, O_COUNT };
static const char *const ocols[O_COUNT] = {
    "dispatcher",  "framework",  "dtype",       "tp_overlap", "param_dtype", "moe_imbalance",
    "moe_ep_overlap", "shared_ffn", "dense_first", "split",      "family",      "inferred",
    "grad_dtype", "optim_dtype", "loss", "alloc_frag", "hw_set", "mem_gib", "mem_kind",
    "gpus_per_node", "shard_group", "pp_schedule", "fp8_recipe"};

typedef struct state {
    const char *path;
    int map[C_COUNT];
    int omap[O_COUNT]; /* -1: the column is absent */
    int header;
    size_t nheader; /* the header's fields: every row has as many */
    const pb_against_opts_t *opts; /* NULL: none */
    pb_against_fn fn;
    void *arg;
} state_t;

/* an optional column's field, "" when the column or the field is absent */
static const char *opt(const state_t *s, const pb_csv_rec_t *rec, int o)
{
    int c = s->omap[o];
    return c >= 0 && (size_t)c < rec->nfields ? rec->field[c] : "";
}

/* the published figure: a finite number above 0 (a step time, a rate) */
static int positive(const state_t *s, size_t line, const pb_csv_rec_t *rec, int c, double *v,
                    pb_err_t *err)
{
    const char *f = rec->field[s->map[c]];
    char *end;
    errno = 0;
    *v = strtod(f, &end);
    if (f[0] == '\0' || *end != '\0' || errno || !isfinite(*v) || !(*v > 0))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad %s '%s' (a number above 0)", s->path,
                          line, cols[c], f);
    return PB_OK;
}

/* A count: a whole number from lo to hi, refused otherwise before it
 * becomes an int (a double past INT_MAX, a NaN or 2.5 has no int) */
static int whole(const state_t *s, size_t line, const pb_csv_rec_t *rec, int c, int lo, int hi,
                 int *v, pb_err_t *err)
{
    const char *f = rec->field[s->map[c]];
    char *end;
    errno = 0;
    double d = strtod(f, &end);
    if (f[0] == '\0' || *end != '\0' || errno || !isfinite(d) || d != floor(d) || d < lo ||
        d > hi)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad %s '%s' (a whole number, %d to %d)",
                          s->path, line, cols[c], f, lo, hi);
    *v = (int)d;
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
    if (metric[0] == '\0') { /* no time published (row_numbers) */
        *step = 0.0;
        return PB_OK;
    }
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
    static const int om[] = {O_SHARED_FFN, O_DENSE_FIRST};
    for (size_t i = 0; i < sizeof om / sizeof om[0]; i++) {
        const char *v = opt(s, rec, om[i]);
        if (v[0] != '\0' && pb_model_set(m, ocols[om[i]], v, &e) != PB_OK)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    }
    return PB_OK;
}

/* An optional column's setting through pb_job_set, as its flag would. */
static int row_set(const state_t *s, size_t line, const pb_csv_rec_t *rec, int o, pb_job_t *j,
                   pb_err_t *err)
{
    const char *v = opt(s, rec, o);
    pb_err_t e;
    pb_err_clear(&e);
    if (v[0] != '\0' && pb_job_set(j, ocols[o], v, &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    return PB_OK;
}

/* What the row says of itself: its split (fit rows may inform a choice
 * of the model, test rows never do), its family (the source, for the
 * leave-one-family-out table) and the columns its author inferred rather
 * than read in the source, each of which must be a column. */
static int row_meta(const state_t *s, size_t line, const pb_csv_rec_t *rec, pb_against_run_t *r,
                    pb_err_t *err)
{
    const char *split = opt(s, rec, O_SPLIT);
    if (s->omap[O_SPLIT] >= 0) {
        if (strcmp(split, "fit") == 0)
            r->split = PB_SPLIT_FIT;
        else if (strcmp(split, "test") == 0)
            r->split = PB_SPLIT_TEST;
        else
            return pb_err_set(err, PB_EINPUT, "%s:%zu: split '%s' is neither fit nor test",
                              s->path, line, split);
    }
    r->family = opt(s, rec, O_FAMILY);
    if (r->family[0] == '\0')
        r->family = r->name;
    const char *inf = opt(s, rec, O_INFERRED);
    while (*inf) {
        size_t k = strcspn(inf, " ");
        int known = 0;
        for (int i = 0; i < C_COUNT && !known; i++)
            known = strlen(cols[i]) == k && strncmp(cols[i], inf, k) == 0;
        for (int i = 0; i < O_COUNT && !known; i++)
            known = strlen(ocols[i]) == k && strncmp(ocols[i], inf, k) == 0;
        if (k > 0 && !known)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: inferred names '%.*s', not a column",
                              s->path, line, (int)k, inf);
        inf += k + (inf[k] == ' ');
    }
    r->inferred = opt(s, rec, O_INFERRED);
    return PB_OK;
}

/* A row's numbers: the layout and the small counts, each in the range
 * its flag takes (--tp etc. at least 1, --zero 0 to 3, --sp and --flash
 * off or on; etp 0: no folding), the GPUs, the published value.  The
 * layout's sizes come first, in pb_dim_t's order. */
#define PB_AG_MAX (1 << 20) /* any layout size or GPU count: far above real runs */
static const struct {
    int col, lo, hi;
} num_cols[] = {{C_TP, 1, PB_AG_MAX}, {C_CP, 1, PB_AG_MAX}, {C_EP, 1, PB_AG_MAX},
                {C_DP, 1, PB_AG_MAX}, {C_PP, 1, PB_AG_MAX}, {C_VP, 1, PB_AG_MAX},
                {C_SP, 0, 1},         {C_ZERO, 0, 3},       {C_FLASH, 0, 1},
                {C_ETP, 0, PB_AG_MAX}};
enum { N_VP = 5, N_SP, N_ZERO, N_FLASH, N_ETP, N_COUNT };
typedef struct nums {
    int d[N_COUNT]; /* num_cols' columns */
    int gpus;
    double value;
} nums_t;

static int row_numbers(const state_t *s, size_t line, const pb_csv_rec_t *rec, nums_t *n,
                       pb_err_t *err)
{
    for (int i = 0; i < N_COUNT; i++)
        if (whole(s, line, rec, num_cols[i].col, num_cols[i].lo, num_cols[i].hi, &n->d[i],
                  err) != PB_OK)
            return err->code;
    if (whole(s, line, rec, C_GPUS, 1, PB_AG_MAX, &n->gpus, err) != PB_OK)
        return err->code;
    /* a row of a memory file may publish no time: metric and value empty */
    n->value = 0.0;
    if (rec->field[s->map[C_METRIC]][0] == '\0' && rec->field[s->map[C_VALUE]][0] == '\0')
        return PB_OK;
    return positive(s, line, rec, C_VALUE, &n->value, err);
}

/* A row's step settings: recomputation, optimizer sharding, the EP
 * dispatcher, what overlapped, attention. */
static int row_step(const state_t *s, size_t line, const pb_csv_rec_t *rec, const nums_t *n,
                    pb_job_t *j, pb_err_t *err)
{
    pb_step_cfg_t *c = &j->step;
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_job_set(j, "recompute", rec->field[s->map[C_RECOMP]], &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    c->traffic.zero = n->d[N_ZERO];
    /* dispatcher (optional column): alltoall or flex (DeepEP); empty or
     * absent: auto, by whether the EP group spans nodes (pb_ep_cost.h) */
    const char *disp = opt(s, rec, O_DISP);
    if (disp[0] != '\0' && pb_ep_disp_parse(disp, &c->ep_disp) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: dispatcher '%s' is none of alltoall, flex, auto or empty",
                          s->path, line, disp);
    /* overlap: the letters of what the run overlapped (pb_job_set) */
    if (pb_job_set(j, "overlap", rec->field[s->map[C_OVERLAP]], &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    /* as on the command line (pb_job_settings): a fused attention kernel
     * skips the masked half, the materialised path of the 2021-22 runs
     * computes every score */
    c->flash = c->causal = n->d[N_FLASH];
    return PB_OK;
}

/* The measured memory of a row (mem_gib, mem_kind), bytes; 0 without. */
static int row_memory(const state_t *s, size_t line, const pb_csv_rec_t *rec, pb_against_run_t *r,
                      pb_err_t *err)
{
    const char *g = opt(s, rec, O_MEM_GIB), *k = opt(s, rec, O_MEM_KIND);
    r->mem_kind = k;
    if (g[0] == '\0' && k[0] == '\0')
        return PB_OK;
    char *end;
    errno = 0;
    double v = strtod(g, &end);
    if (g[0] == '\0' || *end != '\0' || errno || !isfinite(v) || !(v > 0) || v > 1e6)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad mem_gib '%s' (GiB, a number above 0)",
                          s->path, line, g);
    if (pb_against_mem_kind(k) < 0)
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: mem_kind '%s' is none of allocated, reserved, smi, report",
                          s->path, line, k);
    r->mem_measured = v * PB_GIB;
    return PB_OK;
}

int pb_against_mem_kind(const char *k)
{
    static const char *const kinds[] = {"allocated", "reserved", "smi", "report"};
    for (int i = 0; i < 4; i++)
        if (strcmp(k, kinds[i]) == 0)
            return i;
    return -1;
}

/* An optional whole-number column o: *v untouched when it is empty. */
static int row_whole(const state_t *s, size_t line, const pb_csv_rec_t *rec, int o, int *v,
                     pb_err_t *err)
{
    const char *f = opt(s, rec, o);
    if (f[0] == '\0')
        return PB_OK;
    char *end;
    errno = 0;
    double d = strtod(f, &end);
    if (*end != '\0' || errno || !isfinite(d) || d != floor(d) || d < 1 || d > 1000000)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad %s '%s' (a whole number, 1 to 1000000)",
                          s->path, line, ocols[o], f);
    *v = (int)d;
    return PB_OK;
}

/* The row's gpus_per_node (empty: the preset's, or hw_set's), as
 * --gpus-per-node gives it: the NICs scaled to the node unless hw_set
 * named their count. */
static int row_gpus_per_node(const state_t *s, size_t line, const pb_csv_rec_t *rec, pb_hw_t *hw,
                             pb_err_t *err)
{
    int g = 0;
    if (row_whole(s, line, rec, O_GPUS_PER_NODE, &g, err) != PB_OK)
        return err->code;
    if (g > 0)
        pb_job_gpus_per_node(hw, g, strstr(opt(s, rec, O_HW_SET), "nics_per_node=") != NULL);
    return PB_OK;
}

/* The row's hw_set: space-separated key=value pairs, each as --hw-set
 * gives it (pb_hw_set names a key or value it refuses). */
static int row_hw_set(const state_t *s, size_t line, const char *f, pb_hw_t *hw, pb_err_t *err)
{
    char buf[512];
    if (strlen(f) >= sizeof buf)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: hw_set is longer than %zu characters",
                          s->path, line, sizeof buf - 1);
    memcpy(buf, f, strlen(f) + 1);
    char *save = NULL;
    for (char *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        pb_err_t e;
        pb_err_clear(&e);
        if (pb_hw_set_kv(hw, kv, &e) != PB_OK)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: hw_set: %s", s->path, line, e.msg);
    }
    return PB_OK;
}

/* like with like (pb_against.h): the allocator's peak for an allocated
 * figure, what it reserves for a reserved one (and a report that does not
 * say, as the stacks' own reports give the reserved peak), the device's
 * use for nvidia-smi's */
double pb_against_mem_like(const pb_step_t *st, const char *kind)
{
    switch (pb_against_mem_kind(kind)) {
    case 0:
        return st->mem.total;
    case 2:
        return pb_mem_reserved(&st->cap, st->mem.total) + st->cap.context + st->cap.nccl;
    default:
        return pb_mem_reserved(&st->cap, st->mem.total);
    }
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
    /* the stack first: its defaults, then what the row says over them */
    if (row_set(s, line, rec, O_FRAMEWORK, &j, err) != PB_OK ||
        row_model(s, line, rec, m, err) != PB_OK || row_numbers(s, line, rec, &n, err) != PB_OK)
        return err->code;
    for (int i = 0; i < PB_DIM_COUNT; i++)
        l->size[i] = n.d[i];
    l->vp = n.d[N_VP], l->sp = n.d[N_SP], l->etp = n.d[N_ETP];
    if (row_whole(s, line, rec, O_SHARD, &l->shard, err) != PB_OK ||
        row_step(s, line, rec, &n, &j, err) != PB_OK ||
        row_set(s, line, rec, O_DTYPE, &j, err) != PB_OK ||
        row_set(s, line, rec, O_TP_OVERLAP, &j, err) != PB_OK ||
        row_set(s, line, rec, O_PARAM_DTYPE, &j, err) != PB_OK ||
        row_set(s, line, rec, O_MOE_IMB, &j, err) != PB_OK ||
        row_set(s, line, rec, O_MOE_OVERLAP, &j, err) != PB_OK ||
        row_set(s, line, rec, O_PP_SCHED, &j, err) != PB_OK ||
        row_set(s, line, rec, O_FP8_RECIPE, &j, err) != PB_OK ||
        row_set(s, line, rec, O_GRAD_DTYPE, &j, err) != PB_OK ||
        row_set(s, line, rec, O_OPTIM_DTYPE, &j, err) != PB_OK ||
        row_set(s, line, rec, O_LOSS, &j, err) != PB_OK)
        return err->code;
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_hw_preset(rec->field[s->map[C_GPU]], &j.hw, &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    /* the allocator's reserve the run had (alloc_frag: e.g. expandable
     * segments), as --hw-set alloc_frag gives it */
    const char *frag = opt(s, rec, O_ALLOC_FRAG);
    if (frag[0] != '\0' && pb_hw_set(&j.hw, "alloc_frag", frag, &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->path, line, e.msg);
    if (row_hw_set(s, line, opt(s, rec, O_HW_SET), &j.hw, err) != PB_OK ||
        row_gpus_per_node(s, line, rec, &j.hw, err) != PB_OK)
        return err->code;
    /* after hw_set and gpus_per_node, which may change it */
    c->gpus_per_node = j.hw.gpus_per_node;
    if (s->opts && s->opts->sustained > 0.0)
        j.hw.sustained = s->opts->sustained;
    pb_against_run_t run;
    memset(&run, 0, sizeof run);
    run.name = m->name;
    run.source = rec->field[s->map[C_SOURCE]];
    run.gpu = j.hw.name;
    run.line = line;
    run.gpus = n.gpus;
    run.memory_file = s->omap[O_MEM_GIB] >= 0;
    if (row_meta(s, line, rec, &run, err) != PB_OK)
        return err->code;
    if (published_step(s, line, rec, m, &j.hw, c->recomp, n.gpus, n.value, &run.published_s,
                       err) != PB_OK ||
        row_memory(s, line, rec, &run, err) != PB_OK)
        return err->code;
    if (!(run.published_s > 0.0) && !(run.mem_measured > 0.0))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: the row publishes neither a time (metric, "
                                          "value) nor a memory (mem_gib)",
                          s->path, line);
    pb_step_t st;
    if (pb_model_check(m, &e) != PB_OK || pb_layout_check(l, m, (uint64_t)n.gpus, &e) != PB_OK ||
        pb_job_predict(&j, NULL, 0, &st, &e) != PB_OK) {
        run.why = e.msg;
        return s->fn(s->arg, &run, err);
    }
    run.job = &j;
    run.step = &st;
    run.predicted_s = st.total;
    run.mem_predicted = pb_against_mem_like(&st, run.mem_kind);
    return s->fn(s->arg, &run, err);
}

static int record(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    state_t *s = arg;
    if (!s->header) {
        /* a column named twice: which one holds the row's value cannot be told */
        for (size_t a = 0; a < rec->nfields; a++)
            for (size_t b = a + 1; b < rec->nfields; b++)
                if (rec->field[a][0] != '\0' && strcmp(rec->field[a], rec->field[b]) == 0)
                    return pb_err_set(err, PB_EINPUT, "%s:%zu: column '%s' is named twice "
                                                      "(fields %zu and %zu)",
                                      s->path, line, rec->field[a], a + 1, b + 1);
        for (int i = 0; i < C_COUNT; i++)
            if ((s->map[i] = pb_csv_rec_find(rec, cols[i])) < 0)
                return pb_err_set(err, PB_EINPUT, "%s:%zu: no '%s' column", s->path, line,
                                  cols[i]);
        for (int i = 0; i < O_COUNT; i++)
            s->omap[i] = pb_csv_rec_find(rec, ocols[i]);
        s->header = 1;
        s->nheader = rec->nfields;
        return PB_OK;
    }
    /* A row of another length is refused whole, never read: its columns
     * no longer line up with the header's (a field left out shifts every
     * one after it), and a field past its end would be the record
     * buffer's stale pointer from an earlier row. */
    if (rec->nfields != s->nheader)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, header has %zu", s->path,
                          line, rec->nfields, s->nheader);
    return row(s, line, rec, err);
}

int pb_against_each(FILE *f, const char *path, const pb_against_opts_t *opts, pb_against_fn fn,
                    void *arg, pb_err_t *err)
{
    state_t s;
    memset(&s, 0, sizeof s);
    s.path = path, s.opts = opts, s.fn = fn, s.arg = arg;
    int code = pb_csv_parse_file(f, path, record, &s, err);
    if (code == PB_OK && !s.header)
        code = pb_err_set(err, PB_EINPUT, "%s has no runs", path);
    return code;
}
