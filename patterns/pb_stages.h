/* pb_stages.h - how a model's layers are split over pipeline stages.
 *
 * Megatron-LM splits the decoder evenly unless told otherwise:
 * --decoder-first-pipeline-num-layers F and --decoder-last-pipeline-num-
 * layers L put F and L layers on the end stages (the end stages also hold
 * the embedding and the logits and loss, so they are often given fewer),
 * and the layers left are split evenly over the stages between, which
 * must divide them (megatron/core/transformer/transformer_config.py's
 * checks).  parbench's model fields pp_first and pp_last are those two;
 * pp_trim N is the older spelling of one case: N layers fewer at the ends
 * together, ceil(N/2) on the first and floor(N/2) on the last, the stages
 * holding (layers + N) / pp each otherwise (Llama 3 405B: 126 layers on 16
 * stages, 7 + 14 x 8 + 7, Dubey et al. 2024 Sec. 3.3.2).
 * With interleaving (vp > 1) every stage's count must divide by vp: each
 * stage is vp model chunks of equal size. */
#ifndef PB_STAGES_H
#define PB_STAGES_H

#include <stdint.h>

#include "pb_model.h"
#include "../util/pb_err.h"

typedef struct pb_stages {
    int pp;
    uint64_t first, mid, last; /* layers on stage 0, each middle stage, stage pp-1 */
} pb_stages_t;

/* The split of m over pp stages of vp chunks, or PB_EINPUT with one line
 * naming what does not divide.  pp 1: all layers on one stage (pp_trim
 * ignored, pp_first/pp_last refused); pp 2 has no middle stage (mid 0). */
int pb_stages_split(const pb_model_t *m, int pp, int vp, pb_stages_t *out, pb_err_t *err);

/* The split of a layout that pb_layout_check accepted (vp aside); for
 * one it refused, every stage holds the even share layers / pp, so a
 * caller that did not check still gets counts, never an error. */
void pb_stages_of(const pb_model_t *m, int pp, pb_stages_t *out);

/* Stage s's layers (0 <= s < pp). */
uint64_t pb_stages_layers(const pb_stages_t *st, int s);

/* The most layers any stage holds. */
uint64_t pb_stages_max(const pb_stages_t *st);

#endif
