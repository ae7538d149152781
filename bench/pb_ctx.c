#include "pb_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int pb_ctx_agree(const pb_ctx_t *ctx, int code, pb_err_t *err)
{
    /* worst code first; then the lowest rank holding it says why */
    int worst = code;
    if (MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, ctx->world) != MPI_SUCCESS)
        return PB_ERUNTIME;
    if (worst == PB_OK)
        return PB_OK;
    int who = code == worst ? ctx->rank : ctx->size;
    MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, ctx->world);
    char msg[sizeof err->msg];
    if (ctx->rank == who)
        memcpy(msg, err->msg, sizeof msg);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, who, ctx->world);
    err->code = worst;
    memcpy(err->msg, msg, sizeof msg);
    return worst;
}

void pb_ctx_abort(const pb_ctx_t *ctx, const pb_err_t *err)
{
    fprintf(stderr, "parbench: rank %d: %s\n", ctx->rank, err->msg);
    fflush(stderr);
    MPI_Abort(ctx->world, PB_ERUNTIME);
    exit(PB_ERUNTIME);
}

static void make_run_id(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(buf, len, "%s-%lx", stamp, (unsigned long)getpid());
}

/* The node map: hwloc on every rank (PCI discovery only where a command
 * shows devices: it costs time), then the exchange. */
static int map_nodes(pb_ctx_t *ctx, pb_err_t *err)
{
    int io = ctx->opt->cmd == PB_CMD_TOPO || ctx->opt->cmd == PB_CMD_VALIDATE;
    int code = pb_topo_load(&ctx->topo, NULL, io, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    code = pb_nodemap_build(ctx->world, &ctx->topo, &ctx->map, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    ctx->nodes = ctx->map.nnodes;
    return PB_OK;
}

static int open_outputs(pb_ctx_t *ctx, pb_err_t *err)
{
    int code = PB_OK;
    if (ctx->rank == 0 && ctx->opt->csv_path)
        code = pb_csv_open(ctx->opt->csv_path, &ctx->csv, err);
    return pb_ctx_agree(ctx, code, err);
}

int pb_ctx_init(pb_ctx_t *ctx, const pb_options_t *opt, pb_err_t *err)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->opt = opt;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &ctx->world) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_Comm_dup of the world failed");
    MPI_Comm_set_errhandler(ctx->world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(ctx->world, &ctx->rank);
    MPI_Comm_size(ctx->world, &ctx->size);
    if (map_nodes(ctx, err) != PB_OK)
        return err->code;
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    /* host names longer than a row field are cut, never overflowed */
    snprintf(ctx->host, sizeof ctx->host, "%.*s", (int)sizeof ctx->host - 1, name);
    if (ctx->rank == 0)
        make_run_id(ctx->run_id, sizeof ctx->run_id);
    MPI_Bcast(ctx->run_id, (int)sizeof ctx->run_id, MPI_CHAR, 0, ctx->world);
    MPI_Bcast(ctx->host, (int)sizeof ctx->host, MPI_CHAR, 0, ctx->world);

    const pb_backend_ops_t *ops = pb_backend_find(opt->backend);
    if (ops == NULL) /* the same answer on every rank: no agreement needed */
        return pb_err_set(err, PB_EINPUT, "unknown backend '%s' (this build has: mpi)",
                          opt->backend);
    ctx->be.ops = ops;
    pb_backend_config_t cfg = {&ctx->world, PB_MEM_HOST, opt->chunk_bytes};
    int code = ops->init(&ctx->be, &cfg, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK) {
        if (code == PB_OK)
            ops->finalize(&ctx->be);
        ctx->be.ops = NULL;
        return err->code;
    }
    code = ops->world(&ctx->be, &ctx->world_group, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    ops->version(&ctx->be, ctx->version, sizeof ctx->version);
    return open_outputs(ctx, err);
}

void pb_ctx_fini(pb_ctx_t *ctx)
{
    pb_nodemap_free(&ctx->map);
    pb_topo_free(&ctx->topo);
    if (ctx->csv)
        pb_csv_close(ctx->csv);
    if (ctx->be.ops) {
        if (ctx->world_group)
            ctx->be.ops->group_free(ctx->world_group);
        ctx->be.ops->finalize(&ctx->be);
    }
    if (ctx->world != MPI_COMM_NULL && ctx->world != 0)
        MPI_Comm_free(&ctx->world);
}

void pb_ctx_result_base(const pb_ctx_t *ctx, pb_result_t *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "%s", ctx->run_id);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r->timestamp, sizeof r->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(r->host, sizeof r->host, "%s", ctx->host);
    r->nodes = ctx->nodes;
    r->world = ctx->size;
    snprintf(r->backend, sizeof r->backend, "%s", ctx->be.ops ? ctx->be.ops->name : "");
    snprintf(r->label, sizeof r->label, "%s", ctx->opt->label ? ctx->opt->label : "");
    r->wrong = PB_RESULT_WRONG_UNCHECKED;
    r->slowest_rank = -1;
}
