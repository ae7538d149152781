/* parbench import: the log as it comes off a cluster, built here in memory.
 * Launcher prefixes in every sourced form (reports/pb_import_lines.c says
 * where each is from), lines of any length up to the 1 MiB bound, a NUL
 * byte, a run of 300 hosts and 1,200 groups, and which failure a failed
 * nccl-tests run is named by.  Every expected number is the log's own:
 * OSU's latency is the row's time, algbw = bytes / time / 1e3 GB/s. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"
#include "reports/pb_import.h"

static int import(const char *name, const char *text, size_t len, int partial, int world,
                  pb_import_out_t *out, pb_err_t *err)
{
    pb_import_opts_t o = {PB_IMPORT_AUTO, partial, world, 0, 0, NULL};
    memset(out, 0, sizeof *out);
    pb_err_clear(err);
    return pb_import_buffer(name, text, len, &o, out, err);
}

/* A growing text, for the generated logs. */
typedef struct text {
    char *s;
    size_t n, cap;
} text_t;

static void add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0)
        abort();
    if (t->n + (size_t)k + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)k + 1);
        t->s = realloc(t->s, t->cap);
        if (t->s == NULL)
            abort();
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    t->n += (size_t)k;
}

/* osu_latency's four lines, each after `prefix` (a launcher's) */
static void osu_latency(text_t *t, const char *prefix)
{
    add(t, "%s# OSU MPI Latency Test v7.3\n", prefix);
    add(t, "%s# Size          Latency (us)\n", prefix);
    add(t, "%s8                       1.52\n", prefix);
    add(t, "%s1024                    2.50\n", prefix);
}

/* Each launcher form seen in the launchers' sources, on every line. */
static void launcher_forms(void)
{
    static const char *const forms[] = {
        "[1,0]<stdout>:",                                      /* ORTE --tag-output */
        "Wed Dec  2 05:14:13 2026[1,0]<stdout>:",              /* ... --timestamp-output */
        "[1,0]<stdout>: ",                                     /* PMIx --output tag */
        "[1,0][node-a:3100]<stdout>: ",                        /* tag-detailed */
        "[prterun-node-a-3099@1,0]<stdout>: ",                 /* tag-fullname */
        "[0]<stdout>: ",                                       /* rank */
        "[Wed Dec  2 05:14:13 2026][1,0]<stdout>: ",           /* timestamp,tag */
        "0: ", " 0: ", "P1 0: ",                               /* srun --label */
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        text_t t = {0};
        osu_latency(&t, forms[i]);
        pb_import_out_t o;
        pb_err_t err;
        int code = import("lat.txt", t.s, t.n, 0, 0, &o, &err);
        CHECK(code == PB_OK && o.n == 2);
        if (code != PB_OK || o.n != 2)
            fprintf(stderr, "  form %zu '%s': %s\n", i, forms[i], err.msg);
        else
            CHECK(o.rows[1].bytes == 1024 && o.rows[1].time_us_median == 2.50);
        pb_import_out_free(&o);
        free(t.s);
    }
}

/* A prefix is the log's when its '#' lines carry it: here they carry none,
 * so a stray line shaped like a label or a tag is left as it is.  (A
 * guard: before launcher prefixes were read, nothing was stripped.) */
static void launcher_consistent(void)
{
    text_t t = {0};
    add(&t, "3: a line of the job script\n[1,2]<stderr>:a warning\n");
    osu_latency(&t, "");
    pb_import_out_t o;
    pb_err_t err;
    CHECK(import("lat.txt", t.s, t.n, 0, 0, &o, &err) == PB_OK && o.n == 2);
    pb_import_out_free(&o);
    free(t.s);
    /* the job script printed into the log, unlabelled: its "#!" and
     * "#SBATCH" lines are no tool's, so the 2 labelled '#' lines decide */
    text_t job = {0};
    add(&job, "#!/bin/bash\n");
    for (int i = 0; i < 6; i++)
        add(&job, "#SBATCH --nodes=%d\n", i + 1);
    osu_latency(&job, "0: ");
    CHECK(import("lat.txt", job.s, job.n, 0, 0, &o, &err) == PB_OK && o.n == 2);
    pb_import_out_free(&o);
    free(job.s);
}

/* No silent cut: a value that starts at column 4093 reads whole (the old
 * 4,096-byte token buffer kept "12" of "12.5"); a line over 1 MiB is an
 * error naming file:line, or with --partial a skipped line. */
static void long_lines(void)
{
    text_t t = {0};
    add(&t, "# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n1024%4089s12.5\n", "");
    pb_import_out_t o;
    pb_err_t err;
    CHECK(import("wide.txt", t.s, t.n, 0, 0, &o, &err) == PB_OK && o.n == 1);
    if (o.n == 1)
        CHECK(o.rows[0].time_us_median == 12.5);
    pb_import_out_free(&o);
    free(t.s);
    text_t big = {0};
    add(&big, "# OSU MPI Latency Test v7.3\n#%1048576s\n", "x"); /* 1,048,577 characters */
    add(&big, "# Size          Latency (us)\n8  1.52\n");
    CHECK(import("big.txt", big.s, big.n, 0, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "big.txt:2: line longer than 1048576 characters") != NULL);
    pb_import_out_free(&o);
    CHECK(import("big.txt", big.s, big.n, 1, 0, &o, &err) == PB_OK);
    CHECK(o.n == 1 && o.skipped == 1 && strstr(o.first_skip, "big.txt:2: line longer") != NULL);
    pb_import_out_free(&o);
    free(big.s);
    /* a NUL byte would end the line where C reads it: refused, not cut */
    const char nul[] = "# OSU MPI Latency Test v7.3\n# Size  Latency (us)\n8  1.5\0 x\n16  2.0\n";
    CHECK(import("nul.txt", nul, sizeof nul - 1, 0, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "nul.txt:3: a NUL byte in the line") != NULL);
    pb_import_out_free(&o);
}

/* 2,400 ranks, 8 a host (300 hosts), NCCL_TESTS_SPLIT groups of 2 (1,200
 * groups): past the old fixed 256 hosts and 1,024 groups, which made this
 * 256 nodes and, 2400 % 1024 != 0, groups of 2,400. */
static void many_hosts(void)
{
    text_t t = {0};
    add(&t, "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803\n"
            "# Collective test starting: all_reduce_perf\n"
            "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup "
            "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n#\n"
            "# Using devices\n");
    for (int r = 0; r < 2400; r++)
        add(&t, "#  Rank %4d Group %4d Pid %6d on   host%03d device %2d [0000:%02x:00] "
                "NVIDIA H100 80GB HBM3\n", r, r / 2, 10000 + r, r / 8, r % 8, 0x10 + r % 8);
    add(&t, "#\n#       size         count      type   redop    root     time   algbw   busbw "
            "#wrong     time   algbw   busbw #wrong\n"
            "     1048576        262144     float     sum      -1    30.00   34.95   34.95"
            "       0    29.50   35.54   35.54       0\n");
    pb_import_out_t o;
    pb_err_t err;
    CHECK(import("split.log", t.s, t.n, 0, 0, &o, &err) == PB_OK && o.n == 2);
    if (o.n == 2) {
        const pb_result_t *r = &o.rows[0];
        CHECK(r->world == 2400 && r->nodes == 300 && r->group_size == 2);
        CHECK(strcmp(r->host, "host000") == 0);
        CHECK_NEAR(r->busbw_gbps, 1048576 / 30.0 / 1e3 * 1.0, 1e-12); /* 2(2-1)/2 = 1 */
    }
    pb_import_out_free(&o);
    free(t.s);
}

/* Which failure is named: the cause (NCCL, CUDA, timeout) before a trace
 * line that came first; none of the run's rows: still refused, with it. */
static void failure_named(void)
{
    const char log[] = "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803\n"
                       "# Collective test starting: all_reduce_perf\n"
                       " .. node-a pid 5101: Test failure common.cu:1091\n"
                       "node-b: Test timeout (300s) common.cu:523\n";
    pb_import_out_t o;
    pb_err_t err;
    CHECK(import("t.log", log, sizeof log - 1, 0, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "t.log:4: the run failed: node-b: Test timeout (300s) common.cu:523 "
                          "(--partial keeps the rows before it)") != NULL);
    pb_import_out_free(&o);
    CHECK(import("t.log", log, sizeof log - 1, 1, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "t.log: no result rows found in this nccl-tests log; the run failed: "
                          "t.log:4: node-b: Test timeout (300s) common.cu:523") != NULL);
    pb_import_out_free(&o);
}

int main(void)
{
    launcher_forms();
    launcher_consistent();
    long_lines();
    many_hosts();
    failure_named();
    PB_TEST_END("import_lines");
}
