/* The control world of --gpus N (collectives/pb_ctl_thread.c): every
 * exchange on 1, 2, 3, 5 and 8 threads against values worked out by hand
 * from each rank's contribution, MPI_Comm_split's ordering rule (key, then
 * rank), MPI_MAXLOC's tie rule (lowest rank), and 2,000 back-to-back
 * reductions to shake out a barrier that lets a fast rank overtake. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/pb_ctl.h"
#include "pb_test.h"

typedef struct arg {
    pb_ctl_shared_t *sh;
    int rank;
    int bad; /* this thread's failed checks (pb_test_failures is not shared) */
} arg_t;

#define T_CHECK(a, cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "rank %d: %s:%d: %s\n", (a)->rank, __FILE__, __LINE__, #cond); \
            (a)->bad++;                                                                   \
        }                                                                                 \
    } while (0)

static void reductions(arg_t *a, pb_ctl_t *c, int n)
{
    int r = c->rank;
    int v = r + 1;
    T_CHECK(a, pb_ctl_allreduce(c, &v, 1, PB_CTL_INT, PB_CTL_SUM) == PB_OK);
    T_CHECK(a, v == n * (n + 1) / 2); /* 1 + 2 + ... + n */
    int mx[2] = {r, -r};
    T_CHECK(a, pb_ctl_allreduce(c, mx, 2, PB_CTL_INT, PB_CTL_MAX) == PB_OK);
    T_CHECK(a, mx[0] == n - 1 && mx[1] == 0);
    int64_t big = (int64_t)(r + 1) << 40; /* past 32 bits */
    T_CHECK(a, pb_ctl_allreduce(c, &big, 1, PB_CTL_I64, PB_CTL_SUM) == PB_OK);
    T_CHECK(a, big == (int64_t)(n * (n + 1) / 2) << 40);
    double d = 0.5 + r;
    T_CHECK(a, pb_ctl_allreduce(c, &d, 1, PB_CTL_DOUBLE, PB_CTL_MIN) == PB_OK);
    T_CHECK(a, d == 0.5);
    unsigned char bits = (unsigned char)(1u << r);
    T_CHECK(a, pb_ctl_allreduce(c, &bits, 1, PB_CTL_BYTE, PB_CTL_BOR) == PB_OK);
    T_CHECK(a, bits == (unsigned char)((1u << n) - 1u)); /* n <= 8 */
    /* odd ranks hold 1.0, even 0.0: the lowest odd rank wins (rank 1) */
    pb_ctl_loc_t loc = {(double)(r % 2), r};
    T_CHECK(a, pb_ctl_maxloc(c, &loc, 1) == PB_OK);
    T_CHECK(a, n == 1 ? loc.rank == 0 && loc.v == 0.0 : loc.rank == 1 && loc.v == 1.0);
}

static void movements(arg_t *a, pb_ctl_t *c, int n)
{
    int r = c->rank, root = n - 1;
    int mine = 10 * r, all[8] = {0}, got[8] = {0};
    T_CHECK(a, pb_ctl_allgather(c, &mine, all, sizeof mine) == PB_OK);
    for (int i = 0; i < n; i++)
        T_CHECK(a, all[i] == 10 * i);
    T_CHECK(a, pb_ctl_gather(c, &mine, got, sizeof mine, root) == PB_OK);
    for (int i = 0; r == root && i < n; i++)
        T_CHECK(a, got[i] == 10 * i);
    /* rank i sends i + 1 bytes of value i: at offset i(i+1)/2 */
    unsigned char part[8], packed[36];
    uint64_t counts[8], displs[8];
    memset(part, r, sizeof part);
    memset(packed, 0xff, sizeof packed);
    for (int i = 0; i < n; i++)
        counts[i] = (uint64_t)i + 1, displs[i] = (uint64_t)(i * (i + 1) / 2);
    T_CHECK(a, pb_ctl_gatherv(c, part, (uint64_t)r + 1, packed, counts, displs, root) == PB_OK);
    for (int i = 0; r == root && i < n; i++)
        for (int k = 0; k <= i; k++)
            T_CHECK(a, packed[i * (i + 1) / 2 + k] == i);
    char word[24] = "";
    if (r == root)
        snprintf(word, sizeof word, "from %d", root);
    T_CHECK(a, pb_ctl_bcast(c, word, sizeof word, root) == PB_OK);
    char want[24];
    snprintf(want, sizeof want, "from %d", root);
    T_CHECK(a, strcmp(word, want) == 0);
}

static void splits(arg_t *a, pb_ctl_t *c, int n)
{
    int r = c->rank;
    /* colour r % 2, key -r: within a colour the highest rank comes first */
    pb_ctl_t *sub = NULL;
    T_CHECK(a, pb_ctl_split(c, r % 2, -r, &sub) == PB_OK && sub != NULL);
    if (sub != NULL) {
        int size = (n - r % 2 + 1) / 2, above = 0; /* ranks of my colour */
        for (int q = r + 2; q < n; q += 2)
            above++;
        T_CHECK(a, sub->size == size && sub->rank == above);
        int sum = r;
        T_CHECK(a, pb_ctl_allreduce(sub, &sum, 1, PB_CTL_INT, PB_CTL_SUM) == PB_OK);
        int want = 0;
        for (int q = r % 2; q < n; q += 2)
            want += q;
        T_CHECK(a, sum == want);
        pb_ctl_free(sub);
    }
    /* rank 0 joins no sub-world */
    T_CHECK(a, pb_ctl_split(c, r == 0 ? -1 : 7, r, &sub) == PB_OK);
    T_CHECK(a, r == 0 ? sub == NULL : sub != NULL && sub->size == n - 1 && sub->rank == r - 1);
    pb_ctl_free(sub);
    T_CHECK(a, pb_ctl_split_node(c, &sub) == PB_OK && sub != NULL);
    if (sub != NULL) {
        T_CHECK(a, sub->size == n && sub->rank == r); /* one process, one host */
        pb_ctl_free(sub);
    }
}

static void *rank_main(void *p)
{
    arg_t *a = p;
    pb_ctl_t *c = pb_ctl_threads_join(a->sh, a->rank);
    if (c == NULL) {
        a->bad++;
        return NULL;
    }
    int n = c->size;
    T_CHECK(a, c->rank == a->rank);
    reductions(a, c, n);
    movements(a, c, n);
    splits(a, c, n);
    /* back to back: a rank that overtook would read a stale slot */
    for (int i = 0; i < 2000; i++) {
        int v = i + c->rank;
        pb_ctl_allreduce(c, &v, 1, PB_CTL_INT, PB_CTL_MAX);
        if (v != i + n - 1) {
            a->bad++;
            break;
        }
    }
    T_CHECK(a, pb_ctl_barrier(c) == PB_OK);
    pb_ctl_free(c);
    return NULL;
}

static void run(int n)
{
    pb_ctl_shared_t *sh = pb_ctl_threads_new(n);
    CHECK(sh != NULL);
    if (sh == NULL)
        return;
    pthread_t th[8];
    arg_t args[8];
    for (int r = 0; r < n; r++) {
        args[r] = (arg_t){sh, r, 0};
        CHECK(pthread_create(&th[r], NULL, rank_main, &args[r]) == 0);
    }
    int bad = 0;
    for (int r = 0; r < n; r++) {
        pthread_join(th[r], NULL);
        bad += args[r].bad;
    }
    if (bad)
        fprintf(stderr, "%d threads: %d failed checks\n", n, bad);
    CHECK(bad == 0);
}

int main(void)
{
    int sizes[] = {1, 2, 3, 5, 8};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        run(sizes[i]);
    CHECK(pb_ctl_threads_new(0) == NULL);
    PB_TEST_END("test_ctl_threads");
}
