/* Issue 50: logs read as meant.  The fixtures of tests/fixtures/import/
 * issue50 (their README names each one's print formats, from
 * NVIDIA/nccl-tests and OMB's source): a failed data check refused, the
 * first nccl-tests format read, the average bus bandwidth over every row
 * nccl-tests counted, the real reason under --partial, --op, and the
 * placement a log does not say left unknown unless --nodes or --per-node
 * says it.  Every expected value is read off the fixture's text. */
#include <string.h>

#include "pb_test.h"
#include "reports/pb_import.h"

#define DIR PB_SOURCE_DIR "/tests/fixtures/import/"
#define I50 DIR "issue50/"

static int load_o(const char *file, const pb_import_opts_t *op, pb_import_out_t *out,
                  pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    pb_err_clear(err);
    return pb_import_file(file, op, out, err);
}

static int load(const char *file, int partial, int world, pb_import_out_t *out, pb_err_t *err)
{
    pb_import_opts_t o = {PB_IMPORT_AUTO, partial, world, 0, 0, NULL};
    return load_o(file, &o, out, err);
}

static int has(const char *s, const char *want)
{
    if (strstr(s, want) != NULL)
        return 1;
    fprintf(stderr, "  wanted '%s'\n  in     '%s'\n", want, s);
    return 0;
}

/* Row i of a log that must have n rows (a zeroed stand-in otherwise). */
static const pb_result_t *row_of(const pb_import_out_t *o, size_t n, size_t i)
{
    static const pb_result_t none;
    CHECK(o->n == n);
    return o->n == n && i < n ? &o->rows[i] : &none;
}

/* nccl-tests 2.19.6: #wrong 1.83501e+06 (the "%6g" of 1835008) at 16 MiB
 * out-of-place, line 19, and "Out of bounds values : 7 FAILED": refused
 * (before: imported, exit 0); --partial keeps the 6 rows, that one with
 * its count */
static void wrong_count(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(I50 "nccl-allreduce-wrong.log", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "nccl-allreduce-wrong.log:19: the run failed nccl-tests' data check: "
                       "16777216 B out-of-place, 1.83501e+06 wrong elements; the footer: Out "
                       "of bounds values : 7 FAILED (--partial keeps its rows"));
    pb_import_out_free(&o);
    CHECK(load(I50 "nccl-allreduce-wrong.log", 1, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 6, 2);
    CHECK(r->bytes == 16777216 && r->in_place == 0 && r->wrong == 1835010);
    CHECK(o.rows[3].wrong == 0 && o.rows[0].wrong == 0);
    CHECK(o.failed_check && has(o.failure, "nccl-allreduce-wrong.log:19: 16777216 B"));
    pb_import_out_free(&o);
}

/* nccl-tests of 2022 (8274cb4): "error" is the largest deviation; float
 * on 8 ranks passes up to 1e-5 x 7 = 7e-05 (DeltaMaxValue x (n-1)), so
 * the 4 MiB in-place 2e-07 passes and the 16 and 64 MiB rows' 1e+00 fail
 * (line 18 the first); before: all imported, wrong left empty */
static void error_column(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(I50 "nccl-allreduce-error-failed.log", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "nccl-allreduce-error-failed.log:18: the run failed nccl-tests' data "
                       "check: 16777216 B out-of-place, error 1 past the 7e-05 float allows "
                       "on 8 ranks; the footer: Out of bounds values : 4 FAILED"));
    pb_import_out_free(&o);
    CHECK(load(I50 "nccl-allreduce-error-failed.log", 1, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 8, 3); /* 4 MiB in-place, 2e-07 */
    CHECK(r->bytes == 4194304 && r->in_place == 1 && r->wrong == 0);
    CHECK(o.rows[0].wrong == 0 && o.rows[2].wrong == 0);
    for (size_t i = 4; i < o.n; i++)
        CHECK(o.rows[i].wrong == 1); /* a deviation, no count: 1 */
    CHECK(r->world == 8 && r->nodes == 2 && strcmp(r->link_class, "NET") == 0);
    pb_import_out_free(&o);
}

/* the first nccl-tests (b188a15, 2017): nThread and the footer without
 * '#', "bytes N type op ... res", times in ms; before: "not a log of
 * nccl-tests, OSU or IMB" */
static void first_version(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(I50 "all_reduce_perf-2017-failed.log", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "all_reduce_perf-2017-failed.log:12: the run failed nccl-tests' data "
                       "check: 1048576 B out-of-place, error 1 past the 3e-05 float allows on "
                       "4 ranks; the footer: Out of bounds values : 4 FAILED"));
    pb_import_out_free(&o);
    CHECK(load(I50 "all_reduce_perf-2017-failed.log", 1, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 8, 0); /* 65536: 0.031 ms = 31 us */
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->bytes == 65536 && r->iters == 20);
    CHECK(r->world == 4 && r->nodes == 1 && strcmp(r->host, "dgx1") == 0 && r->wrong == 0);
    CHECK(strcmp(r->redop, "sum") == 0 && strcmp(r->dtype, "float") == 0);
    CHECK_NEAR(r->time_us_median, 31.0, 1e-9);
    CHECK_NEAR(r->busbw_gbps, 65536 / 31.0 / 1e3 * 1.5, 1e-9); /* 3.17 printed */
    CHECK(o.rows[4].wrong == 1 && o.rows[7].wrong == 1);
    /* its footer is read too: 9.0625 = the mean of the 8 busbw printed */
    CHECK(o.have_avg);
    CHECK_NEAR(o.avg_busbw_stated, 9.0625, 1e-12);
    CHECK_NEAR(o.avg_busbw_rows,
               (3.17 + 3.28 + 7.56 + 7.71 + 11.40 + 11.48 + 13.92 + 13.98) / 8, 1e-12);
    pb_import_out_free(&o);
    /* its crash, "NCCL failure FILE:LINE '...'" (src/common.h then), is
     * named as the later "Test NCCL failure" is; before: no rows found */
    const char crash[] =
        "nThread 1 nGpus 4 minBytes 65536 maxBytes 4194304 step: 4(factor) warmup iters: 5 "
        "iters: 20 validation: 1 \n# Using devices\n"
        "#   Rank  0 on       dgx1 device  0 [0x06] Tesla P100-SXM2-16GB\n\n"
        "#      bytes             N    type      op     time  algbw  busbw      res     time  "
        "algbw  busbw      res\n"
        "       65536         16384   float     sum    0.031   2.11   3.17    0e+00    0.030   "
        "2.18   3.28    0e+00\n"
        "      262144         65536   float     sumNCCL failure all_reduce.cu:62 'unhandled "
        "cuda error'\n";
    pb_import_opts_t op = {PB_IMPORT_AUTO, 0, 0, 0, 0, NULL};
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("all_reduce_perf.log", crash, sizeof crash - 1, &op, &o, &err) ==
          PB_EINPUT);
    CHECK(has(err.msg, "all_reduce_perf.log:7: the run failed: 262144 65536 float sumNCCL "
                       "failure all_reduce.cu:62 'unhandled cuda error'"));
    pb_import_out_free(&o);
    /* a NCCL WARN saying "failure" is no failure line */
    const char warn[] = "# nThread 1\n#  size count type redop root time algbw busbw #wrong\n"
                        "h:1:2 [0] NCCL WARN Cuda failure 'out of memory'\n"
                        "1024 256 float sum -1 10.0 0.10 0.18 0\n";
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("all_reduce_perf.log", warn, sizeof warn - 1, &op, &o, &err) ==
          PB_EINPUT); /* no rank lines and 0.18/0.10 tells no world */
    CHECK(has(err.msg, "the world size is unknown"));
    pb_import_out_free(&o);
}

/* all_gather_perf -b 8 on 16 ranks prints 8 B as size 0 (a rank's share
 * rounds to no element); nccl-tests' average counts its busbw 0.00:
 * (0+0 + 0+0 + 0.07+0.07 + 0.80+0.81 + 8.03+8.18) / 10 = 1.796, the
 * footer's; before: the 0-byte row left out, 17.96 / 8 = 2.245 */
static void zero_rows_in_average(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(I50 "all_gather_perf-16r-b8.log", 0, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 8, 0); /* 128 B out-of-place */
    CHECK(r->bytes == 128 && r->world == 16 && r->nodes == 2);
    CHECK(strcmp(r->link_class, "NET") == 0);
    CHECK(o.have_avg);
    CHECK_NEAR(o.avg_busbw_stated, 1.796, 1e-12);
    CHECK_NEAR(o.avg_busbw_rows, 17.96 / 10, 1e-12);
    pb_import_out_free(&o);
}

/* --partial skips a bad line, but not what only an option can say: the
 * real reason, not "no result rows found" (as before) */
static void partial_keeps_reason(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "osu_allreduce-f-v7.4.txt", 1, 0, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "osu_allreduce-f-v7.4.txt:4: OSU logs do not say how many processes "
                       "ran 'OSU MPI Allreduce Latency Test v7.4': give --np N"));
    pb_import_out_free(&o);
    /* 1440 ranks, banner cut: 2(n-1)/n to 2 decimals fits 1439..1441 */
    CHECK(load(I50 "allreduce-1440r-cut.log", 1, 0, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "allreduce-1440r-cut.log:3: the world size is unknown: no '#  Rank' "
                       "lines and the bandwidths do not tell; give --np N"));
    pb_import_out_free(&o);
    CHECK(load(I50 "allreduce-1440r-cut.log", 1, 1440, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 4, 2); /* 536870912 B out-of-place, 3610.50 us */
    CHECK(r->world == 1440 && r->group_size == 1440 && r->bytes == 536870912);
    CHECK_NEAR(r->busbw_gbps, 536870912 / 3610.50 / 1e3 * 2 * 1439 / 1440, 1e-9);
    CHECK(strcmp(r->link_class, PB_IMPORT_LINK_UNKNOWN) == 0 && r->nodes == 0);
    pb_import_out_free(&o);
    /* a line --partial does skip is still named when no row is left */
    const char only[] = "# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)\n8  1.2x\n";
    pb_import_opts_t op = {PB_IMPORT_AUTO, 1, 0, 0, 0, NULL};
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("y.log", only, sizeof only - 1, &op, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "y.log: no result rows found in this osu log; lines skipped (--partial), "
                       "the first: y.log:3: '1.2x' is not a number"));
    pb_import_out_free(&o);
}

/* --op: the collective of a log that names none (before: no flag; the
 * file name or nothing) */
static void op_names_collective(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(I50 "slurm-4711.out", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "slurm-4711.out:9: which collective? no '# Collective test starting' "
                       "line, and the file name names none: give --op"));
    pb_import_out_free(&o);
    pb_import_opts_t op = {PB_IMPORT_AUTO, 1, 0, 0, 0, "allreduce"};
    CHECK(load_o(I50 "slurm-4711.out", &op, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 4, 2); /* 16777216 B out-of-place: 150.40 us */
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->world == 4 && r->nodes == 1);
    CHECK_NEAR(r->busbw_gbps, 16777216 / 150.40 / 1e3 * 1.5, 1e-9); /* 167.33 printed */
    pb_import_out_free(&o);
    /* the log's banner names another: refused, not overridden */
    op.coll = "allgather";
    CHECK(load_o(I50 "nccl-allreduce-wrong.log", &op, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "nccl-allreduce-wrong.log:2: the log names allreduce, --op allgather"));
    pb_import_out_free(&o);
    /* a banner after rows read as --op's starts the log's next run: the
     * cut first run is --op's all-reduce, the second the banner's
     * all-gather (2 ranks of one host: busbw = algbw x 1 and x 1/2) */
    static const char two[] =
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0000:07:00] H100\n"
        "#  Rank  1 Group  0 Pid 2 on a device  1 [0000:0f:00] H100\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "1048576 262144 float sum -1 40.0 26.21 26.21 0 40.0 26.21 26.21 0\n"
        "# Collective test starting: all_gather_perf\n"
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0000:07:00] H100\n"
        "#  Rank  1 Group  0 Pid 2 on a device  1 [0000:0f:00] H100\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "1048576 131072 float none -1 30.0 34.95 17.48 0 30.0 34.95 17.48 0\n";
    op.coll = "allreduce";
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("job.out", two, sizeof two - 1, &op, &o, &err) == PB_OK);
    CHECK(strcmp(row_of(&o, 4, 0)->collective, "allreduce") == 0);
    CHECK(strcmp(row_of(&o, 4, 2)->collective, "allgather") == 0);
    pb_import_out_free(&o);
    /* an OSU table without its title, in a file named for no program */
    const char notitle[] = "# Size       Avg Latency(us)\n1024  12.5\n";
    pb_import_opts_t oo = {PB_IMPORT_AUTO, 0, 4, 1, 0, "allgather"};
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("run7.txt", notitle, sizeof notitle - 1, &oo, &o, &err) == PB_OK);
    r = row_of(&o, 1, 0); /* OSU's all-gather size is a rank's block: 4 x 1024 */
    CHECK(strcmp(r->collective, "allgather") == 0 && r->bytes == 4096 && r->world == 4);
    pb_import_out_free(&o);
}

/* The placement a log does not say stays unknown ('?') unless --nodes or
 * --per-node says it; before: OSU's 128 ranks on 16 nodes were rows of
 * no link class, which calibrate reads as one node */
static void placement(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(I50 "osu_allreduce-16n8g-v7.4.txt", 0, 128, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 5, 3); /* 1048576: 402.16 us */
    CHECK(r->world == 128 && r->nodes == 0 && r->bytes == 1048576);
    CHECK(strcmp(r->link_class, PB_IMPORT_LINK_UNKNOWN) == 0);
    pb_import_out_free(&o);
    pb_import_opts_t op = {PB_IMPORT_AUTO, 0, 128, 16, 0, NULL};
    CHECK(load_o(I50 "osu_allreduce-16n8g-v7.4.txt", &op, &o, &err) == PB_OK);
    r = row_of(&o, 5, 3);
    CHECK(r->nodes == 16 && strcmp(r->link_class, "NET") == 0);
    pb_import_out_free(&o);
    op.nodes = 0, op.per_node = 8; /* 128 / 8 = 16 nodes */
    CHECK(load_o(I50 "osu_allreduce-16n8g-v7.4.txt", &op, &o, &err) == PB_OK);
    CHECK(row_of(&o, 5, 0)->nodes == 16 && strcmp(row_of(&o, 5, 0)->link_class, "NET") == 0);
    pb_import_out_free(&o);
    op.nodes = 4; /* 4 x 8 is not 128 */
    CHECK(load_o(I50 "osu_allreduce-16n8g-v7.4.txt", &op, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "--nodes 4 and --per-node 8 do not place 128 processes"));
    pb_import_out_free(&o);
    /* the log's rank lines say 2 hosts: --nodes 3 contradicts them */
    pb_import_opts_t n3 = {PB_IMPORT_AUTO, 0, 0, 3, 0, NULL};
    CHECK(load_o(DIR "nccl-allreduce-2n8g.log", &n3, &o, &err) == PB_EINPUT);
    CHECK(has(err.msg, "the log's rank lines put its 8 ranks on 2 nodes, --nodes or --per-node "
                       "on 3"));
    pb_import_out_free(&o);
    /* IMB: --per-node 2 puts PingPong's 2 processes on one node, the
     * 4-process tables on two */
    pb_import_opts_t pn2 = {PB_IMPORT_AUTO, 0, 0, 0, 2, NULL};
    CHECK(load_o(DIR "imb-mpi1-2021.3.txt", &pn2, &o, &err) == PB_OK);
    CHECK(o.n > 1 && o.rows[0].world == 2 && o.rows[0].nodes == 1 &&
          o.rows[0].link_class[0] == '\0');
    CHECK(o.rows[o.n - 1].world == 4 && o.rows[o.n - 1].nodes == 2 &&
          strcmp(o.rows[o.n - 1].link_class, "NET") == 0);
    pb_import_out_free(&o);
}

/* NCCL_TESTS_SPLIT groups over 2 hosts: each group across both (NET), or
 * each within one (""); before: "" for both */
static void split_groups(void)
{
    static const char across[] =
        "# Collective test starting: all_reduce_perf\n"
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0000:07:00] H100\n"
        "#  Rank  1 Group  0 Pid 2 on b device  0 [0000:07:00] H100\n"
        "#  Rank  2 Group  1 Pid 3 on a device  1 [0000:0f:00] H100\n"
        "#  Rank  3 Group  1 Pid 4 on b device  1 [0000:0f:00] H100\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "1048576 262144 float sum -1 40.0 26.21 26.21 0 40.0 26.21 26.21 0\n";
    char within[sizeof across];
    memcpy(within, across, sizeof across);
    /* ranks 1 and 2 change hosts: groups {0,1} on a, {2,3} on b */
    char *p = strstr(within, "Pid 2 on b"), *q = strstr(within, "Pid 3 on a");
    p[9] = 'a', q[9] = 'b';
    pb_import_opts_t op = {PB_IMPORT_AUTO, 0, 0, 0, 0, NULL};
    pb_import_out_t o;
    pb_err_t err;
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("x.log", across, sizeof across - 1, &op, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 2, 0);
    CHECK(r->group_size == 2 && r->nodes == 2 && strcmp(r->link_class, "NET") == 0);
    pb_import_out_free(&o);
    CHECK(pb_import_buffer("x.log", within, sizeof within - 1, &op, &o, &err) == PB_OK);
    r = row_of(&o, 2, 0);
    CHECK(r->group_size == 2 && r->nodes == 2 && r->link_class[0] == '\0');
    pb_import_out_free(&o);
}

int main(void)
{
    wrong_count();
    error_column();
    first_version();
    zero_rows_in_average();
    partial_keeps_reason();
    op_names_collective();
    placement();
    split_groups();
    PB_TEST_END("import_check");
}
