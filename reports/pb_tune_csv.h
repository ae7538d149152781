/* pb_tune_csv.h - every candidate `parbench tune` measured (or left out),
 * one row per candidate and case, written through libcsv.  One file per
 * tuning run, written whole (replaced), like the pairs file.
 *
 * Columns: run_id, backend, setting ("default" or NAME=VALUE ...),
 * group (tp, dp, world, ...), group_size, collective, bytes, dtype,
 * count_per_step, pairs, default_us, candidate_us (the medians of the
 * pairs' two sides), ratio, ratio_lo, ratio_hi (candidate / default: the
 * median of the pairs' ratios and its 95 % interval; the interval empty
 * when there is none), verdict (faster, slower, no change, not enough
 * pairs, wrong, failed, not measured), wrong, note. */
#ifndef PB_TUNE_CSV_H
#define PB_TUNE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "../util/pb_err.h"

typedef struct pb_tune_row {
    char run_id[64];
    char backend[16];
    char setting[256];
    char group[16];
    int group_size;
    char collective[24];
    uint64_t bytes;
    char dtype[16];
    uint64_t count; /* per step (1 for --op sizes) */
    size_t pairs;   /* 0: not measured */
    double default_us, candidate_us;
    double ratio, ratio_lo, ratio_hi;
    char verdict[24];
    int64_t wrong; /* -1: not checked */
    char note[160];
} pb_tune_row_t;

/* PB_EINPUT naming the path when it cannot be opened, PB_ERUNTIME when
 * a write fails. */
int pb_tune_csv_write(const char *path, const pb_tune_row_t *rows, size_t n, pb_err_t *err);

#endif
