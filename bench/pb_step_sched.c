#include "pb_step_sched.h"

#include <stdlib.h>
#include <string.h>

static const char *const act_names[] = {
    "fwd", "bwd", "recv_fwd", "send_fwd", "recv_bwd", "send_bwd",
    "send_fwd_recv_bwd", "send_bwd_recv_fwd"};

const char *pb_act_name(pb_act_t a) { return act_names[a]; }

const char *pb_sched_name(pb_sched_kind_t k) { return k == PB_SCHED_GPIPE ? "gpipe" : "1f1b"; }

int pb_sched_parse(const char *s, pb_sched_kind_t *out)
{
    if (strcmp(s, "gpipe") == 0)
        *out = PB_SCHED_GPIPE;
    else if (strcmp(s, "1f1b") == 0)
        *out = PB_SCHED_1F1B;
    else
        return -1;
    return 0;
}

typedef struct builder {
    pb_sched_t *s;
    size_t cap;
    int first, last; /* this stage is the first / the last */
    int ok;
} builder_t;

/* Appends an action, leaving out exchanges with a neighbour that does not
 * exist, and halving combined exchanges at the ends of the pipeline. */
static void add(builder_t *b, pb_act_t a, int mb)
{
    switch (a) {
    case PB_ACT_RECV_FWD:
    case PB_ACT_SEND_BWD:
        if (b->first)
            return;
        break;
    case PB_ACT_SEND_FWD:
    case PB_ACT_RECV_BWD:
        if (b->last)
            return;
        break;
    case PB_ACT_SEND_FWD_RECV_BWD:
        if (b->last)
            return;
        break;
    case PB_ACT_SEND_BWD_RECV_FWD:
        if (b->first)
            return;
        break;
    default:
        break;
    }
    if (!b->ok)
        return;
    if (b->s->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        pb_step_action_t *na = realloc(b->s->a, nc * sizeof *na);
        if (na == NULL) {
            b->ok = 0;
            return;
        }
        b->s->a = na;
        b->cap = nc;
    }
    b->s->a[b->s->n++] = (pb_step_action_t){a, mb};
}

static void gpipe(builder_t *b, int m)
{
    for (int i = 0; i < m; i++) {
        add(b, PB_ACT_RECV_FWD, i);
        add(b, PB_ACT_FWD, i);
        add(b, PB_ACT_SEND_FWD, i);
    }
    for (int i = m - 1; i >= 0; i--) {
        add(b, PB_ACT_RECV_BWD, i);
        add(b, PB_ACT_BWD, i);
        add(b, PB_ACT_SEND_BWD, i);
    }
}

/* Megatron's forward_backward_pipelining_without_interleaving. */
static void one_f_one_b(builder_t *b, int p, int s, int m)
{
    int warmup = p - s - 1 < m ? p - s - 1 : m;
    int remaining = m - warmup;
    int f = 0, bw = 0; /* next forward / backward micro-batch */
    for (int i = 0; i < warmup; i++, f++) {
        add(b, PB_ACT_RECV_FWD, f);
        add(b, PB_ACT_FWD, f);
        add(b, PB_ACT_SEND_FWD, f);
    }
    if (remaining > 0)
        add(b, PB_ACT_RECV_FWD, f);
    for (int i = 0; i < remaining; i++, f++, bw++) {
        int last = i == remaining - 1;
        add(b, PB_ACT_FWD, f);
        /* activation out, the gradient of the oldest micro-batch in */
        if (b->last)
            ; /* the last stage computes its loss: nothing to exchange */
        else
            add(b, PB_ACT_SEND_FWD_RECV_BWD, bw);
        add(b, PB_ACT_BWD, bw);
        if (last)
            add(b, PB_ACT_SEND_BWD, bw);
        else
            add(b, PB_ACT_SEND_BWD_RECV_FWD, f + 1);
    }
    for (int i = 0; i < warmup; i++, bw++) {
        add(b, PB_ACT_RECV_BWD, bw);
        add(b, PB_ACT_BWD, bw);
        add(b, PB_ACT_SEND_BWD, bw);
    }
}

int pb_sched_build(pb_sched_kind_t k, int p, int s, int m, pb_sched_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (p < 1 || m < 1 || s < 0 || s >= p)
        return pb_err_set(err, PB_EINPUT, "no pipeline of %d stages, stage %d, %d micro-batches",
                          p, s, m);
    builder_t b = {out, 0, s == 0, s == p - 1, 1};
    if (k == PB_SCHED_GPIPE)
        gpipe(&b, m);
    else
        one_f_one_b(&b, p, s, m);
    if (!b.ok) {
        pb_sched_free(out);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for a pipeline schedule");
    }
    return PB_OK;
}

void pb_sched_free(pb_sched_t *s)
{
    free(s->a);
    s->a = NULL;
    s->n = 0;
}
