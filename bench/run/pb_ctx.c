#include "pb_ctx.h"

#include "pb_mem_fits.h"
#include "pb_preflight.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int pb_ctx_agree(const pb_ctx_t *ctx, int code, pb_err_t *err)
{
    /* worst code first; then the lowest rank holding it says why */
    int worst = code;
    pb_watch_begin_after(ctx->wd, "status exchange");
    int rc = pb_ctl_allreduce(ctx->world, &worst, 1, PB_CTL_INT, PB_CTL_MAX);
    pb_watch_end(ctx->wd);
    if (rc != PB_OK)
        return PB_ERUNTIME;
    if (worst == PB_OK)
        return PB_OK;
    int who = code == worst ? ctx->rank : ctx->size;
    char msg[sizeof err->msg];
    pb_watch_begin_after(ctx->wd, "error exchange");
    pb_ctl_allreduce(ctx->world, &who, 1, PB_CTL_INT, PB_CTL_MIN);
    if (ctx->rank == who)
        memcpy(msg, err->msg, sizeof msg);
    pb_ctl_bcast(ctx->world, msg, sizeof msg, who);
    pb_watch_end(ctx->wd);
    err->code = worst;
    memcpy(err->msg, msg, sizeof msg);
    return worst;
}

void pb_ctx_abort(const pb_ctx_t *ctx, const pb_err_t *err)
{
    fprintf(stderr, "parbench: rank %d: %s\n", ctx->rank, err->msg);
    fflush(stderr);
    pb_ctl_abort(ctx->world, PB_ERUNTIME);
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

/* Ranks against cores, node by node (a core each is what the timings
 * assume): the worst node's numbers go to every rank. */
static int find_oversub(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_nodemap_t *m = &ctx->map;
    int local = pb_rankmap_local_size(m, ctx->rank);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    pb_ctl_loc_t worst = {cores > 0 ? (double)(local - (int)cores) : 0.0, ctx->rank};
    int nums[2] = {local, (int)cores};
    pb_watch_begin_after(ctx->wd, "core count exchange");
    int rc = pb_ctl_maxloc(ctx->world, &worst, 1);
    if (rc == PB_OK)
        rc = pb_ctl_bcast(ctx->world, nums, sizeof nums, worst.rank);
    pb_watch_end(ctx->wd);
    if (rc != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of core counts failed");
    if (worst.v > 0.0) {
        ctx->oversub_ranks = nums[0];
        ctx->oversub_cores = nums[1];
    }
    return PB_OK;
}

void pb_ctx_print_oversub(const pb_ctx_t *ctx, FILE *f)
{
    if (ctx->rank != 0 || ctx->oversub_ranks == 0)
        return;
    fprintf(f, "# WARNING: %d ranks share %d cores on a node (oversubscribed): ranks wait for a "
               "core, so times and ratios measure the scheduler as much as the links\n",
            ctx->oversub_ranks, ctx->oversub_cores);
}

/* The node map: hwloc on every rank (PCI discovery only where a command
 * shows devices: it costs time), then the exchange. */
static int map_nodes(pb_ctx_t *ctx, pb_err_t *err)
{
    /* the main job writes the device pairs too */
    int io = ctx->opt->cmd == PB_CMD_TOPO || ctx->opt->cmd == PB_CMD_VALIDATE ||
             ctx->opt->cmd == PB_CMD_MAIN;
    int code = pb_topo_load(&ctx->topo, NULL, io, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    pb_watch_begin(ctx->wd, "set-up: node map exchange");
    code = pb_nodemap_build(ctx->world, &ctx->topo, &ctx->map, err);
    pb_watch_end(ctx->wd);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    ctx->nodes = ctx->map.nnodes;
    return find_oversub(ctx, err);
}

static int open_outputs(pb_ctx_t *ctx, pb_err_t *err)
{
    int code = PB_OK;
    if (ctx->rank == 0 && ctx->csv_path)
        code = pb_csv_open(ctx->csv_path, &ctx->csv, err);
    if (code == PB_OK && ctx->rank == 0 && ctx->opt->run.json_path)
        code = pb_json_open(ctx->opt->run.json_path, &ctx->json, err);
    if (code == PB_OK && ctx->rank == 0 && ctx->opt->meas.samples_path)
        code = pb_samples_open(ctx->opt->meas.samples_path, &ctx->samples, err);
    return pb_ctx_agree(ctx, code, err);
}

static void backend_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < pb_backend_count() && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 pb_backend_at(i)->name);
}

/* "auto" takes the first backend of the registry that is available on
 * every rank (nccl, then rccl, then mpi), so all ranks agree; a named one must be
 * available everywhere, else the first rank's reason is the message. */
static int select_backend(pb_ctx_t *ctx, const char *name, const pb_backend_config_t *cfg,
                          const pb_comm_ops_t **out, pb_err_t *err)
{
    int is_auto = strcmp(name, "auto") == 0;
    char none[600] = ""; /* auto: why each backend cannot run (this rank's reasons) */
    size_t used = 0;
    for (int i = 0; i < pb_backend_count(); i++) {
        const pb_comm_ops_t *ops = pb_backend_at(i);
        if (!is_auto && strcmp(ops->name, name) != 0)
            continue;
        char why[400] = ""; /* a library's path and the loader's reason */
        int ok = ops->available(cfg, why, sizeof why);
        int code = ok ? PB_OK : pb_err_set(err, PB_EINPUT, "%s", why);
        if (is_auto) {
            int all = ok;
            if (pb_ctl_allreduce(ctx->world, &all, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK)
                all = 0;
            pb_err_clear(err);
            if (!ok && used < sizeof none)
                used += (size_t)snprintf(none + used, sizeof none - used, "%s%s: %s",
                                         used ? "; " : "", ops->name, why);
            if (!all)
                continue;
            *out = ops;
            return PB_OK;
        }
        if (pb_ctx_agree(ctx, code, err) != PB_OK)
            return err->code;
        *out = ops;
        return PB_OK;
    }
    if (is_auto && pb_backend_count() == 0)
        return pb_err_set(err, PB_EINPUT, "this build has no backend that moves data (built "
                          "with PARBENCH_MPI=OFF and without CUDA and NCCL)");
    if (is_auto)
        return pb_err_set(err, PB_EINPUT, "no backend of this build runs here (%s)", none);
    char names[128];
    backend_names(names, sizeof names);
    return pb_err_set(err, PB_EINPUT, "unknown backend '%s' (this build has: %s)", name, names);
}

int pb_ctx_init(pb_ctx_t *ctx, const pb_options_t *opt, const char *csv_path, pb_watchdog_t *wd,
                pb_ctl_t *world, pb_err_t *err)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->opt = opt;
    ctx->csv_path = csv_path;
    ctx->wd = wd;
    ctx->world = world;
    ctx->rank = world->rank;
    ctx->size = world->size;
    /* the same verdict on every rank (the world is known to all): under a
     * launcher this is the first place a fault switch meets the world */
    if (pb_preflight_faults(&opt->run, ctx->size, err) != PB_OK)
        return err->code;
    if (map_nodes(ctx, err) != PB_OK)
        return err->code;
    /* host names longer than a row field are cut, never overflowed */
    pb_ctl_host(world, ctx->host, sizeof ctx->host);
    if (ctx->rank == 0)
        make_run_id(ctx->run_id, sizeof ctx->run_id);
    pb_watch_begin(wd, "set-up: run id broadcast");
    if (pb_ctl_bcast(ctx->world, ctx->run_id, sizeof ctx->run_id, 0) != PB_OK ||
        pb_ctl_bcast(ctx->world, ctx->host, sizeof ctx->host, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the run id failed");
    pb_watch_end(wd);

    /* gemm measures compute and topo maps links: neither moves data, so
     * neither opens a backend (and both run on the threads of --gpus
     * without a GPU library to hand) */
    if (opt->cmd == PB_CMD_GEMM || opt->cmd == PB_CMD_TOPO)
        return open_outputs(ctx, err);

    pb_backend_config_t cfg = {ctx->world, opt->run.memory_device ? PB_MEM_DEVICE : PB_MEM_HOST,
                               opt->run.chunk_bytes, opt->run.timeout_s, opt->run.nccl_lib};
    const pb_comm_ops_t *ops = NULL;
    if (select_backend(ctx, opt->run.backend, &cfg, &ops, err) != PB_OK)
        return err->code;
    pb_watch_begin(wd, "set-up: %s backend init (communicators)", ops->name);
    int code = pb_backend_open(&ctx->be, ops, &cfg, err);
    pb_watch_end(wd);
    if (pb_ctx_agree(ctx, code, err) != PB_OK) {
        if (code == PB_OK)
            pb_backend_close(&ctx->be);
        return err->code;
    }
    pb_watch_begin(wd, "set-up: %s world group", ops->name);
    code = ops->world(&ctx->be, &ctx->world_group, err);
    pb_watch_end(wd);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    ops->version(&ctx->be, ctx->version, sizeof ctx->version);
    /* a backend that polls with its own deadline (nccl) names the hung
     * operation more precisely: it speaks first, the watchdog later */
    if (pb_backend_has(&ctx->be, PB_CAP_DEADLINE) && opt->run.timeout_s > 0.0)
        pb_watchdog_set_timeout(wd, opt->run.timeout_s + 10.0);
    return open_outputs(ctx, err);
}

int pb_ctx_stopping(pb_ctx_t *ctx)
{
    if (ctx->stopped_by)
        return ctx->stopped_by;
    int sig = pb_watchdog_signal(ctx->wd);
    pb_watch_begin_after(ctx->wd, "signal check");
    int rc = pb_ctl_allreduce(ctx->world, &sig, 1, PB_CTL_INT, PB_CTL_MAX);
    pb_watch_end(ctx->wd);
    if (rc != PB_OK) {
        pb_err_t err;
        pb_err_set(&err, PB_ERUNTIME, "the exchange of the stop flag failed");
        pb_ctx_abort(ctx, &err);
    }
    ctx->stopped_by = sig;
    return sig;
}


void pb_ctx_report_stop(const pb_ctx_t *ctx)
{
    if (ctx->rank != 0 || !ctx->stopped_by)
        return;
    const char *sig = ctx->stopped_by == SIGINT ? "SIGINT" : "SIGTERM";
    if (ctx->csv_path)
        fprintf(stderr, "parbench: stopped by %s: %llu complete row%s in %s (the measurement under way was dropped)\n",
                sig, (unsigned long long)ctx->rows, ctx->rows == 1 ? "" : "s", ctx->csv_path);
    else
        fprintf(stderr, "parbench: stopped by %s: results so far are printed above (--csv FILE keeps them as rows)\n",
                sig);
    fflush(stderr);
}

void pb_ctx_fini(pb_ctx_t *ctx)
{
    pb_nodemap_free(&ctx->map);
    pb_topo_free(&ctx->topo);
    if (ctx->csv)
        pb_csv_close(ctx->csv);
    pb_json_close(ctx->json);
    pb_samples_close(ctx->samples);
    if (ctx->be.comm) {
        if (ctx->world_group)
            ctx->be.comm->group_free(ctx->world_group);
        pb_backend_close(&ctx->be);
    }
    pb_ctl_free(ctx->world);
    ctx->world = NULL;
}

int pb_ctx_emit(pb_ctx_t *ctx, const pb_result_t *r, pb_err_t *err)
{
    if (ctx->csv && pb_csv_write(ctx->csv, r, err) != PB_OK)
        return err->code;
    if (ctx->json && pb_json_write(ctx->json, r, err) != PB_OK)
        return err->code;
    if (ctx->csv || ctx->json)
        ctx->rows++; /* what a stop reports as kept */
    return PB_OK;
}

int pb_ctx_emit_samples(pb_ctx_t *ctx, const pb_result_t *r, const double *per_rank, uint64_t n,
                        pb_err_t *err)
{
    if (ctx->samples == NULL || per_rank == NULL)
        return PB_OK;
    return pb_samples_write(ctx->samples, r, per_rank, n, ctx->size, err);
}

int pb_ctx_memory_fits(const pb_ctx_t *ctx, uint64_t buf_bytes, uint64_t extra, pb_err_t *err)
{
    const pb_mem_ops_t *mem = ctx->be.mem;
    uint64_t avail = 0;
    int per_node = 0;
    char what[96] = "";
    if (mem == NULL ||
        !mem->mem_available((pb_backend_t *)&ctx->be, &avail, &per_node, what, sizeof what))
        return PB_OK;
    int local = 1;
    if (per_node && ctx->map.node)
        local = pb_rankmap_local_size(&ctx->map, ctx->rank);
    return pb_mem_fits(buf_bytes, extra, local, avail, what, err);
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
    snprintf(r->backend, sizeof r->backend, "%s", ctx->be.comm ? ctx->be.comm->name : "");
    snprintf(r->label, sizeof r->label, "%s", ctx->opt->run.label ? ctx->opt->run.label : "");
    r->wrong = PB_RESULT_WRONG_UNCHECKED;
    r->slowest_rank = -1;
}
