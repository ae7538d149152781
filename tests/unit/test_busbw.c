/* test_busbw.c - core/pb_coll: bus-bandwidth factors, size granules
 * and buffer geometry, names, and the skewed all-to-all-v counts.
 *
 * Bus bandwidth (nccl-tests doc/PERFORMANCE.md, and doc/design.md "Formulas
 * that must be right"): busbw = algbw * factor with
 *   allreduce                               2(n-1)/n
 *   allgather, reducescatter, alltoall(v)   (n-1)/n
 *   broadcast, reduce, sendrecv             1 */
#include "core/pb_coll.h"

#include <stdint.h>
#include <string.h>

#include "pb_test.h"

static void test_busbw_factor(void)
{
    /* index n - 1, n = 1..8 */
    static const double allreduce[8] = {
        0.0,       /* 2*0/1 */
        1.0,       /* 2*1/2 */
        4.0 / 3.0, /* 2*2/3 */
        3.0 / 2.0, /* 2*3/4 */
        8.0 / 5.0, /* 2*4/5 */
        5.0 / 3.0, /* 2*5/6 = 10/6 */
        12.0 / 7.0, /* 2*6/7 */
        7.0 / 4.0, /* 2*7/8 = 14/8 */
    };
    static const double nm1_n[8] = {
        0.0,       /* 0/1 */
        1.0 / 2.0, /* 1/2 */
        2.0 / 3.0, /* 2/3 */
        3.0 / 4.0, /* 3/4 */
        4.0 / 5.0, /* 4/5 */
        5.0 / 6.0, /* 5/6 */
        6.0 / 7.0, /* 6/7 */
        7.0 / 8.0, /* 7/8 */
    };
    for (int n = 1; n <= 8; n++) {
        CHECK_NEAR(pb_busbw_factor(PB_ALLREDUCE, n), allreduce[n - 1], 1e-15);
        CHECK_NEAR(pb_busbw_factor(PB_ALLGATHER, n), nm1_n[n - 1], 1e-15);
        CHECK_NEAR(pb_busbw_factor(PB_REDUCESCATTER, n), nm1_n[n - 1], 1e-15);
        CHECK_NEAR(pb_busbw_factor(PB_ALLTOALL, n), nm1_n[n - 1], 1e-15);
        CHECK_NEAR(pb_busbw_factor(PB_ALLTOALLV, n), nm1_n[n - 1], 1e-15);
        CHECK(pb_busbw_factor(PB_BROADCAST, n) == 1.0);
        CHECK(pb_busbw_factor(PB_REDUCE, n) == 1.0);
        CHECK(pb_busbw_factor(PB_SENDRECV, n) == 1.0);
    }
    /* n = 1 moves nothing: exactly 0, not just small */
    CHECK(pb_busbw_factor(PB_ALLREDUCE, 1) == 0.0);
    CHECK(pb_busbw_factor(PB_ALLGATHER, 1) == 0.0);
    /* a large group: allreduce 2*1023/1024 = 1.998046875 (exact in binary) */
    CHECK(pb_busbw_factor(PB_ALLREDUCE, 1024) == 1.998046875);
    CHECK(pb_busbw_factor(PB_ALLTOALL, 1024) == 0.9990234375); /* 1023/1024 */
}

static void test_granule_geom(void)
{
    /* the element size, times n where the buffer is cut in n blocks */
    CHECK(pb_coll_granule(PB_ALLGATHER, 3, PB_F32) == 12);      /* 4 B * 3 */
    CHECK(pb_coll_granule(PB_ALLREDUCE, 3, PB_F16) == 2);       /* 2 B, not blocked */
    CHECK(pb_coll_granule(PB_ALLTOALL, 4, PB_I8) == 4);         /* 1 B * 4 */
    CHECK(pb_coll_granule(PB_ALLTOALLV, 5, PB_BF16) == 10);     /* 2 B * 5 */
    CHECK(pb_coll_granule(PB_REDUCESCATTER, 8, PB_F64) == 64);  /* 8 B * 8 */
    CHECK(pb_coll_granule(PB_BROADCAST, 8, PB_I32) == 4);       /* 4 B */
    CHECK(pb_coll_granule(PB_REDUCE, 8, PB_F64) == 8);          /* 8 B */
    CHECK(pb_coll_granule(PB_SENDRECV, 2, PB_I8) == 1);         /* 1 B */

    pb_coll_geom_t g;
    /* allgather, 4 ranks, float, 64 B gathered: 64 / 4 B = 16 elements out,
     * 16 / 4 ranks = 4 per block, each rank sends its block of 4 */
    g = pb_coll_geom(PB_ALLGATHER, 4, PB_F32, 64);
    CHECK(g.count == 16 && g.block == 4 && g.send_count == 4 && g.recv_count == 16);
    /* reducescatter: 64 B is the full input (16), each rank keeps 4 */
    g = pb_coll_geom(PB_REDUCESCATTER, 4, PB_F32, 64);
    CHECK(g.count == 16 && g.block == 4 && g.send_count == 16 && g.recv_count == 4);
    /* alltoall: one rank's send buffer, 16 elements in 4 blocks of 4 */
    g = pb_coll_geom(PB_ALLTOALL, 4, PB_F32, 64);
    CHECK(g.count == 16 && g.block == 4 && g.send_count == 16 && g.recv_count == 16);
    /* allreduce: the message, 16 floats in and out */
    g = pb_coll_geom(PB_ALLREDUCE, 4, PB_F32, 64);
    CHECK(g.count == 16 && g.send_count == 16 && g.recv_count == 16);
    /* broadcast of 64 B of double: 8 elements */
    g = pb_coll_geom(PB_BROADCAST, 4, PB_F64, 64);
    CHECK(g.count == 8 && g.send_count == 8 && g.recv_count == 8);
    /* over 2 GiB: 8 GiB of half on 8 ranks = 2^33 / 2 = 2^32 elements,
     * block 2^32 / 8 = 2^29 (sizes are 64-bit everywhere) */
    g = pb_coll_geom(PB_ALLGATHER, 8, PB_F16, UINT64_C(1) << 33);
    CHECK(g.count == (UINT64_C(1) << 32) && g.block == (UINT64_C(1) << 29));
    CHECK(g.send_count == (UINT64_C(1) << 29) && g.recv_count == (UINT64_C(1) << 32));
}

static void test_names(void)
{
    static const struct {
        const char *s;
        pb_coll_t c;
    } names[] = {
        {"allreduce", PB_ALLREDUCE},       {"all_reduce", PB_ALLREDUCE},
        {"allgather", PB_ALLGATHER},       {"all_gather", PB_ALLGATHER},
        {"reducescatter", PB_REDUCESCATTER}, {"reduce_scatter", PB_REDUCESCATTER},
        {"alltoall", PB_ALLTOALL},         {"all_to_all", PB_ALLTOALL},
        {"alltoallv", PB_ALLTOALLV},       {"all_to_all_v", PB_ALLTOALLV},
        {"broadcast", PB_BROADCAST},       {"bcast", PB_BROADCAST},
        {"reduce", PB_REDUCE},             {"sendrecv", PB_SENDRECV},
        {"send_recv", PB_SENDRECV},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pb_coll_t c = PB_COLL_COUNT;
        if (pb_coll_parse(names[i].s, &c) != 0 || c != names[i].c) {
            fprintf(stderr, "pb_coll_parse(\"%s\") wrong\n", names[i].s);
            pb_test_failures++;
        }
    }
    static const char *const refused[] = {"allreduce2", "", "all", "allreduc", "reduce-scatter",
                                          "alltoallw", " allreduce", "allreduce "};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        pb_coll_t c = PB_COLL_COUNT;
        if (pb_coll_parse(refused[i], &c) != -1) {
            fprintf(stderr, "pb_coll_parse(\"%s\") accepted\n", refused[i]);
            pb_test_failures++;
        }
    }
    /* printed names, as nccl-tests' binaries are named (all_reduce_perf ...)
     * without the underscores */
    CHECK(strcmp(pb_coll_name(PB_ALLREDUCE), "allreduce") == 0);
    CHECK(strcmp(pb_coll_name(PB_ALLGATHER), "allgather") == 0);
    CHECK(strcmp(pb_coll_name(PB_REDUCESCATTER), "reducescatter") == 0);
    CHECK(strcmp(pb_coll_name(PB_ALLTOALL), "alltoall") == 0);
    CHECK(strcmp(pb_coll_name(PB_ALLTOALLV), "alltoallv") == 0);
    CHECK(strcmp(pb_coll_name(PB_BROADCAST), "broadcast") == 0);
    CHECK(strcmp(pb_coll_name(PB_REDUCE), "reduce") == 0);
    CHECK(strcmp(pb_coll_name(PB_SENDRECV), "sendrecv") == 0);

    /* properties documented in pb_coll.h */
    CHECK(pb_coll_reduces(PB_ALLREDUCE) && pb_coll_reduces(PB_REDUCESCATTER) &&
          pb_coll_reduces(PB_REDUCE));
    CHECK(!pb_coll_reduces(PB_ALLGATHER) && !pb_coll_reduces(PB_ALLTOALL) &&
          !pb_coll_reduces(PB_ALLTOALLV) && !pb_coll_reduces(PB_BROADCAST) &&
          !pb_coll_reduces(PB_SENDRECV));
    CHECK(pb_coll_rooted(PB_BROADCAST) && pb_coll_rooted(PB_REDUCE));
    CHECK(!pb_coll_rooted(PB_ALLREDUCE) && !pb_coll_rooted(PB_SENDRECV) &&
          !pb_coll_rooted(PB_ALLGATHER));
    /* broadcast: one buffer, always in place; sendrecv: two distinct buffers */
    CHECK(pb_coll_has_in_place(PB_BROADCAST) && !pb_coll_has_out_of_place(PB_BROADCAST));
    CHECK(!pb_coll_has_in_place(PB_SENDRECV) && pb_coll_has_out_of_place(PB_SENDRECV));
    CHECK(pb_coll_has_in_place(PB_ALLREDUCE) && pb_coll_has_out_of_place(PB_ALLREDUCE));
}

/* Counts of one rank as n values each. */
struct skew {
    uint64_t sc[16], sd[16], rc[16], rd[16];
};

static void skew_all(int n, uint64_t total, struct skew *s)
{
    for (int r = 0; r < n; r++) {
        memset(&s[r], 0xA5, sizeof s[r]);
        pb_alltoallv_skewed(n, r, total, s[r].sc, s[r].sd, s[r].rc, s[r].rd);
    }
}

/* Every rank sends and receives `total`; r's send to d is d's receive from
 * r; displacements are the running sums (packed, in rank order). */
static void check_skew_consistent(int n, uint64_t total, const struct skew *s, int line)
{
    int bad = 0;
    for (int r = 0; r < n; r++) {
        uint64_t ssum = 0, rsum = 0;
        for (int d = 0; d < n; d++) {
            if (s[r].sd[d] != ssum || s[r].rd[d] != rsum)
                bad++;
            ssum += s[r].sc[d];
            rsum += s[r].rc[d];
            if (s[r].sc[d] != s[d].rc[r])
                bad++;
        }
        if (ssum != total || rsum != total)
            bad++;
    }
    if (bad) {
        fprintf(stderr, "line %d: skewed alltoallv n=%d total=%llu: %d inconsistencies\n", line,
                n, (unsigned long long)total, bad);
        pb_test_failures++;
    }
}

static void check_row(const uint64_t *got, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                      int n, int line)
{
    const uint64_t want[4] = {a, b, c, d};
    for (int i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fprintf(stderr, "line %d: [%d] = %llu, want %llu\n", line, i,
                    (unsigned long long)got[i], (unsigned long long)want[i]);
            pb_test_failures++;
        }
    }
}
#define ROW3(got, a, b, c) check_row(got, a, b, c, 0, 3, __LINE__)
#define ROW4(got, a, b, c, d) check_row(got, a, b, c, d, 4, __LINE__)

static void test_alltoallv(void)
{
    struct skew s[16];

    /* n = 3, total = 30 (pb_coll.c: pair (r, d) has k = (r + d) mod n and
     * gets floor(total * 2(k+1) / (n(n+1))) elements, the elements the
     * floors lose going one each to the largest shares):
     *   k=0: 60/12 = 5, k=1: 120/12 = 10, k=2: 180/12 = 15; sum 30. */
    skew_all(3, 30, s);
    /* rank 0: d=0,1,2 -> k=0,1,2 -> 5,10,15; displs 0,5,15 */
    ROW3(s[0].sc, 5, 10, 15);
    ROW3(s[0].sd, 0, 5, 15);
    /* rank 1: k=1,2,0 -> 10,15,5; displs 0,10,25 */
    ROW3(s[1].sc, 10, 15, 5);
    ROW3(s[1].sd, 0, 10, 25);
    /* rank 2: k=2,0,1 -> 15,5,10; displs 0,15,20 */
    ROW3(s[2].sc, 15, 5, 10);
    ROW3(s[2].sd, 0, 15, 20);
    /* receives: d -> r has the same k as r -> d */
    ROW3(s[0].rc, 5, 10, 15);
    ROW3(s[1].rc, 10, 15, 5);
    ROW3(s[2].rc, 15, 5, 10);
    ROW3(s[2].rd, 0, 15, 20);
    check_skew_consistent(3, 30, s, __LINE__);

    /* n = 4, total = 10: D = n(n+1) = 20, shares 10*2(k+1)/20 =
     * 1, 2, 3, 4 for k = 0..3, exact: nothing left over.  By k: 1,2,3,4. */
    skew_all(4, 10, s);
    ROW4(s[0].sc, 1, 2, 3, 4); /* k = 0,1,2,3 */
    ROW4(s[0].sd, 0, 1, 3, 6);
    ROW4(s[1].sc, 2, 3, 4, 1); /* k = 1,2,3,0 */
    ROW4(s[1].sd, 0, 2, 5, 9);
    ROW4(s[2].sc, 3, 4, 1, 2); /* k = 2,3,0,1 */
    ROW4(s[2].sd, 0, 3, 7, 8);
    ROW4(s[3].sc, 4, 1, 2, 3); /* k = 3,0,1,2 */
    ROW4(s[3].sd, 0, 4, 5, 7);
    ROW4(s[3].rc, 4, 1, 2, 3);
    check_skew_consistent(4, 10, s, __LINE__);

    /* n = 4, total = 11: shares 11*2/20 = 1.1, 2.2, 3.3, 4.4 -> floors
     * 1,2,3,4 = 10, one element lost -> the largest share (k=3) gets 5 */
    skew_all(4, 11, s);
    ROW4(s[0].sc, 1, 2, 3, 5);
    check_skew_consistent(4, 11, s, __LINE__);

    /* n = 3, total = 3000: 3000 * 2/12, 4/12, 6/12 -> 500, 1000, 1500 */
    skew_all(3, 3000, s);
    ROW3(s[0].sc, 500, 1000, 1500);

    /* n = 2, total = 7: 7 * 2/6 = 2.33 -> 2, 7 * 4/6 = 4.67 -> 4; one
     * element lost -> the larger share gets 5 */
    skew_all(2, 7, s);
    check_row(s[0].sc, 2, 5, 0, 0, 2, __LINE__);
    check_row(s[1].sc, 5, 2, 0, 0, 2, __LINE__);

    /* n = 1: everything to itself */
    skew_all(1, 30, s);
    CHECK(s[0].sc[0] == 30 && s[0].rc[0] == 30 && s[0].sd[0] == 0 && s[0].rd[0] == 0);

    /* sums and pairing for many n and totals, including ones below n and
     * one past 2^32 (sizes are 64-bit) */
    static const uint64_t totals[] = {0, 1, 5, 7, 10, 30, 100, 1000, 12345,
                                      UINT64_C(1) << 33, (UINT64_C(1) << 40) + 3};
    for (int n = 1; n <= 16; n++)
        for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
            skew_all(n, totals[t], s);
            check_skew_consistent(n, totals[t], s, __LINE__);
        }
}

int main(void)
{
    test_busbw_factor();
    test_granule_geom();
    test_names();
    test_alltoallv();
    PB_TEST_END("unit_busbw");
}
