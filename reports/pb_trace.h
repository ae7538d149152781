/* pb_trace.h - timelines as Chrome trace JSON (the Trace Event Format
 * that chrome://tracing and ui.perfetto.dev open): one process per rank,
 * one complete ("X") event per span, through jansson.
 *
 * parbench step writes the last step of every rank with --trace, so a
 * user sees the pipeline's fill and drain, which exchange waited on whom,
 * and where the DP tail sticks out; tests read the same file back to
 * check the schedule that really ran. */
#ifndef PB_TRACE_H
#define PB_TRACE_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef struct pb_trace_event {
    int pid;          /* the rank */
    char name[64];    /* "fwd mb 3 chunk 1", "xchg send_next+recv_prev+send_prev+recv_next" */
    char cat[16];     /* "compute", "pp", "dp" */
    double ts_us;     /* start, microseconds from the step's start */
    double dur_us;
    int mb, chunk;    /* -1 where they mean nothing */
    char detail[48];  /* exchange parts, else empty */
    int tid;          /* the track within the rank (0: the one step draws on; profile: the
                       * communicator, so that overlapping comms do not share a track) */
} pb_trace_event_t;

/* Writes the events, naming process p "rank p (<proc_label[p]>)" for p <
 * nproc.  PB_EINPUT naming the path when it cannot be written. */
int pb_trace_write(const char *path, const pb_trace_event_t *ev, size_t n,
                   const char (*proc_label)[32], int nproc, pb_err_t *err);

#endif
