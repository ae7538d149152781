/* pb_wd_signals.h - SIGINT and SIGTERM taken once per process, for every
 * rank the process holds.
 *
 * A signal sent to a process is delivered once, to one reader.  Under
 * --gpus N one process holds N ranks, each with its watchdog thread; when
 * each watchdog had a signalfd of its own, the first Ctrl-C stopped the
 * rank whose watchdog happened to read it (the others learnt of it only
 * at the next stop-flag exchange), and a second Ctrl-C read by another
 * watchdog counted there as a first, so "again to stop now" did not stop.
 * So the process has one signalfd and one record of what came: every
 * watchdog polls that descriptor (whichever wakes first reads it), every
 * rank reads the record, and the count is the process's: the first
 * signal means "stop after the current measurement" for all its ranks,
 * the second ends the process at once (exit 128 + signal), whichever
 * watchdog reads either.  Under a launcher (one rank per process) this is
 * what one watchdog did before.
 *
 * No handler and no global: the signals stay blocked in every thread
 * (pb_watchdog_block_signals) and the record is an object the process's
 * start code makes and hands to each rank (pb_app.h). */
#ifndef PB_WD_SIGNALS_H
#define PB_WD_SIGNALS_H

#include "../../util/pb_err.h"

typedef struct pb_wd_signals pb_wd_signals_t;

/* The process's record and signalfd.  SIGINT and SIGTERM must already be
 * blocked in the calling thread (pb_watchdog_block_signals), before any
 * other thread starts. */
int pb_wd_signals_open(pb_wd_signals_t **out, pb_err_t *err);
/* After every watchdog using it has stopped. NULL: nothing. */
void pb_wd_signals_close(pb_wd_signals_t *s);

/* The descriptor the watchdogs poll (readable: call pb_wd_signals_read). */
int pb_wd_signals_fd(const pb_wd_signals_t *s);
/* This process holds rank 0: it announces the first signal, once (the
 * other processes of a launched job stay quiet, as one line is enough). */
void pb_wd_signals_speak(pb_wd_signals_t *s);
/* Takes what is pending, from any watchdog thread: the first SIGINT or
 * SIGTERM is recorded (and announced by rank 0's process); a later one
 * prints "rank R: SIG again" and ends the process with 128 + signal. */
void pb_wd_signals_read(pb_wd_signals_t *s, int rank);
/* The first signal taken (SIGINT or SIGTERM), else 0. */
int pb_wd_signals_got(const pb_wd_signals_t *s);

#endif
