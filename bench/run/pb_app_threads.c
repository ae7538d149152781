/* The ranks as threads of this process, one per local GPU (pb_app.h):
 * what nccl-tests does with -g N, and the only way a build without MPI
 * runs.  Each thread is a whole rank - its own watchdog, context, backend
 * and GPU - over the shared-memory control world (pb_ctl.h), so every
 * command runs the same code as under mpirun. */
#include "pb_app.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../topo/pb_topo.h"
#include "pb_watchdog.h"

typedef struct rank_arg {
    const pb_options_t *opt;
    pb_ctl_t *world;
    pb_wd_signals_t *sigs;
    int code;
} rank_arg_t;

static void *rank_main(void *p)
{
    rank_arg_t *a = p;
    a->code = pb_app_rank(a->world, a->opt, a->sigs);
    return NULL;
}

int pb_app_run_threads(const pb_options_t *opt, int n)
{
    /* before the first thread: every rank inherits the blocked mask and
     * the watchdogs take the signals (pb_watchdog.h) from the process's
     * one record, so that a Ctrl-C counts once for all the ranks
     * (pb_wd_signals.h) */
    pb_wd_signals_t *sigs = NULL;
    if (pb_app_signals(&sigs) != PB_OK)
        return PB_ERUNTIME;
    pb_topo_skip_plugins();
    pb_ctl_shared_t *sh = pb_ctl_threads_new(n);
    rank_arg_t *args = calloc((size_t)n, sizeof *args);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    int code = sh && args && th ? PB_OK : PB_ERUNTIME;
    for (int r = 0; code == PB_OK && r < n; r++) {
        args[r].opt = opt;
        args[r].sigs = sigs;
        args[r].world = pb_ctl_threads_join(sh, r);
        if (args[r].world == NULL)
            code = PB_ERUNTIME;
    }
    if (code != PB_OK) {
        fprintf(stderr, "parbench: out of memory for %d ranks\n", n);
        for (int r = 0; args && r < n; r++)
            free(args[r].world);
        pb_ctl_threads_drop(sh);
        free(args), free(th);
        pb_wd_signals_close(sigs);
        return PB_ERUNTIME;
    }
    for (int r = 0; r < n; r++) {
        int rc = pthread_create(&th[r], NULL, rank_main, &args[r]);
        if (rc != 0) {
            /* the ranks already started wait for this one in their first
             * exchange: nothing can end them but the process's end */
            fprintf(stderr, "parbench: cannot start rank %d's thread: %s\n", r, strerror(rc));
            fflush(stderr);
            _exit(PB_ERUNTIME);
        }
    }
    for (int r = 0; r < n; r++)
        pthread_join(th[r], NULL);
    code = args[0].code;
    free(args);
    free(th);
    pb_wd_signals_close(sigs); /* every watchdog has stopped */
    return code;
}
