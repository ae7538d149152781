/* Checks before a self-launch (pb_preflight.h). */
#include "pb_preflight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../collectives/pb_backend.h"
#include "../../util/pb_size.h"
#include "pb_launch.h"
#include "pb_mem_fits.h"

int pb_preflight_faults(const pb_run_opts_t *r, int world, pb_err_t *err)
{
    static const char *const kind[] = {"", "corrupt", "stall", "slow", "hang", "slow-rank", "noisy"};
    if (r->fault == PB_FAULT_NONE)
        return PB_OK;
    if ((r->fault == PB_FAULT_SLOW || r->fault == PB_FAULT_NOISY) &&
        (r->fault_rank >= world || r->fault_peer >= world))
        return pb_err_set(err, PB_EINPUT, "--fault %s:%d-%d names a rank outside the %d launched",
                          kind[r->fault], r->fault_rank, r->fault_peer, world);
    if (r->fault_rank >= world)
        return pb_err_set(err, PB_EINPUT, "--fault %s:%d names a rank outside the %d launched",
                          kind[r->fault], r->fault_rank, world);
    return PB_OK;
}

/* An output file the ranks will append to: its folder must exist and be
 * writable, or the file itself writable where it exists.  Nothing is
 * created here: a launch that fails later leaves no empty file behind. */
static int writable(const char *path, const char *flag, pb_err_t *err)
{
    if (path == NULL || strcmp(path, "-") == 0)
        return PB_OK;
    if (access(path, F_OK) == 0) {
        if (access(path, W_OK) != 0)
            return pb_err_set(err, PB_EINPUT, "%s %s: not writable: %s", flag, path,
                              strerror(errno));
        return PB_OK;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) != 0)
        return pb_err_set(err, PB_EINPUT, "%s %s: cannot create it in %s: %s", flag, path, dir,
                          strerror(errno));
    return PB_OK;
}

/* A named backend must run on this host (the ranks of a self-launch all
 * run here); "auto" finds its own. */
static int backend_here(const pb_run_opts_t *r, pb_err_t *err)
{
    if (strcmp(r->backend, "auto") == 0)
        return PB_OK;
    const pb_comm_ops_t *ops = pb_backend_find(r->backend);
    if (ops == NULL)
        return PB_OK; /* the ranks name the backends this build has */
    pb_backend_config_t cfg = {NULL, r->memory_device ? PB_MEM_DEVICE : PB_MEM_HOST,
                               r->chunk_bytes, r->timeout_s, r->nccl_lib};
    char why[400] = "";
    if (!ops->available(&cfg, why, sizeof why))
        return pb_err_set(err, PB_EINPUT, "%s", why);
    return PB_OK;
}

/* This process's own private memory (kB), from /proc/self/smaps_rollup:
 * every rank maps the same program and libraries and parses the same
 * options before it allocates anything, so this is a lower bound of one
 * rank's need, measured rather than assumed.  0 where unreadable. */
static unsigned long long private_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f == NULL)
        return 0;
    char line[256];
    unsigned long long kb = 0, v;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Private_Clean: %llu kB", &v) == 1 ||
            sscanf(line, "Private_Dirty: %llu kB", &v) == 1)
            kb += v;
    fclose(f);
    return kb;
}

/* What the host memory side says is free (MemAvailable), in bytes and
 * named in what[96]; 0 unknown.  It ignores its backend argument, so
 * none is opened for it here. */
static uint64_t available(char *what)
{
    uint64_t bytes = 0;
    int per_node = 0;
    if (!pb_host_mem_ops.mem_available(NULL, &bytes, &per_node, what, 96))
        return 0;
    return bytes;
}

static unsigned long long available_kb(void)
{
    char what[96];
    return (unsigned long long)(available(what) / 1024u);
}

/* The world against this host: processes the user may still start, and
 * memory.  mpirun asked for more than either does not fail cleanly: it
 * forks until fork fails, or the machine swaps. */
static int world_fits(int np, int threads, pb_err_t *err)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (unsigned long long)np > (unsigned long long)rl.rlim_cur)
        return pb_err_set(err, PB_EINPUT, "%s %d: this host lets a user run %llu processes "
                          "and threads (ulimit -u)", threads ? "--gpus" : "--np", np,
                          (unsigned long long)rl.rlim_cur);
    if (threads) /* one process: what it has now is not per rank */
        return PB_OK;
    unsigned long long mine = private_kb(), avail = available_kb();
    if (mine > 0 && avail > 0 && (unsigned long long)np * mine > avail)
        return pb_err_set(err, PB_EINPUT, "--np %d: %d ranks on this host need at least %.1f GiB "
                          "(%.0f MiB each before any buffer); %.1f GiB is available", np, np,
                          (double)np * (double)mine / 1048576.0, (double)mine / 1024.0,
                          (double)avail / 1048576.0);
    return PB_OK;
}

/* Will the ranks' buffers be in host memory, the one memory measured
 * here?  Chosen as the ranks choose (pb_ctx.c): a named backend, or for
 * "auto" the first of the registry that runs here.  A backend of device
 * memory on a host whose driver lists GPUs is not asked (that would start
 * CUDA in this process): its buffers are the ranks' to check; without a
 * GPU it cannot run, and the next one is asked. */
static int host_buffers(const pb_run_opts_t *r)
{
    if (r->memory_device)
        return 0;
    int is_auto = strcmp(r->backend, "auto") == 0;
    pb_backend_config_t cfg = {NULL, PB_MEM_HOST, r->chunk_bytes, r->timeout_s, r->nccl_lib};
    for (int i = 0; i < pb_backend_count(); i++) {
        const pb_comm_ops_t *ops = pb_backend_at(i);
        if (!is_auto && strcmp(ops->name, r->backend) != 0)
            continue;
        pb_memory_t m;
        pb_err_t e;
        pb_err_clear(&e);
        if (pb_backend_memory(ops, PB_MEM_HOST, &m, &e) != PB_OK)
            return 0;
        if (!is_auto)
            return m == PB_MEM_HOST; /* backend_here ran it */
        if (m != PB_MEM_HOST && pb_launch_local_gpus() > 0)
            return 0;
        char why[400];
        if (m == PB_MEM_HOST && ops->available(&cfg, why, sizeof why))
            return 1;
    }
    return 0;
}

/* parbench coll's two buffers of its largest size on each of the np
 * ranks, all on this host, by the ranks' own rule (pb_mem_fits.h; the
 * all-to-all-v counts of the group are the extra): a size no node could
 * hold is refused here rather than by every rank after mpirun. */
static int coll_fits(const pb_options_t *o, int np, pb_err_t *err)
{
    const pb_meas_opts_t *m = &o->meas;
    if (o->cmd != PB_CMD_COLL || !host_buffers(&o->run))
        return PB_OK;
    uint64_t *sizes = NULL, top = 0;
    size_t n = 0;
    int code = m->size_list ? pb_size_list(m->size_list, &sizes, &n, err)
                            : pb_size_range(m->size_min, m->size_max,
                                            m->size_step ? 0.0 : m->size_factor, m->size_step,
                                            &sizes, &n, err);
    for (size_t i = 0; code == PB_OK && i < n; i++)
        top = sizes[i] > top ? sizes[i] : top;
    free(sizes);
    char what[96] = "";
    uint64_t avail = available(what);
    if (code != PB_OK || avail == 0)
        return code;
    int group = m->group_size > 0 && m->group_size < np ? m->group_size : np;
    return pb_mem_fits(top, 4u * (uint64_t)group * sizeof(uint64_t), np, avail, what, err);
}

int pb_preflight(const pb_options_t *o, int np, int threads, pb_err_t *err)
{
    if (pb_preflight_faults(&o->run, np, err) != PB_OK ||
        writable(o->run.csv_path, "--csv", err) != PB_OK ||
        writable(o->run.json_path, "--json", err) != PB_OK ||
        writable(o->meas.samples_path, "--samples", err) != PB_OK ||
        writable(o->step.trace_path, "--trace", err) != PB_OK || backend_here(&o->run, err) ||
        world_fits(np, threads, err) != PB_OK || (!threads && coll_fits(o, np, err) != PB_OK))
        return err->code;
    return PB_OK;
}
