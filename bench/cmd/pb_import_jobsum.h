/* pb_import_jobsum.h - what `parbench import` says of a PyTorch job it
 * read: counted as `parbench profile` counts the same recording, so the
 * two commands agree (issue 50: import said "12 operations, 2.359 MB over
 * all ranks" where profile said "6 ops, 1.12 MiB" of one communicator). */
#ifndef PB_IMPORT_JOBSUM_H
#define PB_IMPORT_JOBSUM_H

#include "../../jobprof/pb_jobprof.h"
#include "../../util/pb_err.h"

/* The job's lines on stdout: its world, communicators, records (one per
 * rank's operation, the ops CSV's rows) and operations (pb_jp_inst.h: a
 * collective once however many members recorded it, a send or a receive
 * once); then per communicator its operations and their sizes summed
 * (nccl-tests' size, in B/KiB/MiB as profile's tables print them).
 * PB_EINPUT for a recording profile refuses too (pb_jp_stats_build). */
int pb_import_jobsum(const pb_jobprof_t *jp, pb_err_t *err);

#endif
