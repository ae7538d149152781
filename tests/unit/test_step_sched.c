/* test_step_sched.c - the pipeline schedules, against Megatron-LM's
 * schedules.py by hand, and a simulation of every stage at once proving
 * that each blocking exchange finds its partner (no deadlock) and that
 * micro-batches arrive in the order they were sent. */
#include <string.h>

#include "bench/pb_step_sched.h"
#include "pb_test.h"

#define F PB_ACT_FWD
#define B PB_ACT_BWD
#define RF PB_ACT_RECV_FWD
#define SF PB_ACT_SEND_FWD
#define RB PB_ACT_RECV_BWD
#define SB PB_ACT_SEND_BWD
#define SFRB PB_ACT_SEND_FWD_RECV_BWD
#define SBRF PB_ACT_SEND_BWD_RECV_FWD

static void expect(pb_sched_kind_t k, int p, int s, int m, const pb_act_t *acts,
                   const int *mbs, size_t n, int line)
{
    pb_sched_t sc;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_sched_build(k, p, s, m, &sc, &err) != PB_OK) {
        fprintf(stderr, "line %d: %s\n", line, err.msg);
        pb_test_failures++;
        return;
    }
    int bad = sc.n != n;
    for (size_t i = 0; !bad && i < n; i++)
        bad = sc.a[i].act != acts[i] || (mbs && sc.a[i].mb != mbs[i]);
    if (bad) {
        fprintf(stderr, "line %d: stage %d got:", line, s);
        for (size_t i = 0; i < sc.n; i++)
            fprintf(stderr, " %s(%d)", pb_act_name(sc.a[i].act), sc.a[i].mb);
        fprintf(stderr, "\n");
        pb_test_failures++;
    }
    pb_sched_free(&sc);
}

/* 1F1B, p = 2, m = 3 (schedules.py, forward_backward_pipelining_without_
 * interleaving): stage 0 warms up with min(p - s - 1, m) = 1 forward,
 * runs 2 steady 1F1B pairs and cools down with 1 backward; stage 1 (the
 * last) has no warm-up and 3 steady pairs. */
static void test_1f1b_by_hand(void)
{
    static const pb_act_t s0[] = {F, SF, F, SFRB, B, F, SFRB, B, RB, B};
    static const int s0mb[] = {0, 0, 1, 0, 0, 2, 1, 1, 2, 2};
    expect(PB_SCHED_1F1B, 2, 0, 3, s0, s0mb, 10, __LINE__);
    static const pb_act_t s1[] = {RF, F, B, SBRF, F, B, SBRF, F, B, SB};
    static const int s1mb[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2};
    expect(PB_SCHED_1F1B, 2, 1, 3, s1, s1mb, 10, __LINE__);
}

/* GPipe, p = 2, m = 2: every forward, then every backward, newest first. */
static void test_gpipe_by_hand(void)
{
    static const pb_act_t s0[] = {F, SF, F, SF, RB, B, RB, B};
    static const int s0mb[] = {0, 0, 1, 1, 1, 1, 0, 0};
    expect(PB_SCHED_GPIPE, 2, 0, 2, s0, s0mb, 8, __LINE__);
    static const pb_act_t s1[] = {RF, F, RF, F, B, SB, B, SB};
    expect(PB_SCHED_GPIPE, 2, 1, 2, s1, NULL, 8, __LINE__);
}

/* What an action sends to / receives from the next and previous stage. */
typedef struct link {
    int send_next, recv_next, send_prev, recv_prev;
} link_t;

static link_t links(pb_act_t a)
{
    link_t l = {0, 0, 0, 0};
    switch (a) {
    case RF: l.recv_prev = 1; break;
    case SF: l.send_next = 1; break;
    case RB: l.recv_next = 1; break;
    case SB: l.send_prev = 1; break;
    case SFRB: l.send_next = l.recv_next = 1; break;
    case SBRF: l.send_prev = l.recv_prev = 1; break;
    default: break;
    }
    return l;
}

/* Runs every stage with rendezvous semantics (an exchange completes only
 * when the neighbour's current action is its exact mirror, as blocking
 * MPI_Sendrecv of large messages and grouped NCCL send/recv do).  Returns
 * 1 when every stage finishes, and counts forward passes that ran before
 * their activation arrived. */
static int simulate(pb_sched_kind_t k, int p, int m, int *order_errors)
{
    pb_sched_t sc[16];
    size_t pc[16] = {0};
    int fwd_arrived[16] = {0}; /* activations received so far per stage */
    pb_err_t err;
    for (int s = 0; s < p; s++)
        if (pb_sched_build(k, p, s, m, &sc[s], &err) != PB_OK)
            return 0;
    *order_errors = 0;
    for (int progress = 1; progress;) {
        progress = 0;
        for (int s = 0; s < p; s++) {
            if (pc[s] >= sc[s].n)
                continue;
            pb_step_action_t a = sc[s].a[pc[s]];
            if (a.act == F || a.act == B) {
                if (a.act == F && s > 0 && fwd_arrived[s] <= a.mb)
                    ++*order_errors;
                pc[s]++;
                progress = 1;
                continue;
            }
            /* exchanges are completed from the lower stage of each pair */
            link_t me = links(a.act);
            if ((me.send_next || me.recv_next) && s + 1 < p && pc[s + 1] < sc[s + 1].n) {
                link_t peer = links(sc[s + 1].a[pc[s + 1]].act);
                if (peer.recv_prev == me.send_next && peer.send_prev == me.recv_next &&
                    (peer.recv_prev || peer.send_prev)) {
                    if (me.send_next)
                        fwd_arrived[s + 1]++;
                    pc[s]++;
                    pc[s + 1]++;
                    progress = 1;
                }
            }
        }
    }
    int done = 1;
    for (int s = 0; s < p; s++) {
        done &= pc[s] == sc[s].n;
        pb_sched_free(&sc[s]);
    }
    return done;
}

static void test_no_deadlock(void)
{
    for (int k = 0; k < 2; k++)
        for (int p = 1; p <= 8; p++)
            for (int m = 1; m <= 12; m++) {
                int order = -1;
                int ok = simulate((pb_sched_kind_t)k, p, m, &order);
                if (!ok || order != 0) {
                    fprintf(stderr, "%s p=%d m=%d: %s, %d forwards before their input\n",
                            pb_sched_name((pb_sched_kind_t)k), p, m, ok ? "finished" : "DEADLOCK",
                            order);
                    pb_test_failures++;
                }
            }
}

/* Every stage runs each micro-batch's forward and backward exactly once. */
static void test_counts(void)
{
    for (int s = 0; s < 4; s++) {
        pb_sched_t sc;
        pb_err_t err;
        CHECK(pb_sched_build(PB_SCHED_1F1B, 4, s, 8, &sc, &err) == PB_OK);
        int f = 0, b = 0;
        for (size_t i = 0; i < sc.n; i++) {
            f += sc.a[i].act == F;
            b += sc.a[i].act == B;
        }
        CHECK(f == 8 && b == 8);
        pb_sched_free(&sc);
    }
    pb_sched_t sc;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_1F1B, 2, 2, 4, &sc, &err) == PB_EINPUT); /* no stage 2 of 2 */
    pb_err_clear(&err);
    CHECK(pb_sched_build(PB_SCHED_1F1B, 2, 0, 0, &sc, &err) == PB_EINPUT);
}

int main(void)
{
    test_1f1b_by_hand();
    test_gpipe_by_hand();
    test_no_deadlock();
    test_counts();
    PB_TEST_END("unit_step_sched");
}
