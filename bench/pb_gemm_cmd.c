/* pb_gemm_cmd.c - `parbench gemm`.
 *
 * One rank per GPU: the rank's index among the ranks of its host (from
 * MPI_Comm_split_type SHARED) is its device index among the visible ones
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
#include "pb_gemm_cmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collectives/pb_gemm.h"
#include "../collectives/pb_gpu_pick.h"
#include "../model/pb_gemm_shapes.h"
#include "../reports/pb_stats.h"

#define PB_GEMM_DESC 160

/* Two ranks of one host on one GPU would time each other's work.  Compared
 * by description (name and PCI bus id), which tells the GPUs of a host
 * apart whatever CUDA_VISIBLE_DEVICES each rank was given. */
static int check_one_rank_per_gpu(const pb_ctx_t *ctx, MPI_Comm local, int lsize,
                                  const pb_gemm_dev_t *dev, pb_err_t *err)
{
    char mine[PB_GEMM_DESC] = "";
    if (dev != NULL)
        pb_gemm_describe(dev, mine, sizeof mine);
    char *all = malloc((size_t)lsize * PB_GEMM_DESC);
    if (all == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    int code = PB_OK;
    if (MPI_Allgather(mine, PB_GEMM_DESC, MPI_CHAR, all, PB_GEMM_DESC, MPI_CHAR, local) !=
        MPI_SUCCESS)
        code = pb_err_set(err, PB_ERUNTIME, "MPI_Allgather of the GPU names failed");
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
    MPI_Comm local = MPI_COMM_NULL;
    int lrank = 0, lsize = 1, ndev = 0;
    int code = PB_OK;
    if (MPI_Comm_split_type(ctx->world, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL,
                            &local) != MPI_SUCCESS ||
        MPI_Comm_rank(local, &lrank) != MPI_SUCCESS ||
        MPI_Comm_size(local, &lsize) != MPI_SUCCESS)
        code = pb_err_set(err, PB_ERUNTIME, "MPI_Comm_split_type(SHARED) failed");
    if (code == PB_OK)
        code = pb_gemm_device_count(&ndev, err);
    if (pb_ctx_agree(ctx, code, err) == PB_OK) {
        code = pb_gemm_open(pb_gpu_pick(lrank, ndev), dev, err);
        if (pb_ctx_agree(ctx, code, err) == PB_OK) {
            code = check_one_rank_per_gpu(ctx, local, lsize, *dev, err);
            pb_ctx_agree(ctx, code, err);
        }
    }
    if (local != MPI_COMM_NULL)
        MPI_Comm_free(&local);
    return err->code;
}

static void print_head(const pb_ctx_t *ctx, const pb_gemm_dev_t *dev, const pb_gemm_model_t *m)
{
    char mine[PB_GEMM_DESC];
    pb_gemm_describe(dev, mine, sizeof mine);
    char *all = ctx->rank == 0 ? malloc((size_t)ctx->size * PB_GEMM_DESC) : NULL;
    /* a failed gather only costs the per-rank GPU lines */
    int ok = MPI_Gather(mine, PB_GEMM_DESC, MPI_CHAR, all, PB_GEMM_DESC, MPI_CHAR, 0,
                        ctx->world) == MPI_SUCCESS;
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
    struct {
        double v;
        int rank;
    } med = {s->median, ctx->rank};
    double mn = s->min, mx[2] = {s->p99, s->max};
    *all = *s;
    if (MPI_Allreduce(MPI_IN_PLACE, &med, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ctx->world) !=
            MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_DOUBLE, MPI_MIN, ctx->world) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, mx, 2, MPI_DOUBLE, MPI_MAX, ctx->world) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_Allreduce of the GEMM times failed");
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
