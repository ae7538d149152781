/* test_jp_load.c - a recorded job read back: the NCCL profiler plugin's
 * files of a tp2 x dp2 x pp2 job (tests/unit/jp_synth.h writes them as the
 * plugin does) joined into communicators of global ranks, the ops CSV's
 * round trip, and the refusals.
 *
 * Every expected number is worked from jp_synth.h's construction: with
 * Megatron's order (tp fastest, then dp, then pp) on 8 ranks, TP groups
 * are {0,1} {2,3} {4,5} {6,7}, DP groups stride 2: {0,2} {1,3} {4,6}
 * {5,7}, PP groups stride 4: {0,4} {1,5} {2,6} {3,7}, and one world
 * group: 13 communicators.  Per rank and step (2 micro-batches): TP 2 x 2
 * x 2 = 8 AllReduce, PP 2 per micro-batch (forward and backward, each a
 * Send or a Recv: stage 0 sends forward and receives backward, stage 1
 * the opposite) = 4, DP 2 (ReduceScatter, AllGather), world 1: 15; over 2
 * steps and 8 ranks 240 operations. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_test.h"
#include "jobprof/pb_jobprof.h"
#include "jobprof/pb_jp_csv.h"
#include "jobprof/pb_jp_ranks.h"
#include "profiler/pb_prof_rec.h"
#include "unit/jp_synth.h"

/* The communicator holding global rank g whose members are {a, b}. */
static const pb_jcomm_t *comm_with(const pb_jobprof_t *jp, int a, int b)
{
    for (size_t i = 0; i < jp->ncomms; i++) {
        const pb_jcomm_t *c = &jp->comms[i];
        if (c->nranks == 2 && c->members[0] == a && c->members[1] == b)
            return c;
    }
    return NULL;
}

static size_t count_ops(const pb_jobprof_t *jp, int rank, const pb_jcomm_t *c, const char *func)
{
    size_t n = 0;
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        n += o->rank == rank && (c == NULL || &jp->comms[o->comm] == c) &&
             (func == NULL || strcmp(o->func, func) == 0);
    }
    return n;
}

static void check_job(const pb_jobprof_t *jp, int ranks_known)
{
    CHECK(jp->world == 8);
    CHECK(jp->ncomms == 13);
    CHECK(jp->nops == 240);
    const pb_jcomm_t *tp = comm_with(jp, 4, 5), *dp = comm_with(jp, 5, 7), *pp = comm_with(jp, 1, 5);
    CHECK(tp && dp && pp);
    if (!tp || !dp || !pp)
        return;
    CHECK(count_ops(jp, 5, tp, "AllReduce") == 16);
    CHECK(count_ops(jp, 5, dp, "ReduceScatter") == 2 && count_ops(jp, 5, dp, "AllGather") == 2);
    CHECK(count_ops(jp, 5, pp, "Recv") == 4 && count_ops(jp, 5, pp, "Send") == 4);
    CHECK(count_ops(jp, 1, pp, "Send") == 4 && count_ops(jp, 1, pp, NULL) == 8);
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        const pb_jcomm_t *c = &jp->comms[o->comm];
        CHECK(o->known);
        /* nccl-tests' sizes: TP 8 MiB, DP 64 MiB (count x 2 ranks x 2 B),
         * PP 4 MiB, the loss 4 B */
        if (c == tp)
            CHECK(o->coll == PB_ALLREDUCE && o->bytes == 8u << 20 && o->dtype == PB_BF16);
        if (c == dp)
            CHECK(o->bytes == 64u << 20 && o->count == (64u << 20) / 4);
        if (c == pp)
            CHECK(o->coll == PB_SENDRECV && o->bytes == 4u << 20 && o->peer == (o->rank == 5 ? 0 : 1));
        if (c->nranks == 8)
            CHECK(o->coll == PB_ALLREDUCE && o->bytes == 4 && o->dtype == PB_F32);
        /* runs bytes / 100 GB/s + 10 us, from its last member's issue */
        if (c == tp && ranks_known)
            CHECK(o->t_end_ns - o->t_start_ns == (int64_t)((double)(8u << 20) / 100.0) + 10000 &&
                  o->gpu_ns == o->t_end_ns - o->t_start_ns);
    }
    /* seq: each rank's operations on a communicator numbered from 0 in
     * issue order */
    size_t seen = 0;
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].rank == 5 && &jp->comms[jp->ops[i].comm] == tp)
            seen |= (size_t)1 << jp->ops[i].seq;
    CHECK(seen == 0xffff);
}

static void synth(const char *dir, int api)
{
    jp_synth_t s;
    jp_synth_defaults(&s);
    s.tp = s.dp = s.pp = 2;
    s.api = api;
    CHECK(jp_synth_write(dir, &s) == 0);
}

static int load1(const char *path, pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jobprof_init(jp);
    pb_err_clear(err);
    return pb_jp_load(&path, 1, jp, err);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void refusals(const char *dir, const char *csv)
{
    pb_jobprof_t jp;
    pb_err_t err;
    char p[512];
    snprintf(p, sizeof p, "%s/junk.json", dir);
    write_text(p, "[1, 2, 3]\n");
    CHECK(load1(p, &jp, &err) == PB_EINPUT && strstr(err.msg, "neither") != NULL);
    pb_jobprof_free(&jp);
    remove(p);
    snprintf(p, sizeof p, "%s/calib.csv", dir);
    CHECK(load1(p, &jp, &err) == PB_EINPUT && strstr(err.msg, "neither") != NULL);
    pb_jobprof_free(&jp);
    snprintf(p, sizeof p, "%s/parbench-prof-short.bin", dir);
    write_text(p, "PBPROF01 too short");
    CHECK(load1(p, &jp, &err) == PB_EINPUT && strstr(err.msg, "not a parbench profiler") != NULL);
    pb_jobprof_free(&jp);
    remove(p);
    CHECK(load1("/nonexistent/parbench", &jp, &err) == PB_EINPUT && strstr(err.msg, "cannot read"));
    pb_jobprof_free(&jp);
    snprintf(p, sizeof p, "%s/empty", dir);
    CHECK(mkdir(p, 0700) == 0);
    CHECK(load1(p, &jp, &err) == PB_EINPUT && strstr(err.msg, "no recording") != NULL);
    pb_jobprof_free(&jp);
    CHECK(rmdir(p) == 0);
    /* a CSV whose row names a communicator of another size than before */
    snprintf(p, sizeof p, "%s/bad.csv", dir);
    FILE *in = fopen(csv, "r"), *out = fopen(p, "w");
    char line[1024];
    int n = 0;
    while (in && out && fgets(line, sizeof line, in) && n < 3) {
        if (n++ == 2) { /* world,every,rank,comm_id,comm_name,comm_size: the size made 3 */
            char *c = line;
            for (int k = 0; k < 5 && c; k++)
                c = strchr(c + 1, ',');
            if (c)
                c[1] = '3';
        }
        fputs(line, out);
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    CHECK(load1(p, &jp, &err) == PB_EINPUT && strstr(err.msg, "bad.csv:3") != NULL);
    pb_jobprof_free(&jp);
    remove(p);
    /* mixing two recorders */
    const char *two[2] = {csv, dir};
    pb_jobprof_init(&jp);
    pb_err_clear(&err);
    CHECK(pb_jp_load(two, 2, &jp, &err) == PB_EINPUT && strstr(err.msg, "give one recording"));
    pb_jobprof_free(&jp);
}

/* Issue 49, item 11: a plugin recording without one rank's files (a
 * node's left behind): the world its headers declare, 8, holds a rank
 * that issued no record, and the loader's caller can say which. */
static void missing_rank(const char *dir)
{
    DIR *d = opendir(dir);
    char p[4096];
    int removed = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "parbench-prof-", 14) != 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        pb_prof_head_t h;
        FILE *f = fopen(p, "rb");
        int five = f && fread(&h, sizeof h, 1, f) == 1 && h.world_rank == 5;
        if (f)
            fclose(f);
        if (five && remove(p) == 0)
            removed++;
    }
    if (d)
        closedir(d);
    CHECK(removed == 4); /* its TP, DP, PP and world communicators' */
    pb_jobprof_t jp;
    pb_err_t err;
    CHECK(load1(dir, &jp, &err) == PB_OK && jp.world == 8);
    char buf[32];
    CHECK(pb_jp_missing_ranks(&jp, buf, sizeof buf) == 1 && strcmp(buf, "5") == 0);
    pb_jobprof_free(&jp);
}

int main(void)
{
    char dir[] = "/tmp/pb-jp-load-XXXXXX", dir3[] = "/tmp/pb-jp-load3-XXXXXX";
    CHECK(mkdtemp(dir) != NULL && mkdtemp(dir3) != NULL);
    synth(dir, 5);
    synth(dir3, 3);
    pb_jobprof_t jp, back;
    pb_err_t err;
    /* a file beside the records that is no recording (a calibration) is
     * left alone in a directory; named alone it is refused (refusals) */
    char other[512];
    snprintf(other, sizeof other, "%s/calib.csv", dir);
    write_text(other, "collective,bytes\nallreduce,8\n");
    CHECK(load1(dir, &jp, &err) == PB_OK);
    CHECK(strcmp(jp.source, "nccl-plugin") == 0 && !jp.ranks_guessed && jp.every == 1);
    check_job(&jp, 1);
    /* the CSV round trip holds every field */
    char csv[512];
    snprintf(csv, sizeof csv, "%s.csv", dir);
    CHECK(pb_jp_csv_write(csv, &jp, &err) == PB_OK);
    CHECK(load1(csv, &back, &err) == PB_OK);
    check_job(&back, 1);
    for (size_t i = 0; i < jp.nops && i < back.nops; i++) {
        const pb_jop_t *a = &jp.ops[i], *b = &back.ops[i];
        CHECK(jp.comms[a->comm].id == back.comms[b->comm].id);
        CHECK(a->rank == b->rank && a->kind == b->kind && a->known == b->known &&
              a->coll == b->coll && a->dtype == b->dtype && a->count == b->count &&
              a->bytes == b->bytes && a->peer == b->peer && a->seq == b->seq &&
              a->t_issue_ns == b->t_issue_ns && a->t_start_ns == b->t_start_ns &&
              a->t_end_ns == b->t_end_ns && a->gpu_ns == b->gpu_ns &&
              a->nchannels == b->nchannels && !strcmp(a->func, b->func) &&
              !strcmp(a->dtype_name, b->dtype_name) && !strcmp(a->algo, b->algo) &&
              !strcmp(a->proto, b->proto));
    }
    pb_jobprof_free(&back);
    pb_jobprof_free(&jp);
    /* API v3 records no communicator ranks: members come in global rank
     * order, the sizes from the files */
    CHECK(load1(dir3, &jp, &err) == PB_OK);
    check_job(&jp, 1);
    pb_jobprof_free(&jp);
    refusals(dir, csv);
    remove(csv);
    missing_rank(dir);
    jp_synth_remove(dir);
    jp_synth_remove(dir3);
    PB_TEST_END("test_jp_load");
}
