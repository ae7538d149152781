/* pb_op_list.h - a growing list of pattern operations, what the traffic
 * generators fill (pb_traffic.h).  Apart from pb_traffic.h because the
 * generators push onto it without needing the traffic entry point. */
#ifndef PB_OP_LIST_H
#define PB_OP_LIST_H

#include <stddef.h>

#include "pb_pat_op.h"
#include "../util/pb_err.h"

typedef struct pb_op_list {
    pb_pat_op_t *ops;
    size_t n, cap;
} pb_op_list_t;

void pb_op_list_free(pb_op_list_t *l);

/* Appends a copy of *op, growing the list; PB_ERUNTIME when out of
 * memory. */
int pb_op_list_push(pb_op_list_t *l, const pb_pat_op_t *op, pb_err_t *err);

#endif
