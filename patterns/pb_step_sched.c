/* pb_step_sched.c - the per-stage pipeline schedules of Megatron-LM's
 * megatron/core/pipeline_parallel/schedules.py, as lists of passes and
 * exchanges (see pb_step_sched.h). */
#include "pb_step_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const act_names[] = {"fwd", "bwd", "xchg"};
static const char *const xpart_names[] = {"send_next", "recv_prev", "send_prev", "recv_next"};

const char *pb_act_name(pb_act_t a)
{
    return (unsigned)a < sizeof act_names / sizeof *act_names ? act_names[a] : "?";
}

const char *pb_xpart_name(pb_xpart_t p)
{
    return (unsigned)p < PB_X_COUNT ? xpart_names[p] : "?";
}

void pb_xchg_name(unsigned parts, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < PB_X_COUNT; i++) {
        if (!(parts & PB_X_BIT(i)))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", xpart_names[i]);
        if (w < 0 || (size_t)w >= len - used) {
            buf[used] = '\0'; /* only whole part names */
            return;
        }
        used += (size_t)w;
    }
}

const char *pb_sched_name(pb_sched_kind_t k)
{
    switch (k) {
    case PB_SCHED_GPIPE: return "gpipe";
    case PB_SCHED_1F1B: return "1f1b";
    case PB_SCHED_INTERLEAVED: return "interleaved";
    }
    return "?";
}

int pb_sched_parse(const char *s, pb_sched_kind_t *out)
{
    static const pb_sched_kind_t kinds[] = {PB_SCHED_GPIPE, PB_SCHED_1F1B, PB_SCHED_INTERLEAVED};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(s, pb_sched_name(kinds[i])) == 0) {
            *out = kinds[i];
            return 0;
        }
    return -1;
}

typedef struct builder {
    pb_sched_t *s;
    size_t cap;
    int first, last; /* a stage with no previous / no next neighbour */
    int ok;
} builder_t;

static pb_step_action_t *push(builder_t *b)
{
    if (!b->ok)
        return NULL;
    if (b->s->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        pb_step_action_t *na = realloc(b->s->a, nc * sizeof *na);
        if (na == NULL) {
            b->ok = 0;
            return NULL;
        }
        b->s->a = na;
        b->cap = nc;
    }
    pb_step_action_t *a = &b->s->a[b->s->n++];
    memset(a, 0, sizeof *a);
    return a;
}

static void pass(builder_t *b, pb_act_t act, int mb, int chunk)
{
    pb_step_action_t *a = push(b);
    if (a)
        a->act = act, a->mb = mb, a->chunk = chunk;
}

/* An exchange being assembled: the parts Megatron would post together. */
typedef struct xchg {
    unsigned parts;
    int mb[PB_X_COUNT], chunk[PB_X_COUNT];
} xchg_t;

static void part(xchg_t *x, pb_xpart_t p, int mb, int chunk)
{
    x->parts |= PB_X_BIT(p);
    x->mb[p] = mb;
    x->chunk[p] = chunk;
}

/* Lists the exchange, less the parts toward a neighbour that does not
 * exist (Megatron's p2p calls are no-ops there), and not at all when no
 * part is left. */
static void flush(builder_t *b, const xchg_t *x)
{
    unsigned parts = x->parts;
    if (b->first)
        parts &= ~(PB_X_BIT(PB_X_RECV_PREV) | PB_X_BIT(PB_X_SEND_PREV));
    if (b->last)
        parts &= ~(PB_X_BIT(PB_X_SEND_NEXT) | PB_X_BIT(PB_X_RECV_NEXT));
    if (parts == 0)
        return;
    pb_step_action_t *a = push(b);
    if (a == NULL)
        return;
    a->act = PB_ACT_XCHG;
    a->parts = parts;
    for (int i = 0; i < PB_X_COUNT; i++)
        if (parts & PB_X_BIT(i))
            a->xmb[i] = x->mb[i], a->xchunk[i] = x->chunk[i];
        else
            a->xmb[i] = a->xchunk[i] = -1;
}

static void one(builder_t *b, pb_xpart_t p, int mb)
{
    xchg_t x = {0, {0}, {0}};
    part(&x, p, mb, 0);
    flush(b, &x);
}

static void two(builder_t *b, pb_xpart_t p1, int mb1, pb_xpart_t p2, int mb2)
{
    xchg_t x = {0, {0}, {0}};
    part(&x, p1, mb1, 0);
    part(&x, p2, mb2, 0);
    flush(b, &x);
}

static void gpipe(builder_t *b, int m)
{
    for (int i = 0; i < m; i++) {
        one(b, PB_X_RECV_PREV, i);
        pass(b, PB_ACT_FWD, i, 0);
        one(b, PB_X_SEND_NEXT, i);
    }
    for (int i = m - 1; i >= 0; i--) {
        one(b, PB_X_RECV_NEXT, i);
        pass(b, PB_ACT_BWD, i, 0);
        one(b, PB_X_SEND_PREV, i);
    }
}

/* forward_backward_pipelining_without_interleaving: recv_forward /
 * send_forward in warm-up, send_forward_recv_backward and
 * send_backward_recv_forward in the steady state, recv_backward /
 * send_backward in cool-down. */
static void one_f_one_b(builder_t *b, int p, int s, int m)
{
    int warmup = p - s - 1 < m ? p - s - 1 : m;
    int remaining = m - warmup;
    int f = 0, bw = 0; /* next forward / backward micro-batch */
    for (int i = 0; i < warmup; i++, f++) {
        one(b, PB_X_RECV_PREV, f);
        pass(b, PB_ACT_FWD, f, 0);
        one(b, PB_X_SEND_NEXT, f);
    }
    if (remaining > 0)
        one(b, PB_X_RECV_PREV, f);
    for (int i = 0; i < remaining; i++, f++, bw++) {
        pass(b, PB_ACT_FWD, f, 0);
        /* activation out, the gradient of the oldest micro-batch in */
        two(b, PB_X_SEND_NEXT, f, PB_X_RECV_NEXT, bw);
        pass(b, PB_ACT_BWD, bw, 0);
        if (i == remaining - 1)
            one(b, PB_X_SEND_PREV, bw);
        else
            two(b, PB_X_SEND_PREV, bw, PB_X_RECV_PREV, f + 1);
    }
    for (int i = 0; i < warmup; i++, bw++) {
        one(b, PB_X_RECV_NEXT, bw);
        pass(b, PB_ACT_BWD, bw, 0);
        one(b, PB_X_SEND_PREV, bw);
    }
}

/* forward_backward_pipelining_with_interleaving, without p2p overlap and
 * with microbatch_group_size_per_vp_stage = p (its default): virtual
 * micro-batch k (0..m*v-1) runs model chunk (k mod pv) / p of micro-batch
 * (k / pv) * p + k mod p; backwards walk the chunks in reverse. */
typedef struct ilv {
    int p, s, m, v, total;
    int *in_f, *in_b; /* per chunk: activations / gradients received so far */
} ilv_t;

static int chunk_of(const ilv_t *t, int k, int forward)
{
    int kk = ((k % t->total) + t->total) % t->total; /* Megatron indexes its table mod total */
    int c = (kk % (t->p * t->v)) / t->p;
    return forward ? c : t->v - c - 1;
}

static int mb_of(const ilv_t *t, int k)
{
    return (k / (t->p * t->v)) * t->p + k % t->p;
}

/* Megatron's recv_tensor_from_previous_stage: whether this stage receives
 * after virtual micro-batch k, and for which chunk.  The leading stage
 * (the first in forward, the last in backward) is p-1 iterations ahead of
 * the ending one and receives what the ending one's chunk produced p-1
 * iterations ago, one chunk further along. */
static int recv_from_prev(const ilv_t *t, int k, int forward, int *chunk)
{
    int leading = forward ? t->s == 0 : t->s == t->p - 1;
    if (!leading) {
        *chunk = chunk_of(t, k + 1, forward);
        return 1;
    }
    int recv = 1, c;
    if (k < t->p - 1) {
        recv = 0; /* the ending stage has produced nothing yet */
        c = chunk_of(t, k + 1, forward);
    } else {
        c = chunk_of(t, k - (t->p - 1), forward);
    }
    if (c == (forward ? t->v - 1 : 0))
        recv = 0; /* the last virtual stage produces nothing to pass on */
    *chunk = forward ? c + 1 : c - 1;
    return recv;
}

/* A received tensor joins Megatron's per-chunk FIFO (input_tensors[c] /
 * output_tensor_grads[c]) and is consumed by that chunk's next pass; with
 * groups of p micro-batches a chunk's passes run micro-batches 0..m-1 in
 * order, so the n-th tensor received for chunk c is micro-batch n's. */
static void recv_part(xchg_t *x, pb_xpart_t p, int *count, int chunk)
{
    part(x, p, count[chunk]++, chunk);
}

static void interleaved(builder_t *b, ilv_t *t)
{
    int p = t->p, s = t->s, v = t->v, total = t->total;
    int warmup = (p - s - 1) * 2 + (v - 1) * p; /* get_pp_rank_microbatches */
    int all_warmup = 0;
    if (warmup >= total) {
        warmup = total;
        all_warmup = 1;
    }
    int remaining = total - warmup;
    int vlast = s == p - 1; /* holds the virtual last stage (chunk v-1) */
    int vfirst = s == 0;    /* holds the virtual first stage (chunk 0) */

    xchg_t x = {0, {0}, {0}};
    if (!vfirst) /* recv_forward for chunk 0 */
        recv_part(&x, PB_X_RECV_PREV, t->in_f, 0);
    flush(b, &x);

    for (int k = 0; k < warmup; k++) {
        int c = chunk_of(t, k, 1), nc;
        pass(b, PB_ACT_FWD, mb_of(t, k), c);
        int recv_prev = recv_from_prev(t, k, 1, &nc);
        if (k == total - 1)
            recv_prev = 0;
        xchg_t w = {0, {0}, {0}};
        if (!(vlast && c == v - 1))
            part(&w, PB_X_SEND_NEXT, mb_of(t, k), c);
        if (recv_prev)
            recv_part(&w, PB_X_RECV_PREV, t->in_f, nc);
        /* the last warm-up exchange also fetches the first gradient
         * (send_forward_backward_recv_forward_backward, nothing to send
         * back yet), for backward virtual micro-batch 0: chunk v-1 */
        if (k == warmup - 1 && !all_warmup && !vlast)
            recv_part(&w, PB_X_RECV_NEXT, t->in_b, v - 1);
        flush(b, &w);
    }

    for (int k = 0; k < remaining; k++) {
        int fk = k + warmup, bk = k;
        int fc = chunk_of(t, fk, 1), bc = chunk_of(t, bk, 0), nfc, nbc;
        pass(b, PB_ACT_FWD, mb_of(t, fk), fc);
        pass(b, PB_ACT_BWD, mb_of(t, bk), bc);
        int recv_prev = recv_from_prev(t, fk, 1, &nfc);
        int recv_next = recv_from_prev(t, bk, 0, &nbc);
        if (k == remaining - 1)
            recv_prev = 0;
        xchg_t w = {0, {0}, {0}};
        if (!(vlast && fc == v - 1))
            part(&w, PB_X_SEND_NEXT, mb_of(t, fk), fc);
        if (recv_prev)
            recv_part(&w, PB_X_RECV_PREV, t->in_f, nfc);
        if (!(vfirst && bc == 0))
            part(&w, PB_X_SEND_PREV, mb_of(t, bk), bc);
        if (recv_next)
            recv_part(&w, PB_X_RECV_NEXT, t->in_b, nbc);
        flush(b, &w);
    }

    if (all_warmup && !vlast) { /* recv_backward for chunk v-1 */
        xchg_t w = {0, {0}, {0}};
        recv_part(&w, PB_X_RECV_NEXT, t->in_b, v - 1);
        flush(b, &w);
    }
    for (int k = remaining; k < total; k++) {
        int c = chunk_of(t, k, 0), nbc;
        pass(b, PB_ACT_BWD, mb_of(t, k), c);
        int recv_next = recv_from_prev(t, k, 0, &nbc);
        if (k == total - 1)
            recv_next = 0;
        xchg_t w = {0, {0}, {0}};
        if (!(vfirst && c == 0))
            part(&w, PB_X_SEND_PREV, mb_of(t, k), c);
        if (recv_next)
            recv_part(&w, PB_X_RECV_NEXT, t->in_b, nbc);
        flush(b, &w);
    }
}

static int check_sizes(pb_sched_kind_t k, int p, int s, int m, int v, pb_err_t *err)
{
    if (p < 1 || m < 1 || s < 0 || s >= p)
        return pb_err_set(err, PB_EINPUT, "no pipeline of %d stages, stage %d, %d micro-batches",
                          p, s, m);
    if (k != PB_SCHED_INTERLEAVED) {
        if (v != 1)
            return pb_err_set(err, PB_EINPUT,
                              "the %s schedule runs one model chunk per stage, not %d "
                              "(model chunks need the interleaved schedule)",
                              pb_sched_name(k), v);
        return PB_OK;
    }
    if (p < 2)
        return pb_err_set(err, PB_EINPUT,
                          "interleaving needs at least 2 pipeline stages, not %d", p);
    if (v < 2)
        return pb_err_set(err, PB_EINPUT,
                          "interleaving needs at least 2 model chunks per stage, not %d", v);
    if (m % p != 0)
        return pb_err_set(err, PB_EINPUT,
                          "interleaving needs the micro-batches (%d) to be a multiple of the "
                          "pipeline stages (%d)",
                          m, p);
    if ((long long)m * v > 1000000000LL)
        return pb_err_set(err, PB_EINPUT, "%d micro-batches of %d model chunks are too many", m,
                          v);
    return PB_OK;
}

int pb_sched_build(pb_sched_kind_t k, int p, int s, int m, int v, pb_sched_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (check_sizes(k, p, s, m, v, err))
        return err->code;
    builder_t b = {out, 0, s == 0, s == p - 1, 1};
    if (k == PB_SCHED_GPIPE) {
        gpipe(&b, m);
    } else if (k == PB_SCHED_1F1B) {
        one_f_one_b(&b, p, s, m);
    } else {
        b.first = b.last = 0; /* a ring: every stage has both neighbours */
        ilv_t t = {p, s, m, v, m * v, calloc((size_t)v, sizeof(int)), calloc((size_t)v, sizeof(int))};
        if (t.in_f && t.in_b)
            interleaved(&b, &t);
        else
            b.ok = 0;
        free(t.in_f);
        free(t.in_b);
    }
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
