/* pb_jp_infer.h - what each recorded communicator is in the job's
 * parallel layout: tensor, context, data, pipeline or expert parallel, the
 * whole world, another group Megatron-Core makes, or unknown.
 *
 * Megatron-Core places ranks by its RankGenerator (Megatron-LM,
 * megatron/core/parallel_state.py: RankGenerator and
 * generate_masked_orthogonal_rank_groups): a rank's coordinates are a
 * mixed-radix number over the dimensions in the order "tp-cp-ep-dp-pp",
 * the first varying fastest, and a group of dimensions D holds the ranks
 * that agree on every coordinate outside D (patterns/pb_layout.h holds
 * the same arithmetic).  So in the dense view (ep dropped) a TP group is
 * tp consecutive ranks, a CP group cp ranks tp apart, a DP group dp ranks
 * tp*cp apart and a PP group pp ranks tp*cp*dp apart: every
 * single-dimension group is an arithmetic progression whose stride is the
 * product of the sizes before it in the order.
 *
 * With a layout: each communicator's member set is compared, exactly,
 * with the groups that layout makes (pb_jp_infer_layout's comment lists
 * them).  Without one: pb_jp_infer_auto's rule, which answers unknown
 * where membership and traffic do not decide. */
#ifndef PB_JP_INFER_H
#define PB_JP_INFER_H

#include <stddef.h>

#include "pb_jobprof.h"
#include "../patterns/pb_layout.h"

/* The layout the communicators show (dense view, Megatron order). */
typedef struct pb_jp_shape {
    int tp, cp, dp, pp;
    int world;      /* ranks in the recorded job */
    int consistent; /* 1: every dimension present was named and tp*cp*dp*pp = world */
} pb_jp_shape_t;

/* The recorded world: jp->world, or the largest member's rank + 1 when
 * the records do not say; 0 when no member is known. */
int pb_jp_world(const pb_jobprof_t *jp);

/* "0 2 4 6" - a comm's members as global ranks ("?" not known), the
 * first `most` of them then "... (N)" - into buf. */
void pb_jp_members_text(const pb_jcomm_t *c, int most, char *buf, size_t len);

/* Sets every comm's dim.  l NULL: inferred (pb_jp_infer_auto); else
 * matched against l, whose world must be the recorded one (PB_EINPUT
 * otherwise, one line naming both) and which the recording must not
 * contradict: a comm that carried records and is none of l's groups, or
 * pp above 1 in a recording with no send or receive (and nothing dropped
 * or sampled away), is PB_EINPUT, one line naming it - the user's layout
 * is not second-guessed by an inferred one (issue 49).  *shape: l's
 * sizes, or the inferred ones. */
int pb_jp_infer(pb_jobprof_t *jp, const pb_layout_t *l, pb_jp_shape_t *shape, pb_err_t *err);

/* The two halves, for tests.
 *
 * pb_jp_infer_layout labels by l (comms already labelled other than
 * PB_JD_UNKNOWN are left alone when only_unknown is set): a comm whose
 * sorted members equal a group l makes is named by it - the whole world;
 * TP, CP, DP ('dp', and 'dp-cp': Megatron's data-parallel group with
 * context parallelism), PP, then the expert view's EP, EDP and expert TP
 * (an EP comm that carries the all-to-alls wins over a DP one of the same
 * members); the mixed groups 'tp-pp', 'tp-dp', 'tp-dp-cp', 'tp-cp',
 * 'tp-ep', 'tp-ep-pp' and the embedding group (first and last stage) are
 * PB_JD_OTHER.  A comm of one rank has no dimension.  By traffic: a
 * comm with a PP group's members that carried collectives and no send
 * or receive is not PP (a pipeline passes activations; with pp 2 one of
 * all-reduces alone is the embedding group, PB_JD_OTHER); a comm of
 * sends and receives between some members of one CP or PP group (a
 * two-rank point-to-point communicator) is CP or PP.
 *
 * pb_jp_infer_auto infers, in Megatron's default order (--order is not
 * read): the whole world is PB_JD_WORLD, a comm carrying all-to-alls
 * PB_JD_EP (the expert dispatch; EP is otherwise not inferred); the other
 * comms whose members are an arithmetic progression form classes
 * (stride, size), and the chain of classes that tiles the world from
 * stride 1 (each link's stride the product of the sizes before it, the
 * smallest size at each stride) is the layout's dimensions, innermost
 * first.  They are named by their traffic (name_links in pb_jp_infer.c:
 * the outermost link carrying send/recv is PP, an inner one CP, the
 * collective links around it TP and DP; one collective link alone is
 * left unknown: tp 8 and dp 8 have the same groups).  Classes spanning
 * several links are 'dp-cp' (DP) or another mixed group; a chain with a
 * gap (a dimension no comm was recorded on) names nothing.  When every
 * link is named the layout found labels the rest (pb_jp_infer_layout). */
void pb_jp_infer_layout(pb_jobprof_t *jp, const pb_layout_t *l, int world, int only_unknown);
void pb_jp_infer_auto(pb_jobprof_t *jp, int world, pb_jp_shape_t *shape);

#endif
