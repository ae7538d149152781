/* pb_traffic_priv.h - what the per-strategy generators share. */
#ifndef PB_TRAFFIC_PRIV_H
#define PB_TRAFFIC_PRIV_H

#include "pb_layout.h"
#include "pb_model.h"
#include "pb_op_list.h"
#include "pb_pat_op.h"
#include "pb_traffic_cfg.h"

typedef struct pb_tr_in {
    const pb_model_t *m;
    const pb_layout_t *l;
    const pb_traffic_cfg_t *cfg;
    pb_strategy_t tp_strategy; /* TP or SP, as the layout says */
    uint64_t e;      /* bytes per element of activations */
    uint64_t act;    /* b*(s/cp)*h*e */
    uint64_t micro;  /* micro-batches per step */
    uint64_t layers; /* on the busiest stage */
    uint64_t moe;    /* MoE layers on the busiest stage */
} pb_tr_in_t;

/* An operation record; imbalance 0 (not all-to-all-v). */
pb_pat_op_t pb_tr_op(pb_strategy_t s, pb_coll_t c, pb_gkind_t g, int gsize, uint64_t bytes,
                     pb_dtype_t t, uint64_t count, pb_phase_t ph, int overlap, pb_p2p_t p2p,
                     const char *what);

int pb_traffic_tp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err);
int pb_traffic_pp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err);
int pb_traffic_dp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err);
int pb_traffic_ep(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err);
int pb_traffic_cp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err);

#endif
