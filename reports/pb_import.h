/* pb_import.h - other tools' logs (nccl-tests, OSU, IMB) turned into
 * parbench result rows, so calibrate, report, compare and model --calib
 * read them unchanged.
 *
 * Pure text parsing: no MPI, no files beyond reading the one named.
 * Every row follows parbench's conventions whatever the tool printed:
 *   bytes   nccl-tests' size convention (pb_coll.h): OSU's and IMB's
 *           per-rank blocks (allgather, alltoall; IMB's old
 *           Reduce_scatter) are multiplied by the process count;
 *   time    the tool's time per operation in us; where the tool prints
 *           the slowest rank (IMB t_max, OSU -f "Max Latency") it is the
 *           median column, as parbench's own rows carry the slowest
 *           rank's time; else the tool's average;
 *   algbw   bytes / time (GB = 1e9 B), busbw = algbw x DESIGN's factor.
 * backend names the tool, label the file, mode is throughput for
 * nccl-tests (a timed batch of back-to-back operations) and latency for
 * OSU and IMB (each operation timed alone). */
#ifndef PB_IMPORT_H
#define PB_IMPORT_H

#include <stddef.h>

#include "pb_import_io.h"
#include "pb_result.h"
#include "../util/pb_err.h"

int pb_import_tool_parse(const char *s, pb_import_tool_t *out);
const char *pb_import_tool_name(pb_import_tool_t t);

/* Parses one log held in memory; `name` labels the rows and the messages.
 * The tool (o->tool AUTO) is the one whose banner or table header comes
 * first; a launcher's prefix on the lines (mpirun --tag-output, srun
 * --label) is taken off.  Bad or truncated input: PB_EINPUT "name:line:
 * why", or, with partial, the line is counted in out->skipped and parsing
 * goes on.  A failed nccl-tests run: PB_EINPUT naming the failure's line,
 * or, with partial, the rows before it kept and the failure in
 * out->failure; one that failed its data check (#wrong, an "error" past
 * nccl-tests' bound, "Out of bounds values : N FAILED"): PB_EINPUT, or
 * with partial every row kept, the wrong ones marked, and
 * out->failed_check.  What only an option can say (o->world, o->coll) is
 * PB_EINPUT, partial or not.  A log with no row at all is PB_EINPUT
 * either way.  Rows are appended to out. */
int pb_import_buffer(const char *name, const char *text, size_t len, const pb_import_opts_t *o,
                     pb_import_out_t *out, pb_err_t *err);
/* The same for a file (its base name labels the rows). */
int pb_import_file(const char *path, const pb_import_opts_t *o, pb_import_out_t *out,
                   pb_err_t *err);
void pb_import_out_free(pb_import_out_t *out);

#endif
