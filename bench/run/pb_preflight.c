/* Checks before a self-launch (pb_preflight.h). */
#include "pb_preflight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../collectives/pb_backend.h"

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

/* What the host memory side says is free (MemAvailable); 0 unknown.  It
 * ignores its backend argument, so none is opened for it here. */
static unsigned long long available_kb(void)
{
    uint64_t bytes = 0;
    int per_node = 0;
    char what[96];
    if (!pb_host_mem_ops.mem_available(NULL, &bytes, &per_node, what, sizeof what))
        return 0;
    return (unsigned long long)(bytes / 1024u);
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

int pb_preflight(const pb_options_t *o, int np, int threads, pb_err_t *err)
{
    if (pb_preflight_faults(&o->run, np, err) != PB_OK ||
        writable(o->run.csv_path, "--csv", err) != PB_OK ||
        writable(o->run.json_path, "--json", err) != PB_OK ||
        writable(o->meas.samples_path, "--samples", err) != PB_OK ||
        writable(o->step.trace_path, "--trace", err) != PB_OK || backend_here(&o->run, err) ||
        world_fits(np, threads, err) != PB_OK)
        return err->code;
    return PB_OK;
}
