/* pb_jp_agree.c - collectives whose members disagree (pb_jp_agree.h). */
#include "pb_jp_agree.h"

#include <string.h>

/* 1 when two members' records of one collective are of one operation as
 * NCCL requires: the same size and type.  One instance's records are all
 * known or all not (pb_jp_inst.c joins by it); not known: the counts. */
static int same(const pb_jop_t *a, const pb_jop_t *b)
{
    if (a->known && b->known)
        return a->bytes == b->bytes && a->dtype == b->dtype;
    return a->count == b->count && strcmp(a->dtype_name, b->dtype_name) == 0;
}

void pb_jp_agree_find(const pb_jobprof_t *jp, const pb_jp_insts_t *in, pb_jp_agree_t *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < in->n; i++) {
        const pb_jp_inst_t *x = &in->v[i];
        if (x->kind != PB_JK_COLL || (x->known && x->coll == PB_ALLTOALLV) || x->nrec < 2)
            continue;
        size_t a = in->order[x->first];
        for (int k = 1; k < x->nrec; k++) {
            size_t b = in->order[x->first + (size_t)k];
            if (same(&jp->ops[a], &jp->ops[b]))
                continue;
            if (out->differ++ == 0) {
                out->inst = i;
                out->op_a = a;
                out->op_b = b;
            }
            break;
        }
    }
}
