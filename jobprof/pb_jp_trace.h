/* pb_jp_trace.h - every rank's recorded operations as a Chrome trace
 * (reports/pb_trace.h; chrome://tracing and ui.perfetto.dev open it):
 * one process per global rank, one track per communicator.
 *
 * Per record: a "wait" span from its issue to its start where it started
 * later (the rank held by the others: a straggler's lateness shows as
 * its peers' waits), then the operation from start to end, named by its
 * function and size, its category the communicator's dimension.  Times
 * are microseconds from the earliest time recorded; across nodes each
 * host's CLOCK_REALTIME (pb_jp_strag.h says what that means).  Records
 * without a start and an end are left out. */
#ifndef PB_JP_TRACE_H
#define PB_JP_TRACE_H

#include <stddef.h>

#include "pb_jobprof.h"
#include "pb_jp_infer.h"

/* shape: labels the processes by their coordinates when consistent (may
 * be NULL).  *written: the operations drawn. */
int pb_jp_trace_write(const char *path, const pb_jobprof_t *jp, const pb_jp_shape_t *shape,
                      size_t *written, pb_err_t *err);

/* A rank's coordinates, "tp 1 cp 0 dp 1 pp 0" (dimensions of size 1
 * left out), or "" when the shape is not consistent. */
void pb_jp_coords(const pb_jp_shape_t *shape, int rank, char *buf, size_t len);

#endif
