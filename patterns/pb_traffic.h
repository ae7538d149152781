/* pb_traffic.h - (model, layout) -> the list of operations each parallel
 * strategy issues in one training step, per rank.
 *
 * Notation: b micro-batch, s sequence, h hidden, e bytes per element,
 * m = gbs / (b*dp) micro-batches per step, L layers on the busiest
 * pipeline stage ((layers + pp_trim) / pp), a = b*(s/cp)*h*e the bytes of
 * one activation tensor on a rank.
 *  TP: 2 all-reduces of a per layer forward (attention and MLP outputs,
 *      Megatron's g operator: partial sums must be added) and 2 backward
 *      (the f operator's conjugate); with SP each becomes an all-gather
 *      plus a reduce-scatter of the same a; recomputation repeats the
 *      forward ones.  All on the critical path.
 *  PP: per micro-batch per stage boundary a send/recv of a (/ tp with SP)
 *      forward (activations) and backward (gradients); interleaving sends
 *      vp times as often, around a ring.
 *  DP: gradients of P/(tp*pp) parameters (expert weights: /(tp*pp*ep) on
 *      the expert-data-parallel group) in buckets (Megatron: max(40M,
 *      1M*dp) parameters; PyTorch DDP: 25 MiB), all-reduced (ZeRO 0),
 *      reduce-scattered with the parameters all-gathered after the step
 *      (distributed optimizer, ZeRO 1/2), or per layer: parameters
 *      all-gathered forward and backward and gradients reduce-scattered
 *      (ZeRO 3 / FSDP).
 *  EP: per MoE layer per micro-batch an all-to-all dispatch and combine
 *      of b*(s/cp)*topk*h*e (/ tp with SP) forward and again backward;
 *      imbalance > 1 makes it an all-to-all-v.
 *  CP: per layer per micro-batch a ring pass of K and V, 2*b*(s/cp)*
 *      (kv_heads/tp)*(h/heads)*e, cp-1 steps forward; backward K,V again
 *      and their gradients (Transformer Engine's P2P context parallelism).
 */
#ifndef PB_TRAFFIC_H
#define PB_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "pb_layout.h"
#include "pb_model.h"
#include "pb_op_list.h"
#include "pb_pat_op.h"
#include "pb_traffic_cfg.h"

/* Micro-batches per step and the busiest stage's layers. */
uint64_t pb_traffic_micro(const pb_model_t *m, const pb_layout_t *l);
uint64_t pb_traffic_stage_layers(const pb_model_t *m, const pb_layout_t *l);

/* Appends the operations of every strategy whose bit (1u << pb_strategy_t)
 * is in `mask`; PB_STRAT_TP and PB_STRAT_SP both mean tensor parallelism,
 * as the layout's sp flag says.  A strategy whose groups have one rank
 * adds nothing.  The layout must have passed pb_layout_check. */
int pb_traffic_gen(const pb_model_t *m, const pb_layout_t *l, const pb_traffic_cfg_t *cfg,
                   unsigned mask, pb_op_list_t *out, pb_err_t *err);

typedef struct pb_traffic_total {
    uint64_t ops;        /* operations per step */
    uint64_t msg_bytes;  /* sum of bytes x count */
    uint64_t wire_bytes; /* sum of wire bytes x count (pb_coll_wire_bytes) */
} pb_traffic_total_t;

/* strategy s's traffic on the busiest rank: every stage's operations and
 * the heavier end's (the first stage's or the last's, pb_pat_stage_t) */
pb_traffic_total_t pb_traffic_total(const pb_op_list_t *l, pb_strategy_t s);

#endif
