/* pb_jp_infer_priv.h - what the two halves of the dimension inference
 * share: pb_jp_infer.c infers without a layout, pb_jp_infer_lay.c
 * matches the communicators with a layout's groups and checks that the
 * layout fits the recording. */
#ifndef PB_JP_INFER_PRIV_H
#define PB_JP_INFER_PRIV_H

#include "pb_jobprof.h"
#include "../patterns/pb_layout.h"

/* What a communicator carried (pb_jp_traffic's bits). */
enum {
    PB_JP_T_P2P = 1,  /* a send or a receive */
    PB_JP_T_A2A = 2,  /* an all-to-all (the expert dispatch) */
    PB_JP_T_AR = 4,   /* an all-reduce */
    PB_JP_T_COLL = 8  /* a collective other than those */
};

/* tr[c]: the bits of what comm c carried (jp->ncomms entries, zeroed by
 * the caller). */
void pb_jp_traffic(const pb_jobprof_t *jp, unsigned *tr);
/* The comm's members sorted into out (nranks entries); 0, or -1 when a
 * member is not known. */
int pb_jp_sorted_members(const pb_jcomm_t *c, int *out);
/* 1 when the sorted members m[0..n-1] are 0..world-1. */
int pb_jp_is_world(const int *m, int n, int world);

/* Labels every comm by l (pb_jp_infer_layout) and checks l against the
 * recording: a comm that carried operations and is none of l's groups,
 * or pp above 1 with no send or receive recorded (a recording that lost
 * nothing), is PB_EINPUT, one line naming it. */
int pb_jp_infer_given(pb_jobprof_t *jp, const pb_layout_t *l, int world, pb_err_t *err);

#endif
