/* pb_wall.h - where a sweep's wall time goes: inside the timed
 * operations, and around them (set-up, warm-up, barriers, the exchange
 * between rounds, verification, rows).
 *
 * Always kept: a handful of clock reads per measurement (never per
 * sample), next to a measurement of at least five samples plus a warm-up
 * and a verification, so nothing to switch off.  Printed only when
 * PARBENCH_PHASES is set (bench/perf/main_job_split.sh reads it), so the
 * normal output is unchanged. */
#ifndef PB_WALL_H
#define PB_WALL_H

#include <stdint.h>
#include <stdio.h>

#include "pb_harness.h"

typedef enum pb_wall_part {
    PB_WALL_SETUP,    /* geometry and the input fill before timing */
    PB_WALL_WARMUP,   /* warm-up operations and the batch size */
    PB_WALL_SAMPLING, /* the sample loops: barrier, operation, clock reads */
    PB_WALL_ROUNDS,   /* between rounds: the samples' reduction, the stop rule */
    PB_WALL_HARNESS,  /* the rest of the harness: sample arrays, --samples gather */
    PB_WALL_VERIFY,   /* poison, fill, one more operation, the check */
    PB_WALL_AGREE,    /* the sum of the wrong counts over the ranks */
    PB_WALL_EMIT,     /* the row: CSV, JSON, samples file, table line */
    PB_WALL_STOP,     /* the signal check between measurements */
    PB_WALL_COUNT
} pb_wall_part_t;

typedef struct pb_wall {
    double sec[PB_WALL_COUNT];
    /* inside the timed operations: the slowest rank's samples times the
     * batch, summed (what the sampling loops exist for) */
    double timed;
    /* the sum over rows of median x operations (the CSV's view of the
     * same time, as issue 35 counted it) */
    double median_ops;
    double total; /* wall time of the whole sweep */
    uint64_t rows;
} pb_wall_t;

const char *pb_wall_part_name(pb_wall_part_t p);

/* Adds the time since *t to phase p and sets *t to now. */
void pb_wall_lap(pb_wall_t *ph, pb_wall_part_t p, double *t);

/* A measurement's harness call, from *t to now: its warm-up, sampling
 * and rounds as the harness counted them (tm), the rest as "harness";
 * *t is set to now. */
void pb_wall_add_harness(pb_wall_t *ph, const pb_timing_t *tm, double *t);

/* A row written: its median x operations, the time since *t as "emit";
 * *t is set to now. */
void pb_wall_row(pb_wall_t *ph, double median_ops, double *t);

/* Is PARBENCH_PHASES set (to anything but "" or "0")? */
int pb_wall_wanted(void);

/* "# phases <what>: ..." lines: each phase's seconds and share of the
 * total, the timed time and the total's ratio to it. */
void pb_wall_print(FILE *f, const char *what, const pb_wall_t *ph);

#endif
