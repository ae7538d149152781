/* pb_prof_plugin.c - libnccl-profiler-parbench.so: the symbols NCCL
 * looks up (ncclProfiler_v5, _v4, _v3; pb_prof_api.h says which NCCL
 * release reads which), each a thin conversion of that version's
 * descriptors to pb_prof_ev_t.  Load it with
 *   NCCL_PROFILER_PLUGIN=/path/to/libnccl-profiler-parbench.so
 * (or NCCL_PROFILER_PLUGIN=parbench with the library on the loader's
 * path); the records go to PARBENCH_PROFILE_DIR (pb_prof_ctx.h).
 *
 * It asks for collective, point-to-point and kernel channel events only:
 * proxy and network events cost per step, and what `parbench profile`
 * reports needs none of them.
 *
 * PARBENCH_PROFILE_SIGNAL=USR1 (or USR2) makes that signal switch
 * recording of new operations off and on while the job runs (those
 * already recorded complete: pb_prof_events.h).  A signal handler can only
 * reach static storage, so the switch is this file's one static
 * variable, written by the handler alone: a lock-free atomic, as the
 * handler runs on whichever thread the signal hits and NCCL's threads
 * read it (volatile sig_atomic_t is safe only within one thread).
 *
 * The library is linked -z nodelete (CMakeLists.txt): NCCL dlcloses its
 * profiler plugin when the last communicator is finalized, after a
 * failed init, and once more when the communicator whose init failed is
 * finalized (src/plugin/profiler.cc unloads unconditionally there), so
 * its count can reach zero while other communicators still record.  The
 * handler and the contexts' writer threads run code of this library; it
 * stays mapped for the life of the process, so a later signal, or a
 * writer still running, never jumps into unmapped memory. */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pb_prof_events.h"

#define PB_PROF_EXPORT __attribute__((visibility("default")))
#define MASK (PB_NCCL_PROF_COLL | PB_NCCL_PROF_P2P | PB_NCCL_PROF_KERNEL_CH)

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may only touch lock-free atomics");
static _Atomic int prof_paused;

static void on_toggle(int sig)
{
    (void)sig;
    atomic_fetch_xor_explicit(&prof_paused, 1, memory_order_relaxed);
}

/* The signal named by PARBENCH_PROFILE_SIGNAL, handled unless the job
 * handles it already (a job's own handler is never replaced). */
static void want_signal(void)
{
    const char *s = getenv("PARBENCH_PROFILE_SIGNAL");
    int sig = s == NULL ? 0 : strcmp(s, "USR1") == 0 ? SIGUSR1 : strcmp(s, "USR2") == 0 ? SIGUSR2 : 0;
    struct sigaction old;
    if (sig == 0 || sigaction(sig, NULL, &old) != 0 || old.sa_handler == on_toggle ||
        (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_toggle;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static pb_ncclResult_t open_ctx(void **context, int *mask, int api, uint64_t id, const char *name,
                                int nnodes, int nranks, int rank, pb_nccl_logger_t log)
{
    want_signal();
    pb_prof_ctx_t *c = pb_prof_ctx_open(api, id, name, nnodes, nranks, rank, log, &prof_paused);
    *context = c;
    /* NCCL's mask is one for the process, shared by every communicator:
     * a failed init leaves it as it is (NCCL then goes on without this
     * communicator's context; its events come with a NULL context, which
     * pb_prof_start ignores), rather than turn the others' recording off */
    if (c != NULL)
        *mask = MASK;
    /* an error from init makes NCCL leave the plugin out: never the job */
    return c ? PB_NCCL_SUCCESS : PB_NCCL_INTERNAL_ERROR;
}

static pb_ncclResult_t fin(void *context)
{
    pb_prof_ctx_close(context);
    return PB_NCCL_SUCCESS;
}

static pb_ncclResult_t stop(void *handle)
{
    pb_prof_stop(handle);
    return PB_NCCL_SUCCESS;
}

/* v4 and v5 name what parbench reads alike (v5 widens the type and adds
 * parentGroup): one conversion for both descriptor types. */
#define EV_FROM_V4_V5(d, ev)                                                                   \
    do {                                                                                       \
        memset(&(ev), 0, sizeof(ev));                                                          \
        (ev).type = (int)(d)->type;                                                            \
        (ev).parent = (d)->parentObj;                                                          \
        if ((d)->type == PB_NCCL_PROF_COLL) {                                                  \
            (ev).seq = (d)->coll.seqNumber, (ev).func = (d)->coll.func;                        \
            (ev).count = (d)->coll.count, (ev).peer = (d)->coll.root;                          \
            (ev).dtype = (d)->coll.datatype, (ev).nchannels = (d)->coll.nChannels;             \
            (ev).nwarps = (d)->coll.nWarps, (ev).algo = (d)->coll.algo;                        \
            (ev).proto = (d)->coll.proto, (ev).wait_channels = 1;                              \
        } else if ((d)->type == PB_NCCL_PROF_P2P) {                                            \
            (ev).func = (d)->p2p.func, (ev).dtype = (d)->p2p.datatype;                         \
            (ev).count = (d)->p2p.count, (ev).peer = (d)->p2p.peer;                            \
            (ev).nchannels = (d)->p2p.nChannels, (ev).wait_channels = 1;                       \
        } else if ((d)->type == PB_NCCL_PROF_KERNEL_CH) {                                      \
            (ev).ptimer = (d)->kernelCh.pTimer, (ev).has_ptimer = 1;                           \
        }                                                                                      \
    } while (0)

/* v4 and v5 share the state arguments' layout */
static pb_ncclResult_t state_v4(void *handle, int state, pb_nccl_state_args_v4_t *a)
{
    if (a != NULL)
        pb_prof_state(handle, state, a->kernelCh.pTimer, 1);
    return PB_NCCL_SUCCESS;
}

/* ---- v5 ---- */
static pb_ncclResult_t init_v5(void **context, uint64_t comm_id, int *mask, const char *name,
                               int nnodes, int nranks, int rank, pb_nccl_logger_t log)
{
    return open_ctx(context, mask, 5, comm_id, name, nnodes, nranks, rank, log);
}

static pb_ncclResult_t start_v5(void *context, void **handle, pb_nccl_descr_v5_t *d)
{
    pb_prof_ev_t ev;
    EV_FROM_V4_V5(d, ev);
    pb_prof_start(context, handle, &ev);
    return PB_NCCL_SUCCESS;
}

PB_PROF_EXPORT const pb_nccl_profiler_v5_t ncclProfiler_v5 = {
    "parbench", init_v5, start_v5, stop, state_v4, fin};

/* ---- v4 ---- */
static pb_ncclResult_t init_v4(void **context, int *mask, const char *name, uint64_t hash,
                               int nnodes, int nranks, int rank, pb_nccl_logger_t log)
{
    return open_ctx(context, mask, 4, hash, name, nnodes, nranks, rank, log);
}

static pb_ncclResult_t start_v4(void *context, void **handle, pb_nccl_descr_v4_t *d)
{
    pb_prof_ev_t ev;
    EV_FROM_V4_V5(d, ev);
    pb_prof_start(context, handle, &ev);
    return PB_NCCL_SUCCESS;
}

PB_PROF_EXPORT const pb_nccl_profiler_v4_t ncclProfiler_v4 = {
    "parbench", init_v4, start_v4, stop, state_v4, fin};

/* ---- v3: no communicator at init; it comes with each operation, and
 * the rank with the descriptor ---- */
static pb_ncclResult_t init_v3(void **context, int *mask)
{
    return open_ctx(context, mask, 3, 0, NULL, -1, -1, -1, NULL);
}

static pb_ncclResult_t start_v3(void *context, void **handle, pb_nccl_descr_v3_t *d)
{
    pb_prof_ev_t ev;
    memset(&ev, 0, sizeof ev);
    ev.type = d->type;
    ev.parent = d->parentObj;
    if (d->type == PB_NCCL_PROF_COLL) {
        ev.seq = d->coll.seqNumber, ev.func = d->coll.func, ev.count = d->coll.count;
        ev.peer = d->coll.root, ev.dtype = d->coll.datatype, ev.nchannels = d->coll.nMaxChannels;
        ev.nwarps = d->coll.nWarps, ev.algo = d->coll.algo, ev.proto = d->coll.proto;
        ev.comm_name = d->coll.name, ev.comm_hash = d->coll.commHash, ev.has_comm = 1;
    } else if (d->type == PB_NCCL_PROF_P2P) {
        ev.func = d->p2p.func, ev.dtype = d->p2p.datatype, ev.count = d->p2p.count;
        ev.peer = d->p2p.peer;
        ev.comm_name = d->p2p.name, ev.comm_hash = d->p2p.commHash, ev.has_comm = 1;
    }
    /* NCCL fills the descriptor's rank with comm->rank for collectives and
     * sends alike (src/plugin/profiler.cc, ncclProfilerStartTaskEvents) */
    ev.rank = d->rank;
    pb_prof_start(context, handle, &ev);
    return PB_NCCL_SUCCESS;
}

static pb_ncclResult_t state_v3(void *handle, int state, pb_nccl_state_args_v3_t *a)
{
    (void)a; /* v3 gives no GPU timer */
    pb_prof_state(handle, state, 0, 0);
    return PB_NCCL_SUCCESS;
}

PB_PROF_EXPORT const pb_nccl_profiler_v3_t ncclProfiler_v3 = {
    "parbench", init_v3, start_v3, stop, state_v3, fin};
