/* pb_replay_csv.h - `parbench replay --csv`: the per-communicator table,
 * one row per recorded communicator replayed and a last row "job" (each
 * rank's operations over every communicator summed, the slowest rank's),
 * written through libcsv.  One file per replay, written whole (replaced).
 *
 * Columns: run_id, backend, comm (the recording's index; "job"), group
 * (tp, dp, ... where inferred, else the recorded name), ranks, members
 * (global ranks, "0-3,8"), ops, bytes (as recorded), recorded_s,
 * replayed_s (each the slowest member's sum of its operations' times;
 * recorded_s empty where no duration was recorded), ratio (replayed /
 * recorded; empty with it), wrong (elements; empty when not checked). */
#ifndef PB_REPLAY_CSV_H
#define PB_REPLAY_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "../util/pb_err.h"

typedef struct pb_replay_row {
    char run_id[64];
    char backend[16];
    char comm[24];
    char group[64];
    int ranks;
    char members[256];
    uint64_t ops, bytes;
    double recorded_s;  /* < 0: not recorded */
    double replayed_s;
    int64_t wrong;      /* < 0: not checked */
} pb_replay_row_t;

/* PB_EINPUT naming the path when it cannot be opened, PB_ERUNTIME when a
 * write fails. */
int pb_replay_csv_write(const char *path, const pb_replay_row_t *rows, size_t n, pb_err_t *err);

#endif
