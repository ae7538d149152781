#include "pb_op_list.h"

#include <stdlib.h>
#include <string.h>

void pb_op_list_free(pb_op_list_t *l)
{
    free(l->ops);
    memset(l, 0, sizeof *l);
}

int pb_op_list_push(pb_op_list_t *l, const pb_pat_op_t *op, pb_err_t *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pb_pat_op_t *p = realloc(l->ops, cap * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the operation list");
        l->ops = p;
        l->cap = cap;
    }
    l->ops[l->n++] = *op;
    return PB_OK;
}
