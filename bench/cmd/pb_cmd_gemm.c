/* pb_cmd_gemm.c - `parbench gemm`.
 *
 * One rank per GPU: the rank's index among the ranks of its host (the
 * control world split by node) is its device index among the visible ones
 * (modulo their count, for launchers that bind each rank to its own GPU),
 * so CUDA_VISIBLE_DEVICES decides which GPUs take part, and two ranks of a
 * host landing on one GPU are refused.  Started from a
 * plain shell (main.c does not re-launch for gemm) it is one process on
 * the first visible GPU.
 *
 * Every rank times every shape on its own GPU at the same time; a row
 * reports the slowest rank's median (in a synchronous training step the
 * slowest GPU sets the pace), and that rank as slowest_rank.
 *
 * A row in the results schema: pattern "gemm", collective gemm_<shape>,
 * group "tp" of size --tp (the shapes are one tp rank's share), mode
 * "latency" (one CUDA event pair per multiply), bytes = the operands'
 * minimal memory traffic (M.K + K.N + M.N elements: read X and W, write
 * Y once), algbw/busbw 0 (a GEMM has no bus bandwidth), label
 * "M=.. N=.. K=..", flops = 2.M.N.K, tflops = flops / median time. */
#include "pb_cmd_gemm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../collectives/pb_gemm.h"
#include "../../collectives/pb_gpu_pick.h"
#include "../../model/pb_gemm_shapes.h"
#include "../../util/pb_stats.h"
#include "../cli/pb_opt_common.h"

#define PB_GEMM_DESC 160

/* Two ranks of one host on one GPU would time each other's work.  Compared
 * by description (name and PCI bus id), which tells the GPUs of a host
 * apart whatever CUDA_VISIBLE_DEVICES each rank was given. */
static int check_one_rank_per_gpu(const pb_ctx_t *ctx, pb_ctl_t *local, int lsize,
                                  const pb_gemm_dev_t *dev, pb_err_t *err)
{
    char mine[PB_GEMM_DESC] = "";
    if (dev != NULL)
        pb_gemm_describe(dev, mine, sizeof mine);
    char *all = malloc((size_t)lsize * PB_GEMM_DESC);
    if (all == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    int code = PB_OK;
    if (pb_ctl_allgather(local, mine, all, PB_GEMM_DESC) != PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "the exchange of the GPU names failed");
    char why[240];
    if (code == PB_OK && dev != NULL && pb_gpu_check_node(all, lsize, PB_GEMM_DESC, why, sizeof why))
        code = pb_err_set(err, PB_EINPUT, "host %s: %s", ctx->host, why);
    free(all);
    return code;
}

/* Device up on every rank, or the same failure everywhere.  The rank's
 * index on its host picks the device among the visible ones; where a
 * launcher gave each rank fewer GPUs than the host has ranks (Slurm's
 * --gpus-per-task, a per-rank CUDA_VISIBLE_DEVICES) it wraps around, and
 * the check above refuses any GPU that ends up shared. */
static int open_device(const pb_ctx_t *ctx, pb_gemm_dev_t **dev, pb_err_t *err)
{
    pb_ctl_t *local = NULL;
    int lrank = 0, lsize = 1, ndev = 0;
    int code = PB_OK;
    if (pb_ctl_split_node(ctx->world, &local) != PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "the split of the world by node failed");
    else
        lrank = local->rank, lsize = local->size;
    if (code == PB_OK)
        code = pb_gemm_device_count(&ndev, err);
    if (pb_ctx_agree(ctx, code, err) == PB_OK) {
        code = pb_gemm_open(pb_gpu_pick(lrank, ndev), dev, err);
        if (pb_ctx_agree(ctx, code, err) == PB_OK) {
            code = check_one_rank_per_gpu(ctx, local, lsize, *dev, err);
            pb_ctx_agree(ctx, code, err);
        }
    }
    pb_ctl_free(local);
    return err->code;
}

static void print_head(const pb_ctx_t *ctx, const pb_gemm_dev_t *dev, const pb_gemm_model_t *m)
{
    char mine[PB_GEMM_DESC];
    pb_gemm_describe(dev, mine, sizeof mine);
    char *all = ctx->rank == 0 ? malloc((size_t)ctx->size * PB_GEMM_DESC) : NULL;
    /* a failed gather only costs the per-rank GPU lines */
    int ok = ctx->rank != 0 || all != NULL;
    ok = pb_ctl_allreduce(ctx->world, &ok, 1, PB_CTL_INT, PB_CTL_MIN) == PB_OK && ok &&
         pb_ctl_gather(ctx->world, mine, all, PB_GEMM_DESC, 0) == PB_OK;
    if (ctx->rank != 0 || ctx->opt->run.quiet) {
        free(all);
        return;
    }
    printf("# parbench %s | gemm (cuBLAS, fp32 accumulation) | run %s | world %d rank%s on "
           "%d node%s\n",
           PB_VERSION, ctx->run_id, ctx->size, ctx->size == 1 ? "" : "s", ctx->nodes,
           ctx->nodes == 1 ? "" : "s");
    for (int r = 0; ok && all && r < ctx->size; r++)
        printf("# rank %d: %.*s\n", r, PB_GEMM_DESC, all + (size_t)r * PB_GEMM_DESC);
    free(all);
    printf("# layer: hidden %" PRIu64 ", seq %" PRIu64 ", mbs %" PRIu64 ", tp %" PRIu64
           ", heads %" PRIu64 ", kv-heads %" PRIu64 ", ffn %" PRIu64 "%s\n",
           m->hidden, m->seq, m->mbs, m->tp, m->heads, m->kv_heads, m->ffn,
           m->gated ? " (gated: up is 2*ffn wide)" : "");
    printf("# %-20s %9s %8s %9s %8s %12s %12s %9s\n", "shape", "dtype", "M", "N", "K",
           "time (us)", "p99 (us)", "TFLOP/s");
    fflush(stdout);
}

/* Every rank's statistics folded into the slowest (by median) rank's. */
static int reduce_stats(const pb_ctx_t *ctx, const pb_stats_t *s, pb_stats_t *all,
                        int *slowest, pb_err_t *err)
{
    pb_ctl_loc_t med = {s->median, ctx->rank};
    double mn = s->min, mx[2] = {s->p99, s->max};
    *all = *s;
    if (pb_ctl_maxloc(ctx->world, &med, 1) != PB_OK ||
        pb_ctl_allreduce(ctx->world, &mn, 1, PB_CTL_DOUBLE, PB_CTL_MIN) != PB_OK ||
        pb_ctl_allreduce(ctx->world, mx, 2, PB_CTL_DOUBLE, PB_CTL_MAX) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the reduction of the GEMM times failed");
    all->median = med.v;
    all->min = mn;
    all->p99 = mx[0];
    all->max = mx[1];
    *slowest = med.rank;
    return PB_OK;
}

static void fill_row(const pb_ctx_t *ctx, const pb_gemm_shape_t *sh, pb_dtype_t t,
                     const pb_stats_t *st, int slowest, pb_result_t *r)
{
    const pb_options_t *o = ctx->opt;
    pb_ctx_result_base(ctx, r);
    snprintf(r->backend, sizeof r->backend, "cublas");
    snprintf(r->mode, sizeof r->mode, "latency");
    snprintf(r->pattern, sizeof r->pattern, "gemm");
    snprintf(r->collective, sizeof r->collective, "%s", sh->name);
    snprintf(r->group, sizeof r->group, "tp");
    r->group_size = (int)o->gemm.layer.tp; /* tp divides heads, an int-sized count */
    r->bytes = (sh->m * sh->k + sh->k * sh->n + sh->m * sh->n) * pb_dtype_size(t);
    snprintf(r->dtype, sizeof r->dtype, "%s", pb_dtype_name(t));
    r->iters = o->gemm.iters;
    r->time_us_min = st->min;
    r->time_us_median = st->median;
    r->time_us_p99 = st->p99;
    r->time_us_max = st->max;
    r->slowest_rank = slowest;
    r->flops = sh->flops;
    r->tflops = st->median > 0.0 ? (double)sh->flops / (st->median * 1e-6) / 1e12 : 0.0;
    /* the shape first: a user label can only shorten what follows it */
    snprintf(r->label, sizeof r->label, "M=%" PRIu64 " N=%" PRIu64 " K=%" PRIu64 "%s%.40s",
             sh->m, sh->n, sh->k, o->run.label ? " " : "", o->run.label ? o->run.label : "");
}

static int run_shape(pb_ctx_t *ctx, pb_gemm_dev_t *dev, const pb_gemm_shape_t *sh,
                     pb_dtype_t t, double *times, double *scratch, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    int code = pb_gemm_time(dev, t, sh->m, sh->n, sh->k, o->gemm.warmup, o->gemm.iters, times, err);
    /* a shape too large for one rank's GPU stops every rank */
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    pb_stats_t mine, st;
    int slowest = 0;
    pb_stats_compute(times, (size_t)o->gemm.iters, scratch, &mine);
    if (reduce_stats(ctx, &mine, &st, &slowest, err) != PB_OK)
        return err->code;
    if (ctx->rank != 0)
        return PB_OK;
    pb_result_t r;
    fill_row(ctx, sh, t, &st, slowest, &r);
    if (!o->run.quiet) {
        printf("  %-20s %9s %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %12.2f %12.2f %9.1f\n",
               sh->name, pb_dtype_name(t), sh->m, sh->n, sh->k, st.median, st.p99, r.tflops);
        fflush(stdout);
    }
    if (pb_ctx_emit(ctx, &r, err) != PB_OK)
        pb_ctx_abort(ctx, err); /* the other ranks are already in the next shape */
    return PB_OK;
}

int pb_gemm_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    pb_gemm_shape_t shapes[PB_GEMM_MAX_SHAPES];
    int nshapes = 0;
    pb_gemm_dev_t *dev = NULL;
    double *times = NULL;
    /* the shapes were checked while parsing; this cannot fail on one rank
     * only, but the agreement keeps that an invariant rather than a hope */
    int code = pb_gemm_layer_shapes(&o->gemm.layer, o->gemm.backward, shapes, &nshapes, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    if (open_device(ctx, &dev, err) != PB_OK)
        goto out;
    times = malloc(2 * (size_t)o->gemm.iters * sizeof *times);
    code = times ? PB_OK : pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        goto out;
    print_head(ctx, dev, &o->gemm.layer);
    for (int d = 0; d < o->gemm.ndtypes; d++)
        for (int i = 0; i < nshapes; i++)
            if (run_shape(ctx, dev, &shapes[i], o->gemm.dtypes[d], times, times + o->gemm.iters, err) !=
                PB_OK)
                goto out;
    if (ctx->rank == 0 && !o->run.quiet && o->run.csv_path)
        printf("# results appended to %s\n", o->run.csv_path);
out:
    free(times);
    pb_gemm_close(dev);
    return err->code;
}

/* ---- the command: its options and table row ----------------------- */

static int set_gemm_gated(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                          const char *shown, pb_err_t *err)
{
    (void)v, (void)shown, (void)err;
    o->gemm.layer.gated = strcmp(s->lng, "gated") == 0;
    return PB_OK;
}

static int set_gemm_dtype(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                          const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    if (pb_parse_dtypes(v, o->gemm.dtypes, &o->gemm.ndtypes, err))
        return err->code;
    o->gemm.dtype_given = 1;
    return PB_OK;
}

#define LAYER(name, arg, field, help) \
    {name, 0, arg, pb_opt_u64, PB_OFF(gemm.layer.field), 1, help, NULL, NULL}

static const pb_opt_spec_t gemm_layer_specs[] = {
    LAYER("hidden", "H", hidden, "hidden size h (also --size)"),
    LAYER("size", "H", hidden, NULL),
    LAYER("seq", "S", seq, "sequence length"),
    LAYER("mbs", "B", mbs, "micro-batch size"),
    LAYER("tp", "T", tp, "tensor-parallel size (the shapes are one rank's share)"),
    LAYER("heads", "A", heads, "attention heads"),
    LAYER("kv-heads", "G", kv_heads, "key/value heads (GQA; default: = heads)"),
    LAYER("ffn", "F", ffn, "MLP inner size (default 4h)"),
    {"gated", 0, NULL, set_gemm_gated, 0, 0,
     "gated MLP (SwiGLU): up projection fused with the gate,\n2f wide", NULL, NULL},
    {"no-gated", 0, NULL, set_gemm_gated, 0, 0, NULL, NULL, NULL},
    {"backward", 0, NULL, pb_opt_flag, PB_OFF(gemm.backward), 0,
     "also the backward GEMMs: dgrad [T,N]x[N,K],\nwgrad [K,T]x[T,N]", NULL,
     "--backward is an option of parbench gemm"},
};
static const pb_opt_group_t gemm_layer =
    PB_GROUP("layer (default: h 4096, 32 heads, MHA, f = 4h, seq 4096, mbs 1, tp 1):",
          gemm_layer_specs, NULL);

static const pb_opt_spec_t gemm_timing_specs[] = {
    {"dtype", 'd', "LIST", set_gemm_dtype, 0, 0, "bf16 (default), fp16, fp32 (true fp32, no TF32)",
     "bf16 fp16 fp32", NULL},
    {"iters", 'n', "N", pb_opt_u64, PB_OFF(gemm.iters), 1, "timed multiplies per shape (default 50)",
     NULL, NULL},
    {"warmup", 'w', "N", pb_opt_u64, PB_OFF(gemm.warmup), 0, "untimed multiplies first (default 5)",
     NULL, NULL},
};
static const pb_opt_group_t gemm_timing = PB_GROUP("timing:", gemm_timing_specs, NULL);

static void gemm_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
    pb_gemm_model_defaults(&o->gemm.layer);
    o->gemm.warmup = 5;
}

/* bf16 unless told, only the types the probe multiplies, the layer
 * checked here so bad shapes are refused before any GPU is asked */
static int gemm_finish(pb_options_t *o, pb_err_t *err)
{
    pb_gemm_opts_t *g = &o->gemm;
    if (!g->dtype_given) {
        g->dtypes[0] = PB_BF16;
        g->ndtypes = 1;
    }
    for (int i = 0; i < g->ndtypes; i++)
        if (!pb_gemm_dtype_ok(g->dtypes[i]))
            return pb_err_set(err, PB_EINPUT, "gemm multiplies bf16, fp16 or fp32, not %s",
                              pb_dtype_name(g->dtypes[i]));
    if (g->iters == 0)
        g->iters = 50; /* fixed: a GEMM's time hardly varies */
    if (g->iters > 1000000) /* one CUDA event per multiply, all alive at once */
        return pb_err_set(err, PB_EINPUT, "gemm times at most 1000000 multiplies per shape");
    pb_gemm_model_resolve(&g->layer);
    return pb_gemm_model_check(&g->layer, err);
}

/* gemm's layer options are its own; the rest of a model is not its */
static const char *gemm_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)s;
    return g == &pb_grp_model ? "" : NULL; /* "": the generic line */
}

const pb_cmd_desc_t pb_cmd_gemm = {
    PB_CMD_GEMM, "gemm", "cuBLAS TFLOP/s of a transformer layer's GEMMs (see parbench gemm --help)",
    "usage: parbench gemm [OPTIONS]\n"
    "\n"
    "Times the GEMMs of one transformer layer on one tensor-parallel rank with\n"
    "cuBLAS (cublasGemmEx, fp32 accumulation) and prints the achieved TFLOP/s,\n"
    "the compute rate the step model uses.  T = mbs * seq tokens, each GEMM\n"
    "X[M, K] x W[K, N]:\n"
    "  gemm_qkv       [T, h]   x [h, (h + 2h*g/a)/tp]\n"
    "  gemm_attn_out  [T, h/tp] x [h/tp, h]\n"
    "  gemm_mlp_up    [T, h]   x [h, f/tp]   (2f/tp with --gated)\n"
    "  gemm_mlp_down  [T, f/tp] x [f/tp, h]\n",
    {{&gemm_layer, NULL}, {&gemm_timing, NULL}, {&pb_grp_output, NULL}, {&pb_grp_help, NULL}},
    "--csv appends one row per shape: pattern gemm, collective gemm_<name>,\n"
    "label \"M=.. N=.. K=..\", flops, tflops; --label is appended to the label.\n"
    "\n"
    "Runs as one process on the first visible GPU (CUDA_VISIBLE_DEVICES applies);\n"
    "it never launches mpirun itself.  Under mpirun or srun, every rank times its\n"
    "own GPU (local rank -> device) and each row reports the slowest rank.\n",
    0, gemm_defaults, gemm_finish, gemm_foreign, NULL, pb_gemm_cmd, 1, NULL};
