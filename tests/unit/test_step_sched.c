/* test_step_sched.c - the pipeline schedules against Megatron-LM's
 * schedules.py worked by hand, a simulation of every stage at once
 * (exchanges posted together and completing together, as
 * batch_isend_irecv and NCCL groups do) proving that every part finds its
 * partner carrying the tensor its partner expects and that every pass has
 * its input, and a timing simulation giving the bubble of each schedule. */
#include <stdlib.h>
#include <string.h>

#include "patterns/pb_step_sched.h"
#include "pb_test.h"

/* One stage's actions as text: passes "F<mb>/<chunk>" and "B<mb>/<chunk>",
 * exchanges as their parts joined by '+', each "<part><mb>/<chunk>" with
 * sn = send_next, rp = recv_prev, sp = send_prev, rn = recv_next. */
static void render(const pb_sched_t *sc, char *buf, size_t len)
{
    static const char *const pn[PB_X_COUNT] = {"sn", "rp", "sp", "rn"};
    size_t u = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sc->n && u < len; i++) {
        const pb_step_action_t *a = &sc->a[i];
        if (a->act != PB_ACT_XCHG) {
            u += (size_t)snprintf(buf + u, len - u, "%s%c%d/%d", i ? " " : "",
                                  a->act == PB_ACT_FWD ? 'F' : 'B', a->mb, a->chunk);
            continue;
        }
        const char *sep = i ? " " : "";
        for (int p = 0; p < PB_X_COUNT && u < len; p++)
            if (a->parts & PB_X_BIT(p)) {
                u += (size_t)snprintf(buf + u, len - u, "%s%s%d/%d", sep, pn[p], a->xmb[p],
                                      a->xchunk[p]);
                sep = "+";
            }
    }
}

static void expect(pb_sched_kind_t k, int p, int s, int m, int v, const char *want, int line)
{
    pb_sched_t sc;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_sched_build(k, p, s, m, v, &sc, &err) != PB_OK) {
        fprintf(stderr, "line %d: %s\n", line, err.msg);
        pb_test_failures++;
        return;
    }
    char got[4096];
    render(&sc, got, sizeof got);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "line %d: %s p=%d s=%d m=%d v=%d\n got:  %s\n want: %s\n", line,
                pb_sched_name(k), p, s, m, v, got, want);
        pb_test_failures++;
    }
    pb_sched_free(&sc);
}

/* 1F1B, p = 2, m = 3 (forward_backward_pipelining_without_interleaving):
 * stage 0 warms up with min(p - s - 1, m) = 1 forward, runs 2 steady
 * pairs (forward, send_forward_recv_backward, backward) and cools down
 * with 1 backward; its recv_forward / send_backward parts face no stage
 * and vanish.  Stage 1 (the last) has no warm-up and 3 steady pairs; its
 * send_forward_recv_backward faces no stage and vanishes. */
static void test_1f1b_by_hand(void)
{
    expect(PB_SCHED_1F1B, 2, 0, 3, 1,
           "F0/0 sn0/0 F1/0 sn1/0+rn0/0 B0/0 F2/0 sn2/0+rn1/0 B1/0 rn2/0 B2/0", __LINE__);
    expect(PB_SCHED_1F1B, 2, 1, 3, 1,
           "rp0/0 F0/0 B0/0 rp1/0+sp0/0 F1/0 B1/0 rp2/0+sp1/0 F2/0 B2/0 sp2/0", __LINE__);
    /* one stage: nothing to exchange */
    expect(PB_SCHED_1F1B, 1, 0, 2, 1, "F0/0 B0/0 F1/0 B1/0", __LINE__);
}

/* GPipe, p = 2, m = 2: every forward, then every backward, newest first. */
static void test_gpipe_by_hand(void)
{
    expect(PB_SCHED_GPIPE, 2, 0, 2, 1, "F0/0 sn0/0 F1/0 sn1/0 rn1/0 B1/0 rn0/0 B0/0", __LINE__);
    expect(PB_SCHED_GPIPE, 2, 1, 2, 1, "rp0/0 F0/0 rp1/0 F1/0 B1/0 sp1/0 B0/0 sp0/0", __LINE__);
}

/* Interleaved, p = 2, v = 2, worked through forward_backward_pipelining_
 * with_interleaving by hand.  Virtual micro-batch k runs chunk
 * (k mod pv) / p = (k mod 4) / 2 of micro-batch (k / 4) * 2 + k mod 2
 * forward, and chunk v - 1 - that backward.  Warm-up (get_pp_rank_
 * microbatches) = 2(p - s - 1) + (v - 1)p: 4 on stage 0, 2 on stage 1.
 * Receives (recv_tensor_from_previous_stage): a non-leading stage always
 * receives for chunk_id(k + 1); the leading stage (0 forward, p-1
 * backward) receives nothing for k < p - 1, else what the other end's
 * chunk_id(k - (p - 1)) produced, one chunk on, unless that chunk is the
 * last one in that direction.
 *
 * m = 4, total 8, forward k = 0..7: mb 0 1 0 1 2 3 2 3, chunk 0 0 1 1 0 0 1 1.
 * Stage 0 warm-up k=0: F0/0, no receive (k < p-1): sn0/0.  k=1: F1/0;
 *   chunk_id(0) = 0 is not last: receive for chunk 1, its first: rp0/1.
 *   k=2: F0/1, chunk_id(1) = 0: rp1/1.  k=3 (the last warm-up): F1/1;
 *   chunk_id(2) = 1 is the last chunk: no rp; this exchange also fetches
 *   the gradient for backward 0 (chunk v-1 = 1): rn0/1.
 * Steady k=0..3 (forward 4..7, backward 0..3, backward mb 0 1 0 1 chunk
 *   1 1 0 0): F2/0 B0/1, no rp (chunk_id(3) = 1), sp0/1, rn for chunk
 *   chunk_id(1, bwd) = 1: rn1/1.  F3/0 B1/1: rp2/1 (chunk_id(4) = 0),
 *   sp1/1, rn0/0.  F2/1 B0/0: rp3/1, no sp (stage 0 chunk 0 is the
 *   virtual first stage), rn1/0.  F3/1 B1/0: no rp (last steady), rn2/1.
 * Cool-down k=4..7 (mb 2 3 2 3, chunk 1 1 0 0): B2/1 sp2/1+rn3/1,
 *   B3/1 sp3/1+rn2/0, B2/0 rn3/0, B3/0 and nothing (k = total - 1).
 * Stage 1 first receives chunk 0's input, rp0/0.  Warm-up k=0: F0/0
 *   sn0/0+rp1/0; k=1 (last warm-up): F1/0 sn1/0+rp0/1, no rn (the last
 *   stage makes its own first gradient).  Steady k=0..5 (forward 2..7):
 *   F0/1 B0/1: nothing to send on from the virtual last stage, rp1/1,
 *   sp0/1, no rn (backward 0 < p-1).  F1/1 B1/1: rp2/0 sp1/1, rn0/0
 *   (chunk_id(0, bwd) = 1 is not chunk 0).  F2/0 B0/0:
 *   sn2/0+rp3/0+sp0/0+rn1/0.  F3/0 B1/0: sn3/0+rp2/1+sp1/0, no rn
 *   (chunk_id(2, bwd) = 0).  F2/1 B2/1: rp3/1+sp2/1, no rn likewise.
 *   F3/1 B3/1: last steady, no rp; sp3/1+rn2/0.  Cool-down k=6, 7:
 *   B2/0 sp2/0+rn3/0, B3/0 sp3/0. */
static void test_interleaved_by_hand(void)
{
    expect(PB_SCHED_INTERLEAVED, 2, 0, 4, 2,
           "F0/0 sn0/0 F1/0 sn1/0+rp0/1 F0/1 sn0/1+rp1/1 F1/1 sn1/1+rn0/1 "
           "F2/0 B0/1 sn2/0+sp0/1+rn1/1 F3/0 B1/1 sn3/0+rp2/1+sp1/1+rn0/0 "
           "F2/1 B0/0 sn2/1+rp3/1+rn1/0 F3/1 B1/0 sn3/1+rn2/1 "
           "B2/1 sp2/1+rn3/1 B3/1 sp3/1+rn2/0 B2/0 rn3/0 B3/0",
           __LINE__);
    expect(PB_SCHED_INTERLEAVED, 2, 1, 4, 2,
           "rp0/0 F0/0 sn0/0+rp1/0 F1/0 sn1/0+rp0/1 "
           "F0/1 B0/1 rp1/1+sp0/1 F1/1 B1/1 rp2/0+sp1/1+rn0/0 "
           "F2/0 B0/0 sn2/0+rp3/0+sp0/0+rn1/0 F3/0 B1/0 sn3/0+rp2/1+sp1/0 "
           "F2/1 B2/1 rp3/1+sp2/1 F3/1 B3/1 sp3/1+rn2/0 B2/0 sp2/0+rn3/0 B3/0 sp3/0",
           __LINE__);
    /* m = p = 2, total 4: stage 0's warm-up 2 + 2 = 4 >= total, so all of
     * it is warm-up (are_all_microbatches_in_warmup) and its gradients
     * come by recv_backward then send_backward_recv_backward; stage 1's
     * is 2 < 4 and it runs 2 steady iterations (current Megatron tests
     * warm-up >= total per stage, not m == p for all stages). */
    expect(PB_SCHED_INTERLEAVED, 2, 0, 2, 2,
           "F0/0 sn0/0 F1/0 sn1/0+rp0/1 F0/1 sn0/1+rp1/1 F1/1 sn1/1 rn0/1 "
           "B0/1 sp0/1+rn1/1 B1/1 sp1/1+rn0/0 B0/0 rn1/0 B1/0",
           __LINE__);
    expect(PB_SCHED_INTERLEAVED, 2, 1, 2, 2,
           "rp0/0 F0/0 sn0/0+rp1/0 F1/0 sn1/0+rp0/1 F0/1 B0/1 rp1/1+sp0/1 "
           "F1/1 B1/1 sp1/1+rn0/0 B0/0 sp0/0+rn1/0 B1/0 sp1/0",
           __LINE__);
}

/* ---- the simulation of all stages at once ---- */

enum { MAXP = 8, QCAP = 4096 };

typedef struct posted {
    int stage, mb, chunk;
    double t; /* when its exchange was posted (timing simulation) */
} posted_t;

/* One direction between two neighbours: sends and receives waiting for
 * their partner, paired in order. */
typedef struct chan {
    posted_t snd[QCAP], rcv[QCAP];
    int ns, nr, hs, hr;
} chan_t;

typedef struct sim {
    pb_sched_kind_t k;
    int p, m, v;
    pb_sched_t sc[MAXP];
    size_t pc[MAXP];
    int posted[MAXP], pending[MAXP];
    double t[MAXP], done_at[MAXP]; /* stage clock; latest pairing of its exchange */
    chan_t *fwd, *bwd;             /* [s]: from stage s to its next / previous */
    /* per stage, micro-batch and chunk: passes run, tensors arrived */
    int *nf, *nb, *in, *grad;
    int errors;
    double tf, tb; /* pass durations (per chunk) */
} sim_t;

static int idx(const sim_t *z, int s, int mb, int c)
{
    return (s * z->m + mb) * z->v + c;
}

static void fail(sim_t *z, const char *what, int s, int mb, int c)
{
    if (z->errors++ < 5)
        fprintf(stderr, "%s p=%d m=%d v=%d stage %d: %s (mb %d chunk %d)\n", pb_sched_name(z->k),
                z->p, z->m, z->v, s, what, mb, c);
}

/* Pairs what can be paired on one channel from stage `from` to `to`; a
 * receive on the wrapping link of the ring belongs to one chunk further
 * along in the direction of travel (`dc`). */
static void pair(sim_t *z, chan_t *ch, int to, int dc, int is_fwd)
{
    while (ch->hs < ch->ns && ch->hr < ch->nr) {
        posted_t a = ch->snd[ch->hs++], b = ch->rcv[ch->hr++];
        if (b.mb != a.mb || b.chunk != a.chunk + dc)
            fail(z, "received a tensor other than the one sent", to, b.mb, b.chunk);
        else if (b.mb >= 0 && b.mb < z->m && b.chunk >= 0 && b.chunk < z->v)
            (is_fwd ? z->in : z->grad)[idx(z, to, b.mb, b.chunk)]++;
        double t = a.t > b.t ? a.t : b.t; /* zero-cost transfer: both posted */
        for (int i = 0; i < 2; i++) {
            int s = i ? b.stage : a.stage;
            z->pending[s]--;
            if (t > z->done_at[s])
                z->done_at[s] = t;
        }
    }
}

static void post(sim_t *z, int s, const pb_step_action_t *a)
{
    int p = z->p, ring = z->k == PB_SCHED_INTERLEAVED;
    int next = (s + 1) % p, prev = (s - 1 + p) % p;
    z->posted[s] = 1;
    z->done_at[s] = z->t[s];
    for (int q = 0; q < PB_X_COUNT; q++) {
        if (!(a->parts & PB_X_BIT(q)))
            continue;
        int toward_next = q == PB_X_SEND_NEXT || q == PB_X_RECV_NEXT;
        if (!ring && (toward_next ? s == p - 1 : s == 0)) {
            fail(z, "a part toward a stage that does not exist", s, a->xmb[q], a->xchunk[q]);
            continue;
        }
        posted_t e = {s, a->xmb[q], a->xchunk[q], z->t[s]};
        /* fwd[f]: SEND_NEXT of f with RECV_PREV of f+1; bwd[f]: SEND_PREV
         * of f with RECV_NEXT of f-1 */
        chan_t *ch = q == PB_X_SEND_NEXT   ? &z->fwd[s]
                     : q == PB_X_RECV_PREV ? &z->fwd[prev]
                     : q == PB_X_SEND_PREV ? &z->bwd[s]
                                           : &z->bwd[next];
        int snd = q == PB_X_SEND_NEXT || q == PB_X_SEND_PREV;
        if ((snd ? ch->ns : ch->nr) == QCAP) {
            fail(z, "queue overflow", s, e.mb, e.chunk);
            continue;
        }
        if (snd)
            ch->snd[ch->ns++] = e;
        else
            ch->rcv[ch->nr++] = e;
        z->pending[s]++;
    }
    for (int f = 0; f < p; f++) {
        pair(z, &z->fwd[f], (f + 1) % p, f == p - 1 ? 1 : 0, 1);
        pair(z, &z->bwd[f], (f - 1 + p) % p, f == 0 ? -1 : 0, 0);
    }
}

static void run_pass(sim_t *z, int s, const pb_step_action_t *a)
{
    if (a->mb < 0 || a->mb >= z->m || a->chunk < 0 || a->chunk >= z->v) {
        fail(z, "a pass out of range", s, a->mb, a->chunk);
        return;
    }
    int i = idx(z, s, a->mb, a->chunk);
    if (a->act == PB_ACT_FWD) {
        /* only the virtual first stage reads its input from the data */
        if (!(s == 0 && a->chunk == 0) && z->in[i] != 1)
            fail(z, "forward before its activation arrived", s, a->mb, a->chunk);
        if (z->nf[i]++)
            fail(z, "forward run twice", s, a->mb, a->chunk);
        z->t[s] += z->tf;
    } else {
        /* only the virtual last stage makes its gradient from the loss */
        if (!(s == z->p - 1 && a->chunk == z->v - 1) && z->grad[i] != 1)
            fail(z, "backward before its gradient arrived", s, a->mb, a->chunk);
        if (!z->nf[i])
            fail(z, "backward before its forward", s, a->mb, a->chunk);
        if (z->nb[i]++)
            fail(z, "backward run twice", s, a->mb, a->chunk);
        z->t[s] += z->tb;
    }
}

/* Runs every stage of a schedule until none can move.  Returns the number
 * of problems found (0: every stage finished, every part paired with the
 * tensor its partner expected, every pass had its input) and sets
 * *makespan, the time the last stage finished with forwards taking tf,
 * backwards tb and exchanges nothing but waiting for their partners. */
static int simulate(pb_sched_kind_t k, int p, int m, int v, double tf, double tb, double *makespan)
{
    sim_t z;
    memset(&z, 0, sizeof z);
    z.k = k, z.p = p, z.m = m, z.v = v, z.tf = tf, z.tb = tb;
    size_t cells = (size_t)p * (size_t)m * (size_t)v;
    z.fwd = calloc((size_t)p, sizeof *z.fwd);
    z.bwd = calloc((size_t)p, sizeof *z.bwd);
    z.nf = calloc(cells, sizeof(int));
    z.nb = calloc(cells, sizeof(int));
    z.in = calloc(cells, sizeof(int));
    z.grad = calloc(cells, sizeof(int));
    int built = 0;
    if (!z.fwd || !z.bwd || !z.nf || !z.nb || !z.in || !z.grad) {
        z.errors = 1;
        goto out;
    }
    for (; built < p; built++) {
        pb_err_t err;
        if (pb_sched_build(k, p, built, m, v, &z.sc[built], &err) != PB_OK) {
            fprintf(stderr, "%s p=%d m=%d v=%d: %s\n", pb_sched_name(k), p, m, v, err.msg);
            z.errors = 1;
            goto out;
        }
    }
    for (int moved = 1; moved;) {
        moved = 0;
        for (int s = 0; s < p; s++) {
            while (z.pc[s] < z.sc[s].n) {
                const pb_step_action_t *a = &z.sc[s].a[z.pc[s]];
                if (a->act != PB_ACT_XCHG) {
                    run_pass(&z, s, a);
                } else {
                    if (!z.posted[s])
                        post(&z, s, a);
                    if (z.pending[s] > 0)
                        break; /* waits for its partners */
                    z.posted[s] = 0;
                    z.t[s] = z.done_at[s];
                }
                z.pc[s]++;
                moved = 1;
            }
        }
    }
    *makespan = 0;
    for (int s = 0; s < p; s++) {
        if (z.pc[s] != z.sc[s].n)
            fail(&z, "deadlock: stuck", s, -1, -1);
        if (z.t[s] > *makespan)
            *makespan = z.t[s];
        if (z.fwd[s].hs != z.fwd[s].ns || z.fwd[s].hr != z.fwd[s].nr ||
            z.bwd[s].hs != z.bwd[s].ns || z.bwd[s].hr != z.bwd[s].nr)
            fail(&z, "parts left unpaired", s, -1, -1);
        for (int mb = 0; mb < m; mb++)
            for (int c = 0; c < v; c++) {
                int i = idx(&z, s, mb, c);
                if (z.nf[i] != 1 || z.nb[i] != 1)
                    fail(&z, "not exactly one forward and one backward", s, mb, c);
            }
    }
out:
    for (int s = 0; s < built; s++)
        pb_sched_free(&z.sc[s]);
    free(z.fwd);
    free(z.bwd);
    free(z.nf);
    free(z.nb);
    free(z.in);
    free(z.grad);
    return z.errors;
}

static void test_simulation(void)
{
    double t;
    for (int k = 0; k < 2; k++)
        for (int p = 1; p <= 8; p++)
            for (int m = 1; m <= 12; m++)
                if (simulate((pb_sched_kind_t)k, p, m, 1, 1, 2, &t))
                    pb_test_failures++;
    for (int p = 2; p <= 8; p++)
        for (int v = 2; v <= 4; v++)
            for (int g = 1; g <= 3; g++)
                if (simulate(PB_SCHED_INTERLEAVED, p, g * p, v, 1, 2, &t))
                    pb_test_failures++;
}

/* The makespan of a step from the schedule alone: forward 1, backward 2
 * per (chunk of a) stage, free exchanges.  1F1B and GPipe (Narayanan et
 * al., SC'21, sec. 2.2): (m + p - 1)(tf + tb) = 3(m + p - 1) - m
 * micro-batches of work plus a bubble of p - 1.  Interleaved (ibid.,
 * sec. 2.2.2): each chunk is 1/v of a stage, so the work is m v (tf + tb)
 * = 3mv and the bubble (p - 1)(tf + tb) = 3(p - 1) in per-chunk times,
 * (p - 1)/v of a full stage's micro-batch: 3mv + 3(p - 1). */
static void test_bubble(void)
{
    double t = 0;
    for (int p = 1; p <= 8; p++)
        for (int m = 1; m <= 12; m++) {
            CHECK(simulate(PB_SCHED_1F1B, p, m, 1, 1, 2, &t) == 0);
            CHECK_NEAR(t, 3.0 * (m + p - 1), 0);
            CHECK(simulate(PB_SCHED_GPIPE, p, m, 1, 1, 2, &t) == 0);
            CHECK_NEAR(t, 3.0 * (m + p - 1), 0);
        }
    for (int p = 2; p <= 8; p++)
        for (int v = 2; v <= 4; v++)
            for (int g = 1; g <= 3; g++) {
                int m = g * p;
                CHECK(simulate(PB_SCHED_INTERLEAVED, p, m, v, 1, 2, &t) == 0);
                if (t != 3.0 * m * v + 3.0 * (p - 1)) {
                    fprintf(stderr, "interleaved p=%d v=%d m=%d: makespan %g, want %g\n", p, v,
                            m, t, 3.0 * m * v + 3.0 * (p - 1));
                    pb_test_failures++;
                }
            }
}

static void test_bad_inputs(void)
{
    pb_sched_t sc;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_INTERLEAVED, 4, 0, 6, 2, &sc, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "(6)") && strstr(err.msg, "(4)"));
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_INTERLEAVED, 4, 0, 8, 1, &sc, &err) == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_INTERLEAVED, 1, 0, 4, 2, &sc, &err) == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_1F1B, 4, 0, 8, 2, &sc, &err) == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_GPIPE, 4, 0, 8, 0, &sc, &err) == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_1F1B, 2, 2, 4, 1, &sc, &err) == PB_EINPUT); /* no stage 2 of 2 */
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_1F1B, 2, 0, 0, 1, &sc, &err) == PB_EINPUT);
}

static void test_names(void)
{
    pb_sched_kind_t k;
    CHECK(pb_sched_parse("interleaved", &k) == 0 && k == PB_SCHED_INTERLEAVED);
    CHECK(pb_sched_parse("1f1b", &k) == 0 && k == PB_SCHED_1F1B);
    CHECK(pb_sched_parse("gpipe", &k) == 0 && k == PB_SCHED_GPIPE);
    CHECK(pb_sched_parse("zb", &k) != 0);
    CHECK(strcmp(pb_sched_name(PB_SCHED_INTERLEAVED), "interleaved") == 0);
    CHECK(strcmp(pb_act_name(PB_ACT_XCHG), "xchg") == 0);
    CHECK(strcmp(pb_xpart_name(PB_X_RECV_NEXT), "recv_next") == 0);
    char buf[64];
    pb_xchg_name(PB_X_BIT(PB_X_SEND_NEXT) | PB_X_BIT(PB_X_RECV_NEXT), buf, sizeof buf);
    CHECK(strcmp(buf, "send_next+recv_next") == 0);
    pb_xchg_name(PB_X_BIT(PB_X_SEND_NEXT) | PB_X_BIT(PB_X_RECV_NEXT), buf, 12);
    CHECK(strcmp(buf, "send_next") == 0); /* a short buffer holds what fits */
}

int main(void)
{
    test_1f1b_by_hand();
    test_gpipe_by_hand();
    test_interleaved_by_hand();
    test_simulation();
    test_bubble();
    test_bad_inputs();
    test_names();
    PB_TEST_END("unit_step_sched");
}
