/* pb_jp_csv.h - a recorded job as CSV: one row per operation and rank,
 * its communicator described on the row (id, name, size, members as
 * global ranks separated by blanks, dimension), so the file stands alone:
 * `parbench import` writes it from PyTorch traces, `parbench profile
 * --csv` from any recording, and profile and replay read it back.
 *
 * Columns: world, every, rank, comm_id (16 hex digits), comm_name,
 * comm_size, members, dim, seq, kind (coll/send/recv), func (as recorded),
 * collective (parbench's name, empty when it measures no such thing),
 * dtype (as recorded), count, bytes, peer, t_issue_ns, t_start_ns,
 * t_end_ns, gpu_ns, algo, proto, nchannels.  Unknown numbers are 0
 * (times, bytes, nchannels) or -1 (peer, gpu_ns, a member), as in
 * pb_jobprof.h. */
#ifndef PB_JP_CSV_H
#define PB_JP_CSV_H

#include "pb_jobprof.h"

/* Writes (replaces) path; PB_EINPUT when it cannot be written. */
int pb_jp_csv_write(const char *path, const pb_jobprof_t *jp, pb_err_t *err);
/* Appends the rows of path to jp (source "csv" unless set).  A missing
 * column, a bad field, a row whose communicator disagrees with an earlier
 * row's: PB_EINPUT "path:line: why".  Also refused, naming the value: a
 * count, size or time past 2^62 (pb_jp_bounds.h), a rank or member
 * outside the row's world (when it names one), a row that ends before it
 * starts. */
int pb_jp_csv_read(const char *path, pb_jobprof_t *jp, pb_err_t *err);
/* The same for the file's bytes text[0, len), read already (and
 * gunzipped: pb_jp_gz.h); name for the messages. */
int pb_jp_csv_read_text(const char *name, const char *text, size_t len, pb_jobprof_t *jp,
                        pb_err_t *err);
/* 1 when the first line of text is this file's header. */
int pb_jp_is_csv(const char *text, size_t len);

#endif
