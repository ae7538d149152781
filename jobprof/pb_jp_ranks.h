/* pb_jp_ranks.h - which of a recorded job's ranks its records come from.
 * A job read from some of its ranks' files only - three traces of a
 * four-rank job, a node's profiler files left behind - must say so rather
 * than pass for whole: import and profile name the ranks missing, replay
 * refuses to make up their side (issue 49). */
#ifndef PB_JP_RANKS_H
#define PB_JP_RANKS_H

#include <stddef.h>
#include <stdio.h>

#include "pb_jobprof.h"

/* The ranks r of [0, n) with flag[r] set, as text: runs of consecutive
 * ranks joined ("3", "0, 4-6"), cut with ", ..." where len runs out. */
void pb_jp_ranks_text(const unsigned char *flag, int n, char *buf, size_t len);

/* The ranks of the job's world (pb_jp_world) that issued no record -
 * their files were not given, or they recorded nothing - as text
 * (pb_jp_ranks_text; "" when none); how many, or -1 out of memory. */
int pb_jp_missing_ranks(const pb_jobprof_t *jp, char *buf, size_t len);

/* The one warning line import and profile print about those ranks, on
 * out, ending with what the command makes of the rest (`then`); nothing
 * when every rank recorded.  How many ranks are missing, or -1. */
int pb_jp_missing_warn(const pb_jobprof_t *jp, const char *then, FILE *out);

#endif
