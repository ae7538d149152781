/* test_wd_tree.c - the shape of the watchdogs' channel (bench/run/pb_wd_tree):
 * node leaders in a fanout-ary tree under leader 0 (rank 0), heap order.
 *
 * By hand, fan-out 2: leader 0's children are 1, 2; 1's are 3, 4; 2's are
 * 5, 6; so 6 -> 2 -> 0 (the path tests/faults/hang_stopped.sh crosses).
 * Fan-out 32 (the default): leaders 1..32 are one hop from the root,
 * 33..32+32^2 = 1056 two hops, 1057..1056+32^3 = 33824 three, so the
 * 2,048 nodes of 16,384 GPUs (8 per node) are 3 hops deep and no leader
 * has more than 32 leader children.
 *
 * Then the channel itself, built by pb_wd_tree_open over two threads of
 * the threads control world (loopback): a frame sent up by rank 1 reaches
 * rank 0, whose wait in pb_wd_tree_next is interrupted by signals all the
 * while (issue 32, item 6: EINTR must neither end the wait nor drop the
 * peer; pb_wd_tree_next already retried, so this one guards it, and runs
 * the set-up's listener, accepting and token end to end). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/run/pb_wd_tree.h"
#include "collectives/pb_ctl.h"

#include "pb_test.h"

static int hops(int li, int fanout)
{
    int h = 0;
    while (li > 0) {
        li = pb_wd_tree_parent(li, fanout);
        h++;
    }
    return h;
}

static void test_by_hand(void)
{
    CHECK(pb_wd_tree_parent(0, 2) == -1);
    CHECK(pb_wd_tree_first_child(0, 2) == 1);
    CHECK(pb_wd_tree_parent(1, 2) == 0 && pb_wd_tree_parent(2, 2) == 0);
    CHECK(pb_wd_tree_first_child(1, 2) == 3 && pb_wd_tree_first_child(2, 2) == 5);
    CHECK(pb_wd_tree_parent(6, 2) == 2 && pb_wd_tree_parent(5, 2) == 2);
    CHECK(hops(6, 2) == 2);
    CHECK(hops(32, 32) == 1 && hops(33, 32) == 2);
    CHECK(hops(1056, 32) == 2 && hops(1057, 32) == 3);
    CHECK(hops(2047, 32) == 3);
    CHECK(hops(33824, 32) == 3 && hops(33825, 32) == 4);
}

/* Every leader is among its parent's children, exactly once; a parent
 * has at most `fanout` of them; nothing forms a cycle (parents are
 * smaller indices). */
static void test_consistent(int nl, int fanout)
{
    int bad = 0;
    for (int li = 1; li < nl; li++) {
        int p = pb_wd_tree_parent(li, fanout);
        int first = pb_wd_tree_first_child(p, fanout);
        if (p < 0 || p >= li || li < first || li >= first + fanout)
            bad++;
    }
    CHECK(bad == 0);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

typedef struct wd_rank {
    pb_ctl_shared_t *sh;
    int rank, bad;
    atomic_int *done;  /* rank 0 is past its wait: the signals stop */
    atomic_int *kicks; /* signals sent to rank 0 so far */
} wd_rank_t;

/* Rank 1 reports once rank 0 has taken 20 more signals since the set-up
 * (10 s at most); rank 0 waits for it up to 20 s. */
static void exchange(wd_rank_t *a, pb_wd_tree_t *t)
{
    pb_wd_frame_t f;
    memset(&f, 0, sizeof f);
    if (a->rank == 1) {
        int k0 = atomic_load(a->kicks);
        for (int i = 0; i < 10000 && atomic_load(a->kicks) < k0 + 20; i++)
            sleep_ms(1);
        f.type = PB_WD_REPORT;
        f.origin = 1;
        snprintf(f.doing, sizeof f.doing, "a test's report");
        pb_wd_tree_up(t, &f);
        return;
    }
    int from_parent = -1;
    int r = pb_wd_tree_next(t, -1, 20000, &f, &from_parent);
    if (r != 1 || f.type != PB_WD_REPORT || f.origin != 1 || from_parent != 0 ||
        strcmp(f.doing, "a test's report") != 0) {
        fprintf(stderr, "rank 0: next gave %d (type %u from %d)\n", r, (unsigned)f.type, f.origin);
        a->bad++;
    }
}

static void *tree_rank(void *p)
{
    wd_rank_t *a = p;
    pb_ctl_t *c = pb_ctl_threads_join(a->sh, a->rank);
    pb_wd_tree_t *t = NULL;
    char why[256] = "";
    if (c != NULL)
        pb_wd_tree_open(&t, c, why, sizeof why);
    if (t == NULL) {
        fprintf(stderr, "rank %d: no channel: %s\n", a->rank, why);
        a->bad++;
    } else {
        exchange(a, t);
    }
    if (a->rank == 0)
        atomic_store(a->done, 1);
    /* rank 1 keeps its end open until rank 0 has read */
    if (c != NULL && pb_ctl_barrier(c) != PB_OK)
        a->bad++;
    pb_wd_tree_close(t);
    pb_ctl_free(c);
    return NULL;
}

static void nothing(int sig) { (void)sig; }

static void test_channel_eintr(void)
{
    struct sigaction sa; /* no SA_RESTART: each signal interrupts a wait */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = nothing;
    CHECK(sigemptyset(&sa.sa_mask) == 0 && sigaction(SIGUSR1, &sa, NULL) == 0);
    pb_ctl_shared_t *sh = pb_ctl_threads_new(2);
    CHECK(sh != NULL);
    if (sh == NULL)
        return;
    atomic_int done = 0, kicks = 0;
    wd_rank_t ra[2] = {{sh, 0, 0, &done, &kicks}, {sh, 1, 0, &done, &kicks}};
    pthread_t th[2];
    int made = 0;
    while (made < 2 && pthread_create(&th[made], NULL, tree_rank, &ra[made]) == 0)
        made++;
    CHECK(made == 2);
    if (made < 2) {
        atomic_store(&done, 1);
        if (made == 0)
            pb_ctl_threads_drop(sh);
    }
    /* every 2 ms at rank 0, until it has its frame */
    while (made > 0 && !atomic_load(&done)) {
        sleep_ms(2);
        if (pthread_kill(th[0], SIGUSR1) == 0)
            atomic_fetch_add(&kicks, 1);
    }
    for (int r = 0; r < made; r++)
        pthread_join(th[r], NULL);
    CHECK(ra[0].bad == 0 && ra[1].bad == 0);
    CHECK(made < 2 || atomic_load(&kicks) >= 20); /* rank 0 waited under signals */
}

int main(void)
{
    test_by_hand();
    int fans[] = {1, 2, 3, 32};
    for (int i = 0; i < 4; i++)
        test_consistent(20000, fans[i]);
    test_channel_eintr();
    PB_TEST_END("wd_tree");
}
