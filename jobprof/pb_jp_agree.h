/* pb_jp_agree.h - collectives whose members recorded them differently:
 * another size or another type.
 *
 * NCCL requires every member of a collective to pass the same count and
 * type (a mismatch hangs the job or corrupts its data), so members that
 * recorded one collective differently say its records are not of one
 * operation: a damaged recording, or records joined wrongly.  What
 * profile counts of such a collective (its size, duration and lag) mixes
 * operations, so it is flagged; replay, which reruns it, counts the same
 * thing (bench/glue/pb_replay_plan.c's mismatched).
 *
 * Compared: each member's nccl-tests size (pb_jp_bytes) and type; where
 * the function or type is not parbench's, its element count and the
 * type's name.  Not compared: all-to-all-v, whose per-rank sizes differ by
 * design (uneven splits), and sends and receives, which are matched with
 * no one (pb_jp_inst.h). */
#ifndef PB_JP_AGREE_H
#define PB_JP_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include "pb_jobprof.h"
#include "pb_jp_inst.h"

typedef struct pb_jp_agree {
    uint64_t differ;     /* collectives whose members disagree */
    size_t inst;         /* the first of them: its instance; valid when differ > 0 */
    size_t op_a, op_b;   /* two of its records (jp->ops indices) that disagree */
} pb_jp_agree_t;

void pb_jp_agree_find(const pb_jobprof_t *jp, const pb_jp_insts_t *in, pb_jp_agree_t *out);

#endif
