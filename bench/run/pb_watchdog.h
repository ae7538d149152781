/* pb_watchdog.h - a thread per rank that never lets a run hang silently
 * and turns SIGINT/SIGTERM into an orderly stop.
 *
 * The main thread arms the watchdog around every step that waits on other
 * ranks (set-up, barriers, collectives, send/recv, verification) with a
 * description of the step, and ticks it as the step makes progress (one
 * tick per operation or sample).  Past `timeout` seconds without progress
 * in an armed step the watchdog:
 *   1. prints this rank's line: "parbench: watchdog: rank R stuck for T s
 *      in step #k: <what>";
 *   2. reports to rank 0's watchdog, which asks every rank's watchdog
 *      (they answer even while their main thread is blocked or asleep)
 *      which step it is in, and prints the ranks that never arrived at the
 *      step the others wait in, and the ranks that do not answer at all;
 *   3. ends the job: every rank exits with code 3.
 * The watchdogs never call MPI: MPI runs at MPI_THREAD_FUNNELED (asking for
 * the THREAD_MULTIPLE level alone slows small operations by 40 %), and the
 * watchdogs talk over their own TCP tree (pb_wd_tree.h), built once at
 * start and silent until a watchdog fires.  Without it (set-up failed) a
 * rank prints its own line and exits.
 *
 * Signals: SIGINT and SIGTERM are blocked in every thread (pb_watchdog_
 * block_signals, before MPI starts its own threads or --gpus its ranks)
 * and taken by the watchdogs through the process's one signalfd and
 * record (pb_wd_signals.h: under --gpus N the N watchdogs share it, so a
 * signal counts for every rank of the process whichever watchdog reads
 * it), so no handler and no global flag exist; the main thread asks
 * pb_watchdog_signal() between measurements.  A second signal ends the
 * process at once (exit 128 + signal). */
#ifndef PB_WATCHDOG_H
#define PB_WATCHDOG_H

#include "../../collectives/pb_ctl.h"
#include "../../util/pb_err.h"
#include "pb_wd_signals.h"

typedef struct pb_watchdog pb_watchdog_t;

/* Blocks SIGINT and SIGTERM in the calling thread (and so in every
 * thread it creates later: call before MPI_Init_thread or the threads of
 * --gpus; the watchdog reads them from a signalfd). */
void pb_watchdog_block_signals(void);

/* Collective over `world`, from the main thread: builds the watchdogs'
 * channel, then starts the thread.  timeout_s 0: never declares a hang,
 * still takes signals.  sigs: the process's signal record, shared by
 * every rank of the process and outliving their watchdogs (NULL: this
 * watchdog takes no signals). */
int pb_watchdog_start(pb_watchdog_t **out, pb_ctl_t *world, double timeout_s,
                      pb_wd_signals_t *sigs, pb_err_t *err);
/* A new deadline, e.g. longer than a backend's own hang detection so
 * that the backend's more precise message comes first. */
void pb_watchdog_set_timeout(pb_watchdog_t *wd, double timeout_s);
/* Stops and joins the thread, frees the communicator (not collective). */
void pb_watchdog_stop(pb_watchdog_t *wd);

/* Arms the watchdog for a new step (printf-style description); NULL wd is
 * a no-op everywhere, so code runs the same without a watchdog. */
void pb_watch_begin(pb_watchdog_t *wd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A new step described as `what` after the previous step's description
 * (e.g. "status exchange after allreduce of 8 B ..."). */
void pb_watch_begin_after(pb_watchdog_t *wd, const char *what);
/* Progress inside the armed step: the stuck clock restarts. */
void pb_watch_tick(pb_watchdog_t *wd);
/* The step is over: disarmed until the next begin. */
void pb_watch_end(pb_watchdog_t *wd);

/* SIGINT or SIGTERM when the process received one, else 0. */
int pb_watchdog_signal(const pb_watchdog_t *wd);

/* Fault injection (--fault hang:R): this rank stops, sleeping forever,
 * so the others' watchdogs must find and name it. */
_Noreturn void pb_watchdog_hang_forever(void);

#endif
