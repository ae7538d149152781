/* pb_compare.h - two result files, row by row: the gate a CI job or a
 * pre-flight script runs before a big training job.
 *
 * Rows match on (pattern, collective, group, group_size, bytes, dtype,
 * backend, world) and also on (in_place, mode, redop): one sweep measures
 * every size out of place and in place, in latency and throughput mode,
 * and for each reduction, and those are different measurements of the same
 * eight fields; matching without them would compare an in-place time with
 * an out-of-place one.  A key repeated inside one file (appended runs)
 * takes its last row, the newest.  A row regresses when its median time
 * grew by more than the threshold: (new - base) / base > threshold. */
#ifndef PB_COMPARE_H
#define PB_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "pb_result.h"
#include "../util/pb_err.h"

typedef struct pb_compare_sum {
    size_t matched, regressed, improved, only_base, only_new;
    double worst; /* largest relative time growth among matched rows */
} pb_compare_sum_t;

/* Prints the per-row changes and the rows found on one side only to out
 * (names are the files' names for the headings). */
int pb_compare_rows(const pb_result_t *base, size_t nbase, const char *base_name,
                    const pb_result_t *cur, size_t ncur, const char *cur_name, double threshold,
                    FILE *out, pb_compare_sum_t *sum, pb_err_t *err);

#endif
