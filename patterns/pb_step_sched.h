/* pb_step_sched.h - the pipeline schedule of one training step, per stage.
 *
 * Pure: the ordered list of what one pipeline stage does - forward and
 * backward passes of micro-batches (of model chunks, when interleaved)
 * and the point-to-point exchanges between them - exactly as Megatron-LM
 * issues them (megatron/core/pipeline_parallel/schedules.py):
 *  - GPipe: all forwards, then all backwards;
 *  - 1F1B (forward_backward_pipelining_without_interleaving): warm-up
 *    forwards, steady one-forward-one-backward with combined send/receive
 *    pairs, cool-down backwards;
 *  - interleaved 1F1B (forward_backward_pipelining_with_interleaving): v
 *    model chunks per stage, the pipeline a ring (the last stage feeds
 *    chunk c+1 of the first), four-part exchanges in the steady state.
 *
 * An exchange is Megatron's p2p_communication._communicate: up to four
 * parts posted together (batch_isend_irecv / one NCCL group) that
 * complete together.  Posting the parts together is what keeps the
 * schedule deadlock-free: a stage sending its activation forward
 * receives the next stage's gradient in the same exchange. */
#ifndef PB_STEP_SCHED_H
#define PB_STEP_SCHED_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef enum pb_sched_kind { PB_SCHED_GPIPE, PB_SCHED_1F1B, PB_SCHED_INTERLEAVED } pb_sched_kind_t;

typedef enum pb_act {
    PB_ACT_FWD,  /* forward pass of micro-batch mb through model chunk `chunk` */
    PB_ACT_BWD,  /* backward pass likewise */
    PB_ACT_XCHG  /* one exchange of up to four parts with the neighbours */
} pb_act_t;

/* The parts of an exchange.  Next and previous are the neighbouring
 * stages; with interleaving they wrap around (stage p-1's next is 0). */
typedef enum pb_xpart {
    PB_X_SEND_NEXT, /* an activation to the next stage */
    PB_X_RECV_PREV, /* an activation from the previous stage */
    PB_X_SEND_PREV, /* a gradient to the previous stage */
    PB_X_RECV_NEXT, /* a gradient from the next stage */
    PB_X_COUNT
} pb_xpart_t;

#define PB_X_BIT(part) (1u << (part))

typedef struct pb_step_action {
    pb_act_t act;
    /* FWD / BWD: the micro-batch (0..m-1) and model chunk (0..v-1; 0
     * without interleaving) the pass runs */
    int mb, chunk;
    /* XCHG: which parts are present (PB_X_BIT per part), and for each the
     * micro-batch and chunk whose tensor it carries: for a send, the pass
     * that produced it; for a receive, the pass that will consume it */
    unsigned parts;
    int xmb[PB_X_COUNT], xchunk[PB_X_COUNT];
} pb_step_action_t;

typedef struct pb_sched {
    pb_step_action_t *a;
    size_t n;
} pb_sched_t;

/* The actions of stage `s` of `p` for `m` micro-batches and `v` model
 * chunks per stage (v = 1 except for PB_SCHED_INTERLEAVED, which needs
 * p >= 2, v >= 2 and m a multiple of p, as Megatron does).  Parts towards
 * a neighbour that does not exist (before the first stage and after the
 * last, without interleaving) are left out, and an exchange left with no
 * part is not listed.  PB_EINPUT, with the reason, for sizes that make no
 * pipeline. */
int pb_sched_build(pb_sched_kind_t k, int p, int s, int m, int v, pb_sched_t *out, pb_err_t *err);
void pb_sched_free(pb_sched_t *s);

/* "fwd", "bwd", "xchg" */
const char *pb_act_name(pb_act_t a);
/* "send_next", "recv_prev", "send_prev", "recv_next" */
const char *pb_xpart_name(pb_xpart_t p);
/* The parts of an exchange joined with '+', e.g. "send_next+recv_next". */
void pb_xchg_name(unsigned parts, char *buf, size_t len);

int pb_sched_parse(const char *s, pb_sched_kind_t *out);
const char *pb_sched_name(pb_sched_kind_t k);

#endif
