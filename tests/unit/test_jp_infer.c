/* test_jp_infer.c - each recorded communicator's dimension, with the
 * layout given and inferred without it (jobprof/pb_jp_infer.h), on jobs
 * jp_synth.h writes as the NCCL profiler plugin does.
 *
 * The expected groups are Megatron's rank order worked by hand (tp
 * fastest, then cp, dp, pp; parallel_state.py's RankGenerator):
 *  - tp2 dp2 pp2 (8 ranks): TP {0,1} {2,3} {4,5} {6,7}; DP stride 2
 *    {0,2} {1,3} {4,6} {5,7}; PP stride 4 {0,4} {1,5} {2,6} {3,7}; the
 *    world; the model-parallel group 'tp-pp' of rank 0 is {0,1,4,5};
 *  - tp2 cp2 dp2: TP stride 1, CP stride 2 ({0,2}), DP ('dp') stride 4
 *    ({0,4}), DP with CP ('dp-cp') {0,2,4,6};
 *  - tp4 pp2: TP {0..3} {4..7}, PP {0,4} ... {3,7}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "jobprof/pb_jp_infer.h"
#include "unit/jp_synth.h"


/* The synthetic job of that layout, loaded. */
static int load(int tp, int cp, int dp, int pp, pb_jobprof_t *jp)
{
    char dir[] = "/tmp/pb_jp_infer_XXXXXX";
    if (mkdtemp(dir) == NULL)
        return -1;
    jp_synth_t s;
    jp_synth_defaults(&s);
    s.tp = tp, s.cp = cp, s.dp = dp, s.pp = pp;
    const char *paths[] = {dir};
    pb_err_t err = {0, ""};
    pb_jobprof_init(jp);
    int rc = jp_synth_write(dir, &s) == 0 ? pb_jp_load(paths, 1, jp, &err) : -1;
    if (rc != 0)
        fprintf(stderr, "load: %s\n", err.msg);
    jp_synth_remove(dir);
    return rc;
}

/* The comm whose sorted members are exactly m[0..n-1]; NULL none. */
static pb_jcomm_t *comm_of(pb_jobprof_t *jp, const int *m, int n)
{
    for (size_t i = 0; i < jp->ncomms; i++) {
        pb_jcomm_t *c = &jp->comms[i];
        int same = c->nranks == n;
        for (int k = 0; k < n && same; k++) {
            int found = 0;
            for (int j = 0; j < n; j++)
                found |= c->members[j] == m[k];
            same = found;
        }
        if (same)
            return c;
    }
    return NULL;
}

static pb_jdim_t dim_of(pb_jobprof_t *jp, const int *m, int n)
{
    pb_jcomm_t *c = comm_of(jp, m, n);
    return c ? c->dim : PB_JD_COUNT;
}

/* A communicator added by hand (the recorder saw it, nothing ran on it). */
static void add_comm(pb_jobprof_t *jp, uint64_t id, const int *m, int n)
{
    pb_err_t err = {0, ""};
    int k = pb_jp_comm(jp, id, "by hand", n, &err);
    CHECK(k >= 0);
    for (int j = 0; k >= 0 && j < n; j++)
        jp->comms[k].members[j] = m[j];
}

static void layout_of(pb_layout_t *l, int tp, int cp, int dp, int pp)
{
    pb_layout_default(l);
    l->size[PB_DIM_TP] = tp;
    l->size[PB_DIM_CP] = cp;
    l->size[PB_DIM_DP] = dp;
    l->size[PB_DIM_PP] = pp;
}

static void check_222(pb_jobprof_t *jp)
{
    static const int tp[][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
    static const int dp[][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};
    static const int pp[][2] = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
    static const int world[] = {0, 1, 2, 3, 4, 5, 6, 7}, mp[] = {0, 1, 4, 5}, odd[] = {0, 3};
    for (int g = 0; g < 4; g++) {
        CHECK(dim_of(jp, tp[g], 2) == PB_JD_TP);
        CHECK(dim_of(jp, dp[g], 2) == PB_JD_DP);
        CHECK(dim_of(jp, pp[g], 2) == PB_JD_PP);
    }
    CHECK(dim_of(jp, world, 8) == PB_JD_WORLD);
    CHECK(dim_of(jp, mp, 4) == PB_JD_OTHER); /* Megatron's 'tp-pp' */
    CHECK(dim_of(jp, odd, 2) == PB_JD_UNKNOWN); /* no group Megatron makes */
}

static void test_222(void)
{
    static const int mp[] = {0, 1, 4, 5}, odd[] = {0, 3};
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jp_shape_t sh;
    CHECK(load(2, 1, 2, 2, &jp) == 0);
    CHECK(jp.ncomms == 13); /* 4 TP + 4 DP + 4 PP + world */
    add_comm(&jp, 0xabc1, mp, 4);
    add_comm(&jp, 0xabc2, odd, 2);
    /* inferred: links (1,2) TP and (2,2) DP carry collectives, (4,2) the
     * outermost carries send/recv: PP; the rest by the layout found */
    CHECK(pb_jp_infer(&jp, NULL, &sh, &err) == PB_OK);
    CHECK(sh.consistent && sh.tp == 2 && sh.cp == 1 && sh.dp == 2 && sh.pp == 2 && sh.world == 8);
    check_222(&jp);
    /* given */
    pb_layout_t l;
    layout_of(&l, 2, 1, 2, 2);
    for (size_t i = 0; i < jp.ncomms; i++)
        jp.comms[i].dim = PB_JD_UNKNOWN;
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_OK);
    CHECK(sh.consistent && sh.tp == 2 && sh.dp == 2 && sh.pp == 2);
    check_222(&jp);
    /* a layout of another world: one line naming both */
    layout_of(&l, 2, 1, 2, 1);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "= 4 ranks, but the records hold 8") != NULL);
    pb_jobprof_free(&jp);
}

/* CP's groups carry all-gathers in jp_synth (no send/recv): three
 * collective links are TP, CP, DP in Megatron's order. */
static void test_cp(void)
{
    static const int cp[] = {0, 2}, dp[] = {0, 4}, dpcp[] = {0, 2, 4, 6}, tp[] = {6, 7};
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jp_shape_t sh;
    CHECK(load(2, 2, 2, 1, &jp) == 0);
    add_comm(&jp, 0xabc3, dpcp, 4);
    for (int given = 0; given < 2; given++) {
        pb_layout_t l;
        layout_of(&l, 2, 2, 2, 1);
        CHECK(pb_jp_infer(&jp, given ? &l : NULL, &sh, &err) == PB_OK);
        CHECK(sh.consistent && sh.tp == 2 && sh.cp == 2 && sh.dp == 2 && sh.pp == 1);
        CHECK(dim_of(&jp, tp, 2) == PB_JD_TP);
        CHECK(dim_of(&jp, cp, 2) == PB_JD_CP);
        CHECK(dim_of(&jp, dp, 2) == PB_JD_DP);
        CHECK(dim_of(&jp, dpcp, 4) == PB_JD_DP); /* 'dp-cp': the gradients' group */
    }
    pb_jobprof_free(&jp);
}

/* tp4 pp2: one collective link besides PP could be TP or DP (tp 4 and
 * dp 4 have the same groups): unknown until the layout says. */
static void test_ambiguous(void)
{
    static const int tp[] = {4, 5, 6, 7}, pp[] = {3, 7};
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jp_shape_t sh;
    CHECK(load(4, 1, 1, 2, &jp) == 0);
    CHECK(pb_jp_infer(&jp, NULL, &sh, &err) == PB_OK);
    CHECK(!sh.consistent);
    CHECK(dim_of(&jp, tp, 4) == PB_JD_UNKNOWN);
    CHECK(dim_of(&jp, pp, 2) == PB_JD_PP);
    pb_layout_t l;
    layout_of(&l, 4, 1, 1, 2);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_OK);
    CHECK(dim_of(&jp, tp, 4) == PB_JD_TP && dim_of(&jp, pp, 2) == PB_JD_PP);
    char text[64];
    pb_jp_members_text(comm_of(&jp, tp, 4), 2, text, sizeof text);
    CHECK(strcmp(text, "4 5 ... (4)") == 0);
    pb_jobprof_free(&jp);
}

/* tp cp dp pp all 2 (16 ranks), by hand: rank bit 0 is the tp
 * coordinate, bit 1 cp, bit 2 dp, bit 3 pp (Megatron order), so the group
 * of dimension d holding r is {r without bit d, r with it}.  CP carries
 * send/recv (Transformer Engine's ring) as PP does: the inner of the two
 * is CP, the outermost PP, the collective links around CP TP and DP. */
static void test_cp_ring(void)
{
    static const pb_jdim_t want[] = {PB_JD_TP, PB_JD_CP, PB_JD_DP, PB_JD_PP};
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jobprof_init(&jp);
    jp.world = 16;
    for (int d = 0; d < 4; d++)
        for (int r = 0; r < 16; r++) {
            if (r & (1 << d))
                continue;
            int m[] = {r, r | (1 << d)}, k = pb_jp_comm(&jp, (uint64_t)(d * 100 + r), "", 2, &err);
            CHECK(k >= 0);
            if (k < 0)
                continue;
            jp.comms[k].members[0] = m[0];
            jp.comms[k].members[1] = m[1];
            pb_jop_t o;
            memset(&o, 0, sizeof o);
            o.rank = r;
            o.comm = k;
            o.known = 1;
            o.kind = d == 1 || d == 3 ? PB_JK_SEND : PB_JK_COLL;
            o.coll = d == 1 || d == 3 ? PB_SENDRECV : PB_ALLREDUCE;
            CHECK(pb_jp_add_op(&jp, &o, &err) == PB_OK);
        }
    pb_jp_shape_t sh;
    CHECK(pb_jp_infer(&jp, NULL, &sh, &err) == PB_OK);
    CHECK(sh.consistent && sh.tp == 2 && sh.cp == 2 && sh.dp == 2 && sh.pp == 2);
    for (int d = 0; d < 4; d++) {
        int m[] = {5 & ~(1 << d), 5 | (1 << d)};
        CHECK(dim_of(&jp, m, 2) == want[d]);
    }
    pb_jobprof_free(&jp);
}

/* The label of the comm with id `id`. */
static pb_jdim_t dim_by_id(const pb_jobprof_t *jp, uint64_t id)
{
    for (size_t i = 0; i < jp->ncomms; i++)
        if (jp->comms[i].id == id)
            return jp->comms[i].dim;
    return PB_JD_COUNT;
}

/* A comm of members m added by hand with one record of func on it. */
static void add_comm_op(pb_jobprof_t *jp, uint64_t id, const int *m, int n, const char *func)
{
    pb_err_t err = {0, ""};
    add_comm(jp, id, m, n);
    pb_jop_t o;
    memset(&o, 0, sizeof o);
    o.rank = m[0];
    o.comm = (int)jp->ncomms - 1;
    o.known = pb_jp_func(func, &o.kind, &o.coll) == 0;
    o.dtype = PB_BF16;
    o.peer = o.kind == PB_JK_COLL ? -1 : 1;
    snprintf(o.func, sizeof o.func, "%s", func);
    CHECK(o.known && pb_jp_add_op(jp, &o, &err) == PB_OK);
}

/* issue 49 item 12: a layout the recording contradicts is one line and
 * PB_EINPUT (exit 2), not every group "unknown" or the wrong ones "pp".
 * jp_synth's tp2 dp2 job: TP {0,1} {2,3} carry 2 micro-batches x 2
 * directions x 2 all-reduces x 2 steps = 16 each per rank (32 records),
 * DP {0,2} {1,3} a reduce-scatter and an all-gather a step, no send or
 * receive anywhere.  --tp 4 makes one group of 4 (the world): TP {0,1}
 * is none of its groups.  --pp 2 --dp 2 (tp 1) makes DP {0,1} and PP
 * {0,2}: TP's members then fit DP and DP's fit PP, but a pipeline passes
 * activations and nothing was sent. */
static void test_contradicted(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jp_shape_t sh;
    pb_layout_t l;
    CHECK(load(2, 1, 2, 1, &jp) == 0);
    layout_of(&l, 4, 1, 1, 1);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "the layout (tp 4, cp 1, dp 1, pp 1) contradicts the recording: "
                          "communicator 0 (synth-0-0, ranks 0 1) carried 32 records and is none "
                          "of its groups; give the layout the job ran, or leave it out to infer "
                          "it") == 0);
    layout_of(&l, 1, 1, 2, 2);
    err = (pb_err_t){0, ""};
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "the layout (tp 1, cp 1, dp 2, pp 2) contradicts the recording: pp 2, "
                          "but no send or receive was recorded") == err.msg);
    /* the layout it ran is accepted */
    layout_of(&l, 2, 1, 2, 1);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_OK);
    pb_jobprof_free(&jp);
}

/* issue 49 item 12: "pp" only for sends and receives between pipeline
 * stages.  On tp2 dp2 pp2 (PP {0,4} carries jp_synth's sends), another
 * comm of members {0,4} that carried an all-reduce alone is Megatron's
 * embedding group (with pp 2 its first and last stage are the whole
 * pipeline): other; one that carried a reduce-scatter is no group of
 * those members: unknown, yet no contradiction (its members are a group
 * the layout makes).  On pp 4 a comm of stages 1 and 2 carrying a send
 * is the pipeline's (PyTorch's two-rank point-to-point communicator);
 * on cp 3 x dp 2 ({0,1,2} a CP group) one of ranks 0 and 1, the ring's. */
static void test_pp_traffic(void)
{
    static const int stages[] = {0, 4}, pair[] = {1, 2}, ring[] = {0, 1};
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    pb_jp_shape_t sh;
    pb_layout_t l;
    CHECK(load(2, 1, 2, 2, &jp) == 0);
    add_comm_op(&jp, 0xe1, stages, 2, "AllReduce");
    add_comm_op(&jp, 0xe2, stages, 2, "ReduceScatter");
    layout_of(&l, 2, 1, 2, 2);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_OK);
    CHECK(dim_of(&jp, stages, 2) == PB_JD_PP); /* jp_synth's, first */
    CHECK(dim_by_id(&jp, 0xe1) == PB_JD_OTHER);
    CHECK(dim_by_id(&jp, 0xe2) == PB_JD_UNKNOWN);
    pb_jobprof_free(&jp);
    CHECK(load(1, 1, 1, 4, &jp) == 0);
    add_comm_op(&jp, 0xe3, pair, 2, "Send");
    layout_of(&l, 1, 1, 1, 4);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_OK && dim_by_id(&jp, 0xe3) == PB_JD_PP);
    pb_jobprof_free(&jp);
    CHECK(load(1, 3, 2, 1, &jp) == 0);
    add_comm_op(&jp, 0xe4, ring, 2, "Send");
    layout_of(&l, 1, 3, 2, 1);
    CHECK(pb_jp_infer(&jp, &l, &sh, &err) == PB_OK && dim_by_id(&jp, 0xe4) == PB_JD_CP);
    pb_jobprof_free(&jp);
}

int main(void)
{
    test_contradicted();
    test_pp_traffic();
    test_cp_ring();
    test_222();
    test_cp();
    test_ambiguous();
    PB_TEST_END("unit_jp_infer");
}
