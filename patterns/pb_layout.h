/* pb_layout.h - where every rank sits: Megatron-LM's rank layout.
 *
 * A rank's coordinates are a mixed-radix number over the dimensions in
 * `order`, the first name varying fastest (Megatron's RankGenerator;
 * default order "tp-cp-ep-dp-pp").  Two views of the same ranks, as in
 * Megatron-Core:
 *  - dense (attention, dense MLP): ep is dropped from the order, sizes
 *    tp, cp, dp, pp (world = tp*cp*dp*pp);
 *  - expert (MoE layers): cp is folded into the data-parallel dimension
 *    and split by ep: sizes tp, ep, edp = cp*dp/ep, pp, in the same order
 *    (Megatron-Core's expert RankGenerator with cp = 1, expert tp = tp).
 * A group of kind k is the set of ranks that agree on every coordinate
 * outside k's dimensions: TP {tp}, CP {cp}, DP {cp, dp} (Megatron's
 * data-parallel group with context parallelism: gradients are reduced
 * over both), PP {pp}, EP {ep} and EDP {edp} of the expert view. */
#ifndef PB_LAYOUT_H
#define PB_LAYOUT_H

#include <stdint.h>

#include "pb_model.h"
#include "pb_pat_op.h"
#include "../util/pb_err.h"

typedef enum pb_dim { PB_DIM_TP, PB_DIM_CP, PB_DIM_EP, PB_DIM_DP, PB_DIM_PP, PB_DIM_COUNT } pb_dim_t;

typedef struct pb_layout {
    int size[PB_DIM_COUNT]; /* indexed by pb_dim_t */
    pb_dim_t order[PB_DIM_COUNT]; /* order[0] varies fastest */
    int vp; /* virtual pipeline stages (interleaving), 1 = none */
    /* expert tensor parallelism; 0: the dense tp (the expert view folds
     * cp into dp).  Set (1..), the expert view is Megatron-Core's "MoE
     * parallel folding": tp = etp, ep, edp = tp*cp*dp/(etp*ep), cp 1, so
     * with etp 1 an EP group takes ep consecutive ranks across the dense
     * TP, CP and DP dimensions (--ep 64 with --tp 2 --dp 32 is valid). */
    int etp;
    int sp; /* sequence parallelism */
    /* HSDP (PyTorch FSDP's HYBRID_SHARD, FSDP2 on a 2-D mesh, torchtitan's
     * dp_shard x dp_replicate): ZeRO-3 shards within groups of `shard`
     * consecutive members of the data-parallel group (cp x dp) and
     * replicates across them; 0: over the whole group */
    int shard;
} pb_layout_t;

/* tp = cp = ep = dp = pp = vp = 1, no sp, order tp-cp-ep-dp-pp. */
void pb_layout_default(pb_layout_t *l);
/* "tp-cp-ep-dp-pp": every name once.  PB_EINPUT otherwise. */
int pb_layout_parse_order(pb_layout_t *l, const char *s, pb_err_t *err);
void pb_layout_order_str(const pb_layout_t *l, char *buf, int len);

/* tp*cp*dp*pp (ep lives inside cp*dp). */
uint64_t pb_layout_world(const pb_layout_t *l);

/* Every constraint, each with its own message: world = tp*cp*dp*pp (when
 * world > 0), ep divides dp*cp, ep > 1 needs experts, experts divisible
 * by ep, sp needs tp > 1, an MoE model with tp > 1 needs sp (as
 * Megatron-Core), heads and kv_heads divisible by tp, layers
 * (+ pp_trim) divisible by pp*vp, vp > 1 needs pp > 1, sequence divisible
 * by 2*cp (load-balanced context chunks) and by tp with sp, global batch
 * divisible by mbs*dp, a shard group dividing cp*dp and not with experts. */
int pb_layout_check(const pb_layout_t *l, const pb_model_t *m, uint64_t world, pb_err_t *err);

/* The ranks ZeRO-3 shards over: shard, else the data-parallel group's
 * cp x dp. */
int pb_layout_dp_shard(const pb_layout_t *l);

/* Sizes, indexed by pb_dim_t, of the view a group of kind k lives in
 * (dense, or the expert view for EP and EDP). */
void pb_layout_view_sizes(const pb_layout_t *l, pb_gkind_t k, int *sz);
/* the expert view's tp: etp, or tp when not set */
int pb_layout_etp(const pb_layout_t *l);

/* The dimensions (bits 1u << pb_dim_t) a group of kind k spans: tp, cp,
 * cp and dp for DP, pp, ep, and the expert view's dp for EDP; SHARD and
 * REPL, parts of the DP group, DP's. */
unsigned pb_layout_group_dims(pb_gkind_t k);

/* Size of every group of kind k (SHARD: shard, REPL: cp x dp / shard;
 * both 1 without a shard). */
int pb_layout_group_size(const pb_layout_t *l, pb_gkind_t k);

/* The group of kind k that `rank` belongs to: its index among the groups
 * of that kind (0 .. world/size-1), rank's index inside it, and, when
 * members is not NULL, its world ranks in group order (size entries). */
void pb_layout_group(const pb_layout_t *l, pb_gkind_t k, int rank, int *group_id, int *index,
                     int *members);

/* A rank's coordinate along a dimension, in the dense view (ep: in the
 * expert view). */
int pb_layout_coord(const pb_layout_t *l, int rank, pb_dim_t d);

#endif
