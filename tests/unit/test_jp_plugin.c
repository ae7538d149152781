/* test_jp_plugin.c - issue 49: the NCCL profiler plugin's record files
 * read and joined (jobprof/pb_jp_plugin.h) when they are damaged or
 * incomplete, on files built here byte for byte as profiler/pb_prof_rec.h
 * lays them out.
 *
 * - item 6: a header's global rank, job size or communicator size past
 *   PB_JP_MAX_RANKS (2^20), or a rank past its own size, is refused with
 *   the file and the value named - before the fix a rank of 2e7 made every
 *   per-rank table 2e7 long (1.4 GB) and INT32_MAX overflowed rank + 1;
 * - item 8: records are joined by NCCL's seqNumber, not by their place in
 *   each file: one record missing on one rank leaves that collective
 *   incomplete and every later one matched with its true lag;
 * - item 11: a record that ends before it starts is left out and counted;
 *   members that recorded one collective with different sizes are found
 *   (pb_jp_agree.h); a number repeated on one rank (a CUDA graph's
 *   collectives) joins the other ranks' repeats in order; a collective
 *   record of "Send", a number past 2^48, a count, size or time past 2^62
 *   are refused;
 * - the follow-up: a process holding several GPUs (ranks), told apart by
 *   the device each file records, joined as that many ranks; what cannot
 *   be one job (a process's ranks not told apart, two claims of one
 *   global rank) refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "jobprof/pb_jp_agree.h"
#include "jobprof/pb_jp_inst.h"
#include "jobprof/pb_jp_plugin.h"
#include "jobprof/pb_jp_strag.h"
#include "unit/jp_synth.h"

#define T0 1700000000000000000LL /* 2023-11-14 in ns: a plausible CLOCK_REALTIME */
#define MAXREC 16

typedef struct mfile {
    pb_prof_head_t h;
    pb_prof_rec_t r[MAXREC];
    size_t n;
} mfile_t;

/* Global rank g's file of communicator `comm` (rank cr of nranks) in a
 * job of `world` ranks, one process per rank. */
static void head(mfile_t *f, uint64_t comm, int nranks, int cr, int g, int world)
{
    memset(f, 0, sizeof *f);
    memcpy(f->h.magic, PB_PROF_MAGIC, sizeof f->h.magic);
    f->h.version = PB_PROF_VERSION;
    f->h.rec_size = sizeof(pb_prof_rec_t);
    f->h.comm_id = comm;
    f->h.nranks = nranks;
    f->h.nnodes = 1;
    f->h.rank = cr;
    f->h.pid = 100 + g % 1000; /* g may be INT32_MAX: no overflow */
    f->h.api = 5;
    f->h.every = 1;
    f->h.t0_ns = (uint64_t)T0;
    snprintf(f->h.host, sizeof f->h.host, "node0");
    f->h.world_rank = g;
    f->h.world_size = world;
    f->h.device = -1; /* no CUDA device recorded (as format 2) */
}

/* An AllReduce of `count` floats, NCCL's number seq, issued at `issue`,
 * running 10 us from 1 ms later. */
static pb_prof_rec_t *allreduce(mfile_t *f, uint64_t seq, uint64_t count, int64_t issue)
{
    pb_prof_rec_t *r = &f->r[f->n++];
    memset(r, 0, sizeof *r);
    r->kind = PB_PROF_REC_COLL;
    r->peer = -1;
    r->seq = seq;
    r->count = count;
    r->t_enq0 = (uint64_t)issue;
    r->t_enq1 = r->t_enq0 + 2000;
    r->t_k0 = r->t_enq0 + 1000000;
    r->t_k1 = r->t_k0 + 10000;
    snprintf(r->func, sizeof r->func, "AllReduce");
    snprintf(r->dtype, sizeof r->dtype, "ncclFloat32");
    return r;
}

/* The file's bytes as the plugin writes them, read as `name`. */
static int read1(pb_jp_plugin_t *pl, const char *name, const mfile_t *f, pb_err_t *err)
{
    size_t len = sizeof f->h + f->n * sizeof f->r[0];
    unsigned char *buf = malloc(len);
    if (buf == NULL)
        return PB_ERUNTIME;
    memcpy(buf, &f->h, sizeof f->h);
    memcpy(buf + sizeof f->h, f->r, f->n * sizeof f->r[0]);
    int rc = pb_jp_plugin_read(pl, name, buf, len, err);
    free(buf);
    return rc;
}

/* Both files read and joined into jp; the first failure's code. */
static int join2(const mfile_t *a, const mfile_t *b, pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jp_plugin_t pl;
    memset(&pl, 0, sizeof pl);
    pb_jobprof_init(jp);
    int rc = read1(&pl, "r0.bin", a, err);
    if (rc == PB_OK)
        rc = read1(&pl, "r1.bin", b, err);
    if (rc == PB_OK)
        rc = pb_jp_plugin_join(&pl, jp, err);
    pb_jp_plugin_free(&pl);
    return rc;
}

/* One file read alone: PB_EINPUT with a message naming "bad.bin" and
 * holding want. */
static void refused(const mfile_t *f, const char *want)
{
    pb_jp_plugin_t pl;
    memset(&pl, 0, sizeof pl);
    pb_err_t err = {0, ""};
    int rc = read1(&pl, "bad.bin", f, &err);
    if (rc != PB_EINPUT || strstr(err.msg, "bad.bin: ") != err.msg || !strstr(err.msg, want))
        fprintf(stderr, "want PB_EINPUT '%s', got %d '%s'\n", want, rc, err.msg);
    CHECK(rc == PB_EINPUT && strstr(err.msg, "bad.bin: ") == err.msg && strstr(err.msg, want));
    pb_jp_plugin_free(&pl);
}

/* item 6: the issue's 384-byte file (a header and one record) with
 * global rank 2e7, and its neighbours */
static void test_rank_bounds(void)
{
    mfile_t f;
    head(&f, 0x10, 2, 0, 20000000, -1);
    allreduce(&f, 0, 1024, T0);
    CHECK(sizeof f.h + f.n * sizeof f.r[0] == 384);
    refused(&f, "global rank 20000000 (parbench reads 0 to 1048575)");
    head(&f, 0x10, 2, 0, INT32_MAX, -1);
    refused(&f, "global rank 2147483647");
    head(&f, 0x10, 2, 0, 8, 8); /* ranks 0..7 */
    refused(&f, "global rank 8 in a job of 8 ranks");
    head(&f, 0x10, 2, 0, 0, 20000000);
    refused(&f, "a job of 20000000 ranks");
    head(&f, 0x10, 20000000, 0, 0, 2);
    refused(&f, "a communicator of 20000000 ranks");
    head(&f, 0x10, 2, 2, 0, 2);
    refused(&f, "communicator rank 2 of 2");
    head(&f, 0x10, 2, 0, 0, 2);
    f.h.every = 0;
    refused(&f, "one operation in 0 recorded");
    /* each file bounded alone, the two together: a rank past the size
     * another file declares, and two sizes */
    mfile_t a, b;
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    head(&a, 0x10, 2, 0, 0, 2);
    head(&b, 0x10, 2, 1, 5, -1);
    CHECK(join2(&a, &b, &jp, &err) == PB_EINPUT &&
          strcmp(err.msg, "r1.bin: global rank 5, but r0.bin: a job of 2 ranks") == 0);
    pb_jobprof_free(&jp);
    head(&b, 0x10, 2, 1, 1, 4);
    err = (pb_err_t){0, ""};
    CHECK(join2(&a, &b, &jp, &err) == PB_EINPUT &&
          strcmp(err.msg, "r0.bin: a job of 2 ranks, but r1.bin: of 4 (files of two jobs?)") == 0);
    pb_jobprof_free(&jp);
}

/* item 8: a 2-rank communicator, 10 all-reduces (seq 0-9); operation k
 * issued by rank 0 at T0 + k ms and by rank 1 200 us later, so rank 1 is
 * last in every one by exactly 200 us.  Rank 1's record of seq 3 is
 * missing (dropped).  Joined by seq: 9 collectives matched, each with
 * rank 1 last by 200 us, seq 3 unmatched.  Joined by place (the bug):
 * rank 1's records of seq 4-9 meet rank 0's of 3-8, issued 1 ms + 200 us
 * apart - lags of 1.2 ms. */
static void test_join_by_seq(void)
{
    mfile_t a, b;
    head(&a, 0x10, 2, 0, 0, 2);
    head(&b, 0x10, 2, 1, 1, 2);
    for (uint64_t k = 0; k < 10; k++) {
        allreduce(&a, k, 1024, T0 + (int64_t)k * 1000000);
        if (k != 3)
            allreduce(&b, k, 1024, T0 + (int64_t)k * 1000000 + 200000);
    }
    pb_jobprof_t jp;
    pb_jp_insts_t in;
    pb_jp_strag_t s;
    pb_err_t err = {0, ""};
    CHECK(join2(&a, &b, &jp, &err) == PB_OK && jp.nops == 19);
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK && in.n == 10);
    CHECK(pb_jp_strag_find(&jp, &in, 100000, &s, &err) == PB_OK);
    CHECK(s.matched == 9 && s.unmatched == 1 && s.late == 9 && s.nranks == 1);
    if (s.nranks == 1)
        CHECK(s.ranks[0].rank == 1 && s.ranks[0].last == 9 && s.ranks[0].lag_sum_ns == 9 * 200000);
    for (int i = 0; i < s.nworst; i++)
        CHECK(s.worst[i].rank == 1 && s.worst[i].lag_ns == 200000);
    for (size_t i = 0; i < in.n; i++) /* the incomplete one is seq 3 */
        CHECK(in.v[i].nrec == (in.v[i].seq == 3 ? 1 : 2));
    pb_jp_strag_free(&s);
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
}

/* item 11: rank 1's record of seq 1 ends before it starts (kernel end
 * 1 ns before its start): left out and counted, seq 1 then incomplete;
 * rank 1 recorded seq 2 with 512 elements where rank 0 has 1024: one
 * collective whose members disagree, named by its two records. */
static void test_impossible_and_sizes(void)
{
    mfile_t a, b;
    head(&a, 0x10, 2, 0, 0, 2);
    head(&b, 0x10, 2, 1, 1, 2);
    for (uint64_t k = 0; k < 4; k++) {
        allreduce(&a, k, 1024, T0 + (int64_t)k * 1000000);
        pb_prof_rec_t *r = allreduce(&b, k, k == 2 ? 512 : 1024, T0 + (int64_t)k * 1000000);
        if (k == 1)
            r->t_k1 = r->t_k0 - 1;
    }
    pb_jobprof_t jp;
    pb_jp_insts_t in;
    pb_err_t err = {0, ""};
    CHECK(join2(&a, &b, &jp, &err) == PB_OK);
    CHECK(jp.nops == 7 && jp.impossible == 1 && jp.truncated == 0);
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK && in.n == 4);
    pb_jp_agree_t ag;
    pb_jp_agree_find(&jp, &in, &ag);
    CHECK(ag.differ == 1);
    if (ag.differ == 1) {
        CHECK(in.v[ag.inst].seq == 2);
        CHECK(jp.ops[ag.op_a].count + jp.ops[ag.op_b].count == 1024 + 512);
    }
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
    /* a GPU end before its start, and an enqueue's: left out too */
    b.r[0].g0 = 5000;
    b.r[0].g1 = 4000;
    b.r[3].t_enq1 = b.r[3].t_enq0 - 1;
    CHECK(join2(&a, &b, &jp, &err) == PB_OK && jp.impossible == 3 && jp.nops == 5);
    pb_jobprof_free(&jp);
}

/* A CUDA graph's collectives keep one number (NCCL counts seqNumber only
 * for plans it launches): each rank's second AllReduce numbered 7 joins
 * the other's second, as 7 + 2^48; rank 1 issues each 300 us after rank
 * 0, so both are matched with rank 1 last by 300 us. */
static void test_repeats(void)
{
    mfile_t a, b;
    head(&a, 0x10, 2, 0, 0, 2);
    head(&b, 0x10, 2, 1, 1, 2);
    for (int k = 0; k < 2; k++) {
        allreduce(&a, 7, 1024, T0 + k * 1000000);
        allreduce(&b, 7, 1024, T0 + k * 1000000 + 300000);
    }
    pb_jobprof_t jp;
    pb_jp_insts_t in;
    pb_jp_strag_t s;
    pb_err_t err = {0, ""};
    CHECK(join2(&a, &b, &jp, &err) == PB_OK && jp.nops == 4);
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK && in.n == 2);
    if (in.n == 2)
        CHECK(in.v[0].seq == 7 && in.v[1].seq == 7 + (1ull << 48) && in.v[0].nrec == 2 &&
              in.v[1].nrec == 2);
    CHECK(pb_jp_strag_find(&jp, &in, 100000, &s, &err) == PB_OK);
    CHECK(s.matched == 2 && s.late == 2 && s.nworst == 2 && s.worst[0].lag_ns == 300000 &&
          s.worst[1].lag_ns == 300000);
    pb_jp_strag_free(&s);
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
}

/* item 11: what cannot be joined or summed is refused, naming the file */
static void test_refused_records(void)
{
    mfile_t f;
    head(&f, 0x10, 2, 0, 0, 2);
    snprintf(allreduce(&f, 0, 1024, T0)->func, sizeof f.r[0].func, "Send");
    refused(&f, "record 1: a collective record of Send");
    head(&f, 0x10, 2, 0, 0, 2);
    allreduce(&f, 0, 1024, T0)->seq = 1ull << 48;
    refused(&f, "record 1: number 281474976710656, past 2^48");
    head(&f, 0x10, 2, 0, 0, 2);
    allreduce(&f, 0, 1024, T0)->count = (1ull << 62) + 1;
    refused(&f, "record 1: count 4611686018427387905, past 2^62");
    head(&f, 0x10, 2, 0, 0, 2);
    allreduce(&f, 0, 1024, T0);
    allreduce(&f, 1, 1024, T0)->t_k1 = 1ull << 63;
    refused(&f, "record 2: kernel end 9223372036854775808, past 2^62");
    /* 2^61 floats are 2^63 bytes: within 2^62 as a count, past it as a
     * size, refused when the files are joined */
    mfile_t a, b;
    head(&a, 0x10, 2, 0, 0, 2);
    head(&b, 0x10, 2, 1, 1, 2);
    allreduce(&a, 0, 1ull << 61, T0);
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    CHECK(join2(&a, &b, &jp, &err) == PB_EINPUT &&
          strcmp(err.msg, "r0.bin: AllReduce of 2305843009213693952 elements of ncclFloat32 on 2 "
                          "ranks: more than 2^62 bytes") == 0);
    pb_jobprof_free(&jp);
}

/* ---- issue 49 follow-up: processes that hold several ranks ---- */

/* The files read and joined into jp; the first failure's code. */
static int join_n(const mfile_t *f, int n, pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jp_plugin_t pl;
    memset(&pl, 0, sizeof pl);
    pb_jobprof_init(jp);
    int rc = PB_OK;
    for (int i = 0; i < n && rc == PB_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d.bin", i);
        rc = read1(&pl, name, &f[i], err);
    }
    if (rc == PB_OK)
        rc = pb_jp_plugin_join(&pl, jp, err);
    pb_jp_plugin_free(&pl);
    return rc;
}

/* jp_synth.h's tp 2 x dp 2 job (2 steps of 2 micro-batches, no pp, no
 * cp) in 2 processes of 2 GPUs each: process 1000 holds ranks 0 and 1
 * (devices 0, 1), process 1001 ranks 2 and 3; each file's header carries
 * the launcher's rank of its process (0 or 1, of 2), as mpirun's for
 * nccl-tests -g 2.  Rank 3 issues every operation 2 ms late. */
static int load_gpus(int no_world, pb_jobprof_t *jp, pb_err_t *err)
{
    char dir[] = "/tmp/pb_jp_gpus_XXXXXX";
    if (mkdtemp(dir) == NULL)
        return -1;
    jp_synth_t s;
    jp_synth_defaults(&s);
    s.tp = s.dp = 2;
    s.per_proc = 2;
    s.no_world = no_world;
    s.straggler = 3;
    s.straggler_ns = 2000000;
    const char *paths[] = {dir};
    pb_jobprof_init(jp);
    int rc = jp_synth_write(dir, &s) == 0 ? pb_jp_load(paths, 1, jp, err) : -1;
    jp_synth_remove(dir);
    return rc;
}

/* The communicator of exactly these members, in this order; -1. */
static int comm_of(const pb_jobprof_t *jp, const int *m, int n)
{
    for (size_t i = 0; i < jp->ncomms; i++) {
        int same = jp->comms[i].nranks == n;
        for (int k = 0; k < n && same; k++)
            same = jp->comms[i].members[k] == m[k];
        if (same)
            return (int)i;
    }
    return -1;
}

/* The job joined as 4 ranks with Megatron's groups (tp fastest): TP {0,1}
 * {2,3}, DP {0,2} {1,3}, the world {0,1,2,3}.  Before the fix each
 * process was one rank: a world of 2, TP groups "0 0" and "1 1".  The
 * global ranks come from the world communicator (the launcher's ranks
 * name processes here, not GPUs); without it from (host, pid, device)
 * order, said to be guessed.  Lags, jp_synth.h's timing worked by hand:
 * rank r issues at slot + r us, rank 3 2000 us more: on TP {2,3} last by
 * 2003 - 2 = 2001 us (16 all-reduces: 2 steps x 2 micro x 4), on DP {1,3}
 * by 2003 - 1 = 2002 us (2 steps x reduce-scatter + all-gather), on the
 * world by 2003 - 2 = 2001 us (2 loss all-reduces, rank 2 before it).
 * Matched: 2 TP comms x 16 + 2 DP x 4 + the world's 2 = 42. */
static void test_gpus_per_process(void)
{
    static const int tp0[] = {0, 1}, tp1[] = {2, 3}, dp0[] = {0, 2}, dp1[] = {1, 3};
    static const int all[] = {0, 1, 2, 3};
    for (int no_world = 0; no_world < 2; no_world++) {
        pb_jobprof_t jp;
        pb_jp_insts_t in;
        pb_jp_strag_t s;
        pb_err_t err = {0, ""};
        int rc = load_gpus(no_world, &jp, &err);
        if (rc != PB_OK)
            fprintf(stderr, "load: %d %s\n", rc, err.msg);
        CHECK(rc == PB_OK && jp.world == 4 && jp.ranks_guessed == no_world);
        CHECK(comm_of(&jp, tp0, 2) >= 0 && comm_of(&jp, tp1, 2) >= 0);
        CHECK(comm_of(&jp, dp0, 2) >= 0 && comm_of(&jp, dp1, 2) >= 0);
        CHECK(jp.ncomms == (no_world ? 4u : 5u) && (no_world || comm_of(&jp, all, 4) >= 0));
        CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK);
        CHECK(pb_jp_strag_find(&jp, &in, 100000, &s, &err) == PB_OK);
        int nw = no_world ? 0 : 2; /* the world's all-reduces */
        CHECK(s.matched == 40u + (uint64_t)nw && s.unmatched == 0 && s.late == 20u + (uint64_t)nw);
        CHECK(s.nranks == 1);
        if (s.nranks == 1) {
            const pb_jp_rank_late_t *r = &s.ranks[0];
            CHECK(r->rank == 3 && r->last == 20u + (uint64_t)nw);
            CHECK(r->lag_sum_ns == (16 + nw) * 2001000LL + 4 * 2002000LL);
        }
        CHECK(s.nworst > 0 && s.worst[0].rank == 3 && s.worst[0].lag_ns == 2002000);
        pb_jp_strag_free(&s);
        pb_jp_insts_free(&in);
        pb_jobprof_free(&jp);
    }
}

/* What cannot be one job is refused, naming the files:
 * - one process (node0 pid 100) holding ranks 0 and 1 of communicator
 *   0x10 with no device recorded: its two ranks cannot be told apart
 *   (before the fix both became global rank 0, joined as "0 0");
 * - a file naming no device in a process whose files name devices 0 and
 *   1: which rank's it is cannot be told (before: a third rank);
 * - two processes both claiming global rank 0 (the launchers' ranks).
 * And what can is joined: a file naming no device in a process whose
 * files name one is that device's. */
static void test_units_refused(void)
{
    mfile_t f[3];
    pb_jobprof_t jp;
    pb_err_t err = {0, ""};
    head(&f[0], 0x10, 2, 0, 0, 1);
    head(&f[1], 0x10, 2, 1, 0, 1); /* global rank 0's process, its other GPU */
    CHECK(join_n(f, 2, &jp, &err) == PB_EINPUT &&
          strcmp(err.msg, "r1.bin: communicator 0000000000000010 ranks 0 and 1 both in node0 pid "
                          "100, whose files name no device to tell its ranks apart (recorded "
                          "before profiler format 3?)") == 0);
    pb_jobprof_free(&jp);
    f[0].h.device = 0;
    f[1].h.device = 1;
    head(&f[2], 0x20, 2, 0, 0, 1); /* its process's third file, no device */
    err = (pb_err_t){0, ""};
    CHECK(join_n(f, 3, &jp, &err) == PB_EINPUT &&
          strcmp(err.msg, "r2.bin: no device recorded, but r0.bin and r1.bin of its process "
                          "(node0 pid 100) name devices 0 and 1: whose rank's file it is cannot "
                          "be told") == 0);
    pb_jobprof_free(&jp);
    /* one GPU per process: the file without a device is device 0's, so
     * process 100 is one rank, 0, and process 101 rank 1 */
    head(&f[0], 0x10, 2, 0, 0, 2);
    head(&f[1], 0x10, 2, 1, 1, 2);
    head(&f[2], 0x20, 1, 0, 0, 2);
    f[0].h.device = 0;
    f[1].h.device = 0;
    err = (pb_err_t){0, ""};
    CHECK(join_n(f, 3, &jp, &err) == PB_OK && jp.world == 2 && !jp.ranks_guessed);
    pb_jobprof_free(&jp);
    head(&f[1], 0x10, 2, 1, 0, 2);
    f[1].h.pid = 101;
    err = (pb_err_t){0, ""};
    CHECK(join_n(f, 2, &jp, &err) == PB_EINPUT &&
          strcmp(err.msg, "r0.bin and r1.bin: two processes (node0 pid 100, node0 pid 101) both "
                          "global rank 0") == 0);
    pb_jobprof_free(&jp);
}

/* The header's device: a format 2 file's bytes there were padding (0),
 * read as -1, not recorded; one below -1 is a damaged file.  And API v3's
 * rank, now taken from an operation, with no communicator size: ranks 0
 * and 3 of a 4-rank communicator recorded, ranks 1 and 2 not - sized by
 * its highest rank (before: by its 2 files, and rank 3 refused). */
static void test_device_and_v3_rank(void)
{
    mfile_t f[2];
    pb_jp_plugin_t pl;
    pb_err_t err = {0, ""};
    head(&f[0], 0x10, 2, 0, 0, 2);
    f[0].h.version = 2;
    f[0].h.device = 0;
    memset(&pl, 0, sizeof pl);
    CHECK(read1(&pl, "old.bin", &f[0], &err) == PB_OK && pl.n == 1 && pl.files[0].head.device == -1);
    pb_jp_plugin_free(&pl);
    f[0].h.version = PB_PROF_VERSION;
    f[0].h.device = -2;
    refused(&f[0], "bad.bin: device -2");
    pb_jobprof_t jp;
    head(&f[0], 0x30, -1, 0, 0, 4);
    head(&f[1], 0x30, -1, 3, 3, 4);
    f[0].h.api = f[1].h.api = 3;
    CHECK(join_n(f, 2, &jp, &err) == PB_OK && jp.ncomms == 1);
    if (jp.ncomms == 1)
        CHECK(jp.comms[0].nranks == 4 && jp.comms[0].members[0] == 0 &&
              jp.comms[0].members[3] == 3 && jp.comms[0].members[1] == -1);
    pb_jobprof_free(&jp);
    head(&f[0], 0x30, -1, 1 << 20, 0, 4); /* a rank no size bounds */
    refused(&f[0], "bad.bin: communicator rank 1048576 (parbench reads 0 to 1048575)");
}

int main(void)
{
    test_rank_bounds();
    test_join_by_seq();
    test_impossible_and_sizes();
    test_repeats();
    test_refused_records();
    test_gpus_per_process();
    test_units_refused();
    test_device_and_v3_rank();
    PB_TEST_END("unit_jp_plugin");
}
