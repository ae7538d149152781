/* pb_table.h - the terminal table, laid out like nccl-tests' so a user's
 * eye finds size, time, algbw and busbw where it expects them, with the
 * columns nccl-tests lacks (p99, iterations) beside them. */
#ifndef PB_TABLE_H
#define PB_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "pb_result.h"

typedef struct pb_table_line {
    uint64_t bytes;
    uint64_t count;
    const char *dtype;
    const char *redop; /* "none" for data movement */
    int root;          /* -1 where there is none */
    const pb_result_t *out_of_place; /* NULL: not measured */
    const pb_result_t *in_place;
} pb_table_line_t;

void pb_table_header(FILE *f);
void pb_table_line(FILE *f, const pb_table_line_t *l);

/* Running average of busbw over the printed results, nccl-tests' footer. */
typedef struct pb_table_summary {
    double busbw_sum;
    int n;
    int64_t wrong;
    int checked;
} pb_table_summary_t;

void pb_table_account(pb_table_summary_t *s, const pb_result_t *r);
void pb_table_footer(FILE *f, const pb_table_summary_t *s);

#endif
