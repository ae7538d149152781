/* test_jp_analysis.c - what parbench profile counts of a recorded job
 * (jobprof/pb_jp_inst.h, pb_jp_stats.h, pb_jp_strag.h), on the tp2 dp2 pp2
 * job jp_synth.h writes (2 steps, 2 micro-batches), rank 5 late by 2 ms.
 *
 * Every number below is jp_synth.h's construction worked by hand:
 *  - operation k of a step is issued by rank r at slot k + r x 1 us, rank
 *    5 2 ms later; it runs bytes / 100 GB/s + 10 us (the GPU time too):
 *    8 MiB: 83886 + 10000 = 93886 ns; 64 MiB: 671088 + 10000 = 681088;
 *    4 MiB: 41943 + 10000 = 51943; 4 B: 0 + 10000;
 *  - per TP comm: 4 x 2 micro-batches x 2 steps = 16 AllReduce of 8 MiB;
 *    per DP comm 2 ReduceScatter and 2 AllGather of 64 MiB; per PP comm,
 *    per micro-batch and step, a Send forward (stage 0) and one backward
 *    (stage 1): 8 sends and 8 receives of 4 MiB; the world 2 AllReduce
 *    of 4 B;
 *  - groups (Megatron order): TP {4,5}, DP {5,7}, PP {1,5}, world.
 * Calibration: one curve, all-reduce of bf16 on 2 ranks within a node,
 * 1-64 MiB, 10 us + bytes / 200 GB/s: at 8 MiB 10 + 41.94304 = 51.94304
 * us against the 93.886 us recorded, efficiency 0.5533; no other
 * collective has a curve, and the world's 4 B float all-reduce is out
 * of the curve's reach (below 1 MiB / 2).
 * Trace: a collective starts when its last member issued it, so each of
 * its other members waits: 4 TP comms x 16 x 1 + 4 DP x 4 x 1 + the
 * world 2 x 7 + 4 PP x 8 transfers x 1 (the earlier of sender and
 * receiver) = 126 waits beside the 240 operations; rank 4 waits on rank
 * 5 in TP 2 ms + 1 us.
 * Stragglers: rank 5 is last in every collective it is in: on TP {4,5}
 * 2 ms + 1 us after rank 4 (16 times), on DP {5,7} and the world 2 ms -
 * 2 us after rank 7 (4 + 2 times).  test_late_set: a hand-made job whose
 * numbers are worked beside it (issue 49). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "jobprof/pb_jp_calib.h"
#include "jobprof/pb_jp_infer.h"
#include "jobprof/pb_jp_inst.h"
#include "jobprof/pb_jp_stats.h"
#include "jobprof/pb_jp_strag.h"
#include "jobprof/pb_jp_trace.h"
#include "unit/jp_synth.h"

static int load(int straggler, pb_jobprof_t *jp)
{
    char dir[] = "/tmp/pb_jp_analysis_XXXXXX";
    if (mkdtemp(dir) == NULL)
        return -1;
    jp_synth_t s;
    jp_synth_defaults(&s);
    s.tp = s.dp = s.pp = 2;
    s.straggler = straggler;
    s.straggler_ns = 2000000;
    const char *paths[] = {dir};
    pb_err_t err = {0, ""};
    pb_jobprof_init(jp);
    int rc = jp_synth_write(dir, &s) == 0 ? pb_jp_load(paths, 1, jp, &err) : -1;
    jp_synth_remove(dir);
    return rc;
}

static int comm_index(const pb_jobprof_t *jp, int a, int b, int n)
{
    for (size_t i = 0; i < jp->ncomms; i++)
        if (jp->comms[i].nranks == n && jp->comms[i].members[0] == a &&
            (n > 2 || jp->comms[i].members[1] == b))
            return (int)i;
    return -1;
}

static const pb_jp_stat_t *stat_of(const pb_jp_stats_t *s, int comm, pb_jkind_t kind,
                                   pb_coll_t coll, int bucket)
{
    for (size_t i = 0; i < s->n; i++) {
        const pb_jp_stat_t *r = &s->rows[i];
        if (r->comm == comm && r->kind == kind && r->coll == coll && r->bucket == bucket)
            return r;
    }
    return NULL;
}

static void test_stats(const pb_jobprof_t *jp, const pb_jp_insts_t *in)
{
    pb_jp_stats_t st;
    pb_err_t err = {0, ""};
    CHECK(pb_jp_stats_build(jp, in, &st, &err) == PB_OK);
    /* the job: 4 TP x 16 x 93886 + 4 DP x 4 x 681088 + 4 PP x 16 x 51943
     * + 2 x 10000 ns */
    int64_t total = 4 * 16 * 93886LL + 4 * 4 * 681088LL + 4 * 16 * 51943LL + 2 * 10000LL;
    CHECK(st.total_ns == total && st.untimed == 0);
    int tp = comm_index(jp, 4, 5, 2), dp = comm_index(jp, 5, 7, 2), pp = comm_index(jp, 1, 5, 2);
    CHECK(tp >= 0 && dp >= 0 && pp >= 0);
    const pb_jp_stat_t *r = stat_of(&st, tp, PB_JK_COLL, PB_ALLREDUCE, -1);
    CHECK(r && r->count == 16 && r->bytes == 16 * (8ull << 20) && r->time_ns == 16 * 93886LL);
    /* 8 MiB lies in [4^11, 4^12) = [4 MiB, 16 MiB); busbw = algbw x 2(n-1)/n = algbw */
    const pb_jp_stat_t *b = stat_of(&st, tp, PB_JK_COLL, PB_ALLREDUCE, 11);
    CHECK(b && b->count == 16 && pb_jp_bucket(8u << 20) == 11 && pb_jp_bucket_lo(11) == 4u << 20);
    if (r) {
        CHECK_NEAR(r->share, 16 * 93886.0 / (double)total, 1e-12);
        CHECK_NEAR(r->busbw_gbps, (double)(8u << 20) / 93886.0, 1e-12);
    }
    r = stat_of(&st, dp, PB_JK_COLL, PB_REDUCESCATTER, -1);
    /* reduce-scatter: busbw = algbw x (n-1)/n = algbw / 2 */
    CHECK(r && r->count == 2 && r->bytes == 2 * (64ull << 20));
    if (r)
        CHECK_NEAR(r->busbw_gbps, (double)(64u << 20) / 681088.0 / 2, 1e-12);
    r = stat_of(&st, pp, PB_JK_SEND, PB_SENDRECV, -1);
    CHECK(r && r->count == 8 && r->bytes == 8 * (4ull << 20) && r->time_ns == 8 * 51943LL);
    r = stat_of(&st, pp, PB_JK_RECV, PB_SENDRECV, -1);
    CHECK(r && r->count == 8);
    pb_jp_stats_free(&st);
}

static void test_calib(const pb_jobprof_t *jp, const pb_jp_insts_t *in)
{
    pb_hw_t hw;
    pb_calib_t k;
    pb_err_t err = {0, ""};
    CHECK(pb_hw_preset("a100", &hw, &err) == PB_OK);
    pb_calib_init(&k);
    pb_curve_t c;
    memset(&c, 0, sizeof c);
    c.coll = PB_ALLREDUCE;
    c.n = 2;
    snprintf(c.link, sizeof c.link, "NV12");
    c.dtype = PB_BF16;
    c.per_node = 2;
    c.tol = 0.05;
    c.npieces = 1;
    c.p[0] = (pb_piece_t){1u << 20, 64u << 20, 10.0, 1e-3 / 200.0, 7, 0.0, 0.0};
    CHECK(pb_calib_add(&k, &c, &err) == PB_OK);
    pb_cost_t cost = {&hw, &k, 0};
    pb_jp_calcmp_t cc;
    CHECK(pb_jp_calib_cmp(jp, in, &cost, 0, 0.6, &cc, &err) == PB_OK);
    /* rows: 4 TP (8 MiB), 4 DP x 2, 4 PP x (send, recv), the world */
    CHECK(cc.n == 21 && cc.covered == 4 && cc.below == 4);
    double eff = (10.0 + (double)(8u << 20) * 1e-3 / 200.0) / 93.886;
    CHECK_NEAR(cc.median_eff, eff, 1e-9);
    int tp = comm_index(jp, 4, 5, 2);
    for (size_t i = 0; i < cc.n; i++) {
        const pb_jp_eff_t *r = &cc.rows[i];
        CHECK(r->covered == (r->coll == PB_ALLREDUCE && r->bytes == 8u << 20));
        if (r->comm == tp) {
            CHECK(r->count == 16 && r->n == 2 && !r->net && r->per_node == 2 && r->below);
            CHECK_NEAR(r->achieved_us, 93.886, 1e-12);
            CHECK_NEAR(r->eff, eff, 1e-9);
        }
    }
    pb_jp_calcmp_free(&cc);
    pb_calib_free(&k);
}

static void test_trace(const pb_jobprof_t *jp)
{
    char path[] = "/tmp/pb_jp_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    pb_jp_shape_t sh = {2, 1, 2, 2, 8, 1};
    size_t drawn = 0;
    pb_err_t err = {0, ""};
    CHECK(pb_jp_trace_write(path, jp, &sh, &drawn, &err) == PB_OK && drawn == 240);
    json_t *root = json_load_file(path, 0, NULL), *ev = json_object_get(root, "traceEvents");
    size_t i, waits = 0, ops = 0, names = 0, wait45 = 0;
    json_t *e;
    json_array_foreach(ev, i, e)
    {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        names += ph && strcmp(ph, "M") == 0;
        if (!ph || strcmp(ph, "X") != 0 || !cat || !name)
            continue;
        int wait = strcmp(cat, "wait") == 0;
        waits += (size_t)wait;
        ops += (size_t)!wait;
        if (wait && json_integer_value(json_object_get(e, "pid")) == 4 &&
            strcmp(name, "wait allreduce 8 MiB") == 0)
            wait45 += json_real_value(json_object_get(e, "dur")) == 2001.0;
    }
    CHECK(names == 8 && ops == 240 && waits == 126 && wait45 == 16);
    json_decref(root);
    unlink(path);
}

static void test_straggler(void)
{
    pb_jobprof_t jp;
    pb_jp_insts_t in;
    pb_jp_strag_t s;
    pb_err_t err = {0, ""};
    CHECK(load(5, &jp) == 0);
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK);
    test_stats(&jp, &in);
    test_calib(&jp, &in);
    test_trace(&jp);
    CHECK(pb_jp_strag_find(&jp, &in, 100000, &s, &err) == PB_OK);
    /* matched: 4 TP comms x 16 + 4 DP x 4 + the world's 2 */
    CHECK(s.matched == 82 && s.unmatched == 0);
    CHECK(s.late == 22 && s.nranks == 1);
    if (s.nranks == 1) {
        const pb_jp_rank_late_t *r = &s.ranks[0];
        CHECK(r->rank == 5 && r->last == 22 && r->ops == 22 && r->repeated);
        /* chance: 20 ops of 2 members, 2 of 8 */
        CHECK_NEAR(r->chance, 20 * 0.5 + 2 * 0.125, 1e-12);
        CHECK_NEAR(r->mean_lag_ns, (16 * 2001000.0 + 6 * 1998000.0) / 22, 1e-12);
    }
    CHECK(s.nworst == PB_JP_STRAG_WORST && s.worst[0].rank == 5 && s.worst[0].lag_ns == 2001000);
    pb_jp_strag_free(&s);
    /* no lag floor: the ordinary 1-2 us offsets of jp_synth name the
     * highest rank of each group: rank 7 is last in its 16 TP
     * all-reduces (1 us after rank 6), not on DP or the world (rank 5) */
    CHECK(pb_jp_strag_find(&jp, &in, 0, &s, &err) == PB_OK);
    int seven = 0;
    for (size_t i = 0; i < s.nranks; i++)
        if (s.ranks[i].rank == 7)
            seven = s.ranks[i].last == 16 && s.ranks[i].ops == 22;
    CHECK(seven);
    pb_jp_strag_free(&s);
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
    /* without the straggler nobody is 100 us late */
    CHECK(load(-1, &jp) == 0);
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK);
    CHECK(pb_jp_strag_find(&jp, &in, 100000, &s, &err) == PB_OK);
    CHECK(s.matched == 82 && s.late == 0 && s.nranks == 0);
    pb_jp_strag_free(&s);
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
}

/* issue 49 item 9: the count and its chance over the same operations.
 * A 2-rank communicator, 100 all-reduces (seq 0-99): in the 20 whose seq
 * is a multiple of 5 rank 1 issues 500 us after rank 0, in the other 80
 * rank 0 issues 1 us after rank 1 (below --min-lag's 100 us: nobody is
 * late).  Over the 20 late operations a rank last at random is last
 * 20 x 1/2 = 10 times, variance 20 x 1/2 x 1/2 = 5 (pb_jp_strag.h's
 * binomial rule), so rank 1's 20 is past 10 + 3 sqrt(5) = 16.708:
 * repeatedly last.  Chance over all 100 matched (the bug): 50 +- 3 x 5,
 * and 20 was missed. */
static void test_late_set(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jobprof_init(&jp);
    jp.world = 2;
    int c = pb_jp_comm(&jp, 0x77, "dp", 2, &err);
    CHECK(c == 0);
    if (c != 0)
        return;
    jp.comms[0].members[0] = 0;
    jp.comms[0].members[1] = 1;
    for (int k = 0; k < 100; k++)
        for (int r = 0; r < 2; r++) {
            pb_jop_t o;
            memset(&o, 0, sizeof o);
            o.rank = r;
            o.kind = PB_JK_COLL;
            o.known = 1;
            o.coll = PB_ALLREDUCE;
            o.dtype = PB_F32;
            o.seq = (uint64_t)k;
            o.peer = -1;
            o.gpu_ns = -1;
            int late = k % 5 == 0 ? r == 1 : r == 0;
            o.t_issue_ns = 1700000000000000000LL + k * 10000000LL +
                           (late ? (k % 5 == 0 ? 500000 : 1000) : 0);
            CHECK(pb_jp_add_op(&jp, &o, &err) == PB_OK);
        }
    pb_jp_insts_t in;
    pb_jp_strag_t s;
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK && in.n == 100);
    CHECK(pb_jp_strag_find(&jp, &in, 100000, &s, &err) == PB_OK);
    CHECK(s.matched == 100 && s.late == 20 && s.nranks == 1);
    if (s.nranks == 1) {
        const pb_jp_rank_late_t *r = &s.ranks[0];
        CHECK(r->rank == 1 && r->last == 20 && r->ops == 20);
        CHECK_NEAR(r->chance, 10.0, 1e-12);
        CHECK_NEAR(r->chance_var, 5.0, 1e-12);
        CHECK(r->repeated);
        CHECK_NEAR(r->mean_lag_ns, 500000.0, 1e-12);
    }
    pb_jp_strag_free(&s);
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
}

int main(void)
{
    test_late_set();
    test_straggler();
    PB_TEST_END("unit_jp_analysis");
}
