/* pb_samples_csv.h - every timed sample of every rank, as CSV
 * (`--samples FILE`): the raw times behind each result row.
 *
 * doc/design.md asks that per-rank times stay available for straggler
 * hunting; a row's min/median/p99/max say that a collective was slow,
 * these say which rank made it so, sample by sample.  They also let a
 * benchmark apply any statistic to parbench's samples and a reference
 * loop's alike (bench/perf/latency_vs_loop.sh).
 *
 * One line per (row, sample, rank):
 *   run_id, pattern, collective, group, bytes, dtype, in_place, mode,
 *   sample, rank, time_us, slowest
 * time_us is that rank's time for one operation (a throughput or graph
 * sample's time divided by its operations) at 1 ns resolution; slowest is
 * 1 on the rank whose time is the sample's (the maximum over ranks: the
 * value the row's statistics are taken over), 0 elsewhere.  The file
 * holds one run: it is replaced when opened. */
#ifndef PB_SAMPLES_CSV_H
#define PB_SAMPLES_CSV_H

#include <stdint.h>

#include "pb_result.h"
#include "../util/pb_err.h"

typedef struct pb_samples_writer pb_samples_writer_t;

/* PB_EINPUT naming the path when it cannot be created. */
int pb_samples_open(const char *path, pb_samples_writer_t **out, pb_err_t *err);

/* The samples of one row: sec[rank * nsamples + i] is rank's seconds in
 * sample i (the layout of an MPI_Gather of each rank's samples). */
int pb_samples_write(pb_samples_writer_t *w, const pb_result_t *row, const double *sec,
                     uint64_t nsamples, int nranks, pb_err_t *err);

/* Flushes and closes; NULL is a no-op. */
void pb_samples_close(pb_samples_writer_t *w);

#endif
