/* pb_pattern_print.h - the text a pattern run or dry run prints: what
 * model and layout, the operations per step, the totals per strategy. */
#ifndef PB_PATTERN_PRINT_H
#define PB_PATTERN_PRINT_H

#include <stdio.h>

#include "pb_pattern_plan.h"

/* "64.0 MiB" style, for the eye; tables carry exact bytes too. */
void pb_fmt_bytes(char *buf, size_t len, double bytes);

/* Why the layers are not the 4 the tiny preset or the --size rule asked
 * for, where pb_pattern_plan raised them to fit the pipeline
 * (p->layers_from != 0): one clause, for a header or a note. */
void pb_pattern_raised_str(const pb_pattern_plan_t *p, char *buf, size_t len);
/* That clause as a line, "<prefix>layers: N, ..." ("# " in a header,
 * "note: " on stderr); nothing where the depth was kept. */
void pb_pattern_print_raised(FILE *f, const pb_pattern_plan_t *p, const char *prefix);

void pb_pattern_print_head(FILE *f, const pb_pattern_plan_t *p, const char *what);
/* The dry run's table: every operation, then totals per strategy. */
void pb_pattern_print_ops(FILE *f, const pb_pattern_plan_t *p);

#endif
