/* pb_pattern_print.h - the text a pattern run or dry run prints: what
 * model and layout, the operations per step, the totals per strategy. */
#ifndef PB_PATTERN_PRINT_H
#define PB_PATTERN_PRINT_H

#include <stdio.h>

#include "pb_pattern_plan.h"

/* "64.0 MiB" style, for the eye; tables carry exact bytes too. */
void pb_fmt_bytes(char *buf, size_t len, double bytes);

void pb_pattern_print_head(FILE *f, const pb_pattern_plan_t *p, const char *what);
/* The dry run's table: every operation, then totals per strategy. */
void pb_pattern_print_ops(FILE *f, const pb_pattern_plan_t *p);

#endif
