/* parbench import: the hand-written logs of tests/fixtures/import, one per
 * format variant, and the values each row must carry.  Every expected
 * number is read off the fixture's text and converted by the rules of
 * reports/pb_import.h: algbw = bytes / time_us / 1e3 GB/s, busbw = algbw x
 * DESIGN's factor (all-reduce 2(n-1)/n, all-gather / reduce-scatter /
 * all-to-all (n-1)/n, others 1). */
#include <string.h>

#include "pb_test.h"
#include "reports/pb_import.h"

#define DIR PB_SOURCE_DIR "/tests/fixtures/import/"

static int load(const char *file, int partial, int world, pb_import_out_t *out, pb_err_t *err)
{
    pb_import_opts_t o = {PB_IMPORT_AUTO, partial, world, 0, 0, NULL};
    memset(out, 0, sizeof *out);
    pb_err_clear(err);
    return pb_import_file(file, &o, out, err);
}

/* nccl-tests 2.17: 8 rank lines on node-a and node-b, one group */
static void nccl_new(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "nccl-allreduce-2n8g.log", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 8); /* 4 sizes x (out-of-place, in-place) */
    const pb_result_t *r = &o.rows[4]; /* 16777216 B out-of-place: 180.50 us */
    CHECK(strcmp(r->backend, "nccl-tests") == 0 && strcmp(r->collective, "allreduce") == 0);
    CHECK(r->world == 8 && r->nodes == 2 && r->group_size == 8);
    CHECK(strcmp(r->host, "node-a") == 0 && strcmp(r->link_class, "NET") == 0);
    CHECK(r->bytes == 16777216 && r->in_place == 0 && r->iters == 20);
    CHECK(strcmp(r->dtype, "float") == 0 && strcmp(r->redop, "sum") == 0 && r->wrong == 0);
    CHECK(strcmp(r->mode, "throughput") == 0);
    CHECK_NEAR(r->time_us_median, 180.5, 1e-12);
    CHECK_NEAR(r->algbw_gbps, 16777216 / 180.5 / 1e3, 1e-12); /* 92.95 printed */
    CHECK_NEAR(r->busbw_gbps, 16777216 / 180.5 / 1e3 * 1.75, 1e-12); /* 162.66 printed */
    CHECK(o.rows[5].in_place == 1);
    CHECK_NEAR(o.rows[5].time_us_median, 179.9, 1e-12);
    CHECK(strcmp(o.rows[0].label, "nccl-allreduce-2n8g.log") == 0);
    /* the footer's 109.754 is the mean of the 8 busbw printed */
    CHECK(o.have_avg);
    CHECK_NEAR(o.avg_busbw_stated, 109.754, 1e-9);
    CHECK_NEAR(o.avg_busbw_rows, (0 + 0 + 35.02 + 35.22 + 162.66 + 163.20 + 240.87 + 241.06) / 8,
               1e-9);
    pb_import_out_free(&o);
}

/* nccl-tests 2.0: no root, "error" column, no Group, name from the file */
static void nccl_old(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "all_gather_perf-v2.0.log", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 8);
    const pb_result_t *r = &o.rows[6]; /* 67108864 B out-of-place: 1480.00 us */
    CHECK(strcmp(r->collective, "allgather") == 0 && r->world == 4 && r->nodes == 1);
    CHECK(r->link_class[0] == '\0' && strcmp(r->host, "dgx1") == 0);
    CHECK(r->bytes == 67108864 && r->wrong == 0 && r->redop[0] == '\0');
    CHECK_NEAR(r->busbw_gbps, 67108864 / 1480.0 / 1e3 * 0.75, 1e-12); /* 34.01 printed */
    pb_import_out_free(&o);
}

/* NCCL_TESTS_SPLIT groups, validation off, per-iteration columns */
static void nccl_split(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "nccl-reducescatter-split-periter.log", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 4);
    const pb_result_t *r = &o.rows[2]; /* 16777216 B out-of-place */
    CHECK(r->world == 8 && r->group_size == 4 && strcmp(r->dtype, "bfloat16") == 0);
    CHECK(r->wrong == PB_RESULT_WRONG_UNCHECKED && r->iters == 50);
    CHECK_NEAR(r->time_us_median, 160.0, 1e-12);
    CHECK_NEAR(r->time_us_min, 151.3, 1e-12); /* i_min */
    CHECK_NEAR(r->time_us_p99, 170.2, 1e-12); /* i_p99 */
    CHECK_NEAR(r->time_us_max, 171.8, 1e-12); /* i_max */
    CHECK_NEAR(r->busbw_gbps, 16777216 / 160.0 / 1e3 * 0.75, 1e-12); /* groups of 4: 78.64 */
    pb_import_out_free(&o);
}

/* No rank lines: world from busbw/algbw = 240.87/137.64 = 1.75 = 2(n-1)/n */
static void nccl_world_inferred(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "all_reduce_perf-table-only.log", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 4 && o.rows[0].world == 8 && o.rows[0].group_size == 8 && o.rows[0].nodes == 0);
    pb_import_out_free(&o);
}

/* a row cut short: file:line, exit 2; --partial keeps the rows before */
static void nccl_truncated(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "nccl-truncated.log", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "nccl-truncated.log:21: a row of 6 fields where the header has 13") != NULL);
    pb_import_out_free(&o);
    CHECK(load(DIR "nccl-truncated.log", 1, 0, &o, &err) == PB_OK);
    CHECK(o.n == 4 && o.skipped == 1);
    CHECK(strstr(o.first_skip, "nccl-truncated.log:21:") == o.first_skip);
    pb_import_out_free(&o);
}

static void osu(void)
{
    pb_import_out_t o;
    pb_err_t err;
    /* OSU prints no process count: a collective needs --np */
    CHECK(load(DIR "osu_allreduce-f-v7.4.txt", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "osu_allreduce-f-v7.4.txt:4: OSU logs do not say how many") != NULL);
    pb_import_out_free(&o);
    CHECK(load(DIR "osu_allreduce-f-v7.4.txt", 0, 8, &o, &err) == PB_OK);
    CHECK(o.n == 3);
    const pb_result_t *r = &o.rows[1]; /* 1048576: avg 250.40 min 240.10 max 260.75, 100 */
    CHECK(strcmp(r->backend, "osu") == 0 && strcmp(r->mode, "latency") == 0);
    CHECK(r->bytes == 1048576 && r->iters == 100 && strcmp(r->dtype, "float") == 0);
    CHECK_NEAR(r->time_us_median, 260.75, 1e-12); /* the slowest rank's */
    CHECK_NEAR(r->time_us_min, 240.10, 1e-12);
    CHECK_NEAR(r->busbw_gbps, 1048576 / 260.75 / 1e3 * 1.75, 1e-12);
    pb_import_out_free(&o);
    /* allgather: OSU's size is one rank's block; parbench's the gathered 4x */
    CHECK(load(DIR "osu_allgather-c-v7.3.txt", 0, 4, &o, &err) == PB_OK);
    CHECK(o.n == 2 && o.rows[1].bytes == 4 * 65536 && o.rows[1].wrong == 0);
    CHECK(strcmp(o.rows[1].dtype, "int8") == 0);
    CHECK_NEAR(o.rows[1].busbw_gbps, 262144 / 80.0 / 1e3 * 0.75, 1e-12);
    pb_import_out_free(&o);
    /* osu_latency 5.x: "Latency (us)"; the 0-byte row left out */
    CHECK(load(DIR "osu_latency-v5.6.3.txt", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 2 && o.rows[0].bytes == 8 && o.rows[0].world == 2);
    CHECK(strcmp(o.rows[0].collective, "sendrecv") == 0);
    CHECK_NEAR(o.rows[0].time_us_median, 1.52, 1e-12);
    pb_import_out_free(&o);
    /* osu_bw 12000 MB/s at 1 MiB: 1048576 / 12000 us, 12 GB/s */
    CHECK(load(DIR "osu_bw-v7.3.txt", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 2);
    CHECK_NEAR(o.rows[1].time_us_median, 1048576 / 12000.0, 1e-12);
    CHECK_NEAR(o.rows[1].algbw_gbps, 12.0, 1e-12);
    pb_import_out_free(&o);
    /* osu_bibw counts both directions: one direction 11 GB/s */
    CHECK(load(DIR "osu_bibw-v7.3.txt", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 1);
    CHECK_NEAR(o.rows[0].algbw_gbps, 11.0, 1e-12);
    pb_import_out_free(&o);
}

static void imb(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(DIR "imb-mpi1-2021.3.txt", 0, 0, &o, &err) == PB_OK);
    /* PingPong 2 (0 B left out), Allreduce 2, Allgather 1, Alltoall 1,
     * Reduce_scatter 1, Bcast 1; Barrier has no #bytes, Gather no match */
    CHECK(o.n == 8);
    CHECK(strcmp(o.ignored, "Gather") == 0);
    const pb_result_t *r = &o.rows[0];
    CHECK(strcmp(r->collective, "sendrecv") == 0 && r->world == 2 && r->bytes == 1024);
    CHECK_NEAR(r->time_us_median, 0.80, 1e-12);
    r = &o.rows[3]; /* Allreduce 4194304: t_min 1500 t_max 1600 */
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->world == 4 && r->iters == 10);
    CHECK(strcmp(r->dtype, "float") == 0 && strcmp(r->backend, "imb") == 0);
    CHECK_NEAR(r->time_us_median, 1600.0, 1e-12);
    CHECK_NEAR(r->time_us_min, 1500.0, 1e-12);
    CHECK_NEAR(r->busbw_gbps, 4194304 / 1600.0 / 1e3 * 1.5, 1e-12);
    CHECK(o.rows[4].bytes == 4 * 1024 && strcmp(o.rows[4].collective, "allgather") == 0);
    CHECK(o.rows[5].bytes == 4 * 1024 && strcmp(o.rows[5].collective, "alltoall") == 0);
    /* IMB 2018 on: Reduce_scatter's #bytes is the whole input, as ours */
    CHECK(o.rows[6].bytes == 4096 && strcmp(o.rows[6].collective, "reducescatter") == 0);
    CHECK(o.rows[7].bytes == 65536 && strcmp(o.rows[7].collective, "broadcast") == 0);
    pb_import_out_free(&o);
    /* IMB 3.2: every rank received #bytes, so the input was 4 x 4096 */
    CHECK(load(DIR "imb-3.2-reduce_scatter.txt", 0, 0, &o, &err) == PB_OK);
    CHECK(o.n == 1 && o.rows[0].bytes == 4 * 4096);
    pb_import_out_free(&o);
}

static void refusals(void)
{
    pb_import_out_t o;
    pb_err_t err;
    pb_import_opts_t op = {PB_IMPORT_AUTO, 0, 0, 0, 0, NULL};
    const char text[] = "hello\nworld\n";
    memset(&o, 0, sizeof o);
    pb_err_clear(&err);
    CHECK(pb_import_buffer("x.log", text, sizeof text - 1, &op, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "x.log: not a log of nccl-tests, OSU or IMB") != NULL);
    /* a header and nothing else: no rows is an error, --partial or not */
    const char only[] = "# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)\n";
    pb_err_clear(&err);
    op.partial = 1;
    CHECK(pb_import_buffer("y.log", only, sizeof only - 1, &op, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "y.log: no result rows") != NULL);
    /* a number that is not one */
    const char bad[] = "# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)\n8  1.2x\n";
    op.partial = 0;
    pb_err_clear(&err);
    CHECK(pb_import_buffer("z.log", bad, sizeof bad - 1, &op, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "z.log:3: '1.2x' is not a number") != NULL);
    pb_import_out_free(&o);
}

#define REAL DIR "real/"

/* Row i of a log that must have n rows; when it has not, the count check
 * fails and a zeroed row stands in (its checks fail too), never a crash. */
static const pb_result_t *row_of(const pb_import_out_t *o, size_t n, size_t i)
{
    static const pb_result_t none;
    CHECK(o->n == n);
    return o->n == n && i < n ? &o->rows[i] : &none;
}

/* mpirun --tag-output (Open MPI 4): "[1,0]<stdout>:" on every line, an
 * untagged warning of mpirun's, NCCL INFO and <stderr> lines of others */
static void real_ompi4_tag(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(REAL "nccl-allreduce-ompi4-tag.log", 0, 0, &o, &err) == PB_OK);
    /* 3 sizes x (out-of-place, in-place); [2]: 16777216 B out-of-place, 196.40 us */
    const pb_result_t *r = row_of(&o, 6, 2);
    CHECK(o.skipped == 0);
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->bytes == 16777216 && r->in_place == 0);
    CHECK(r->world == 8 && r->nodes == 2 && r->group_size == 8 && r->iters == 20);
    CHECK(strcmp(r->host, "node-c") == 0 && strcmp(r->link_class, "NET") == 0);
    CHECK_NEAR(r->time_us_median, 196.40, 1e-12);
    CHECK_NEAR(r->busbw_gbps, 16777216 / 196.40 / 1e3 * 1.75, 1e-12); /* 149.49 printed */
    CHECK(o.have_avg);
    CHECK_NEAR(o.avg_busbw_rows, (31.53 + 31.67 + 149.49 + 149.95 + 223.10 + 223.56) / 6, 1e-9);
    pb_import_out_free(&o);
}

/* mpirun --output tag (Open MPI 5, PMIx): "[1,0]<stdout>: " */
static void real_ompi5_tag(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(REAL "nccl-allgather-ompi5-tag.log", 0, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 6, 4); /* 1073741824 B out-of-place: 3561.20 us */
    CHECK(strcmp(r->collective, "allgather") == 0 && r->bytes == 1073741824);
    CHECK(r->world == 8 && r->nodes == 1 && strcmp(r->host, "gpu-01") == 0);
    CHECK_NEAR(r->busbw_gbps, 1073741824 / 3561.20 / 1e3 * 0.875, 1e-12); /* 263.82 printed */
    pb_import_out_free(&o);
}

/* srun --label of 16 tasks (" 0: ", "12: "), OSU 7.3 osu_allreduce -f */
static void real_srun_label(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(REAL "osu_allreduce-srun-label.txt", 0, 16, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 3, 1); /* 65536: avg 38.70 min 36.25 max 41.10, 1000 */
    CHECK(r->bytes == 65536 && r->world == 16 && r->iters == 1000);
    CHECK_NEAR(r->time_us_median, 41.10, 1e-12);
    CHECK_NEAR(r->time_us_min, 36.25, 1e-12);
    CHECK_NEAR(r->busbw_gbps, 65536 / 41.10 / 1e3 * 1.875, 1e-12); /* 2(16-1)/16 */
    pb_import_out_free(&o);
    /* IMB under srun --label ("0: "): Allreduce of 4, the 0-byte row left out */
    CHECK(load(REAL "imb-allreduce-srun-label.txt", 0, 0, &o, &err) == PB_OK);
    r = row_of(&o, 3, 2); /* 4194304: t_min 1820.00 t_max 1955.50, 10 repetitions */
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->world == 4 && r->iters == 10);
    CHECK_NEAR(r->time_us_median, 1955.50, 1e-12);
    CHECK_NEAR(r->time_us_min, 1820.00, 1e-12);
    CHECK_NEAR(r->busbw_gbps, 4194304 / 1955.50 / 1e3 * 1.5, 1e-12);
    pb_import_out_free(&o);
}

/* the banner cut off: tool from the table header, collective from the
 * file name; only ranks 6 and 7 listed, so the world comes from
 * busbw/algbw = 234.27/133.87 = 1.75 = 2(8-1)/8, not from the 2 lines */
static void real_no_banner(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(REAL "all_reduce_perf-no-banner.log", 0, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 6, 4); /* 536870912 B out-of-place: 4010.50 us */
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->bytes == 536870912);
    CHECK(r->world == 8 && r->group_size == 8 && r->nodes == 0 && r->host[0] == '\0');
    CHECK_NEAR(r->busbw_gbps, 536870912 / 4010.50 / 1e3 * 1.75, 1e-12);
    pb_import_out_free(&o);
    /* osu_bw without its title: the file names it; 24180.50 MB/s at 4 MiB */
    CHECK(load(REAL "osu_bw-no-title.txt", 0, 0, &o, &err) == PB_OK);
    r = row_of(&o, 3, 2);
    CHECK(strcmp(r->collective, "sendrecv") == 0 && r->world == 2 && r->bytes == 4194304);
    CHECK_NEAR(r->time_us_median, 4194304 / 24180.50, 1e-12);
    pb_import_out_free(&o);
}

/* OMB titles with the build's qualifier; 5.7's average-only table.  (These
 * two read before as well: kept as the forms.) */
static void real_osu_titles(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(REAL "osu_allreduce-cuda-v5.7.txt", 0, 8, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 4, 3); /* 1048576: 145.62 */
    CHECK(strcmp(r->collective, "allreduce") == 0 && r->bytes == 1048576 && r->iters == 0);
    CHECK_NEAR(r->time_us_median, 145.62, 1e-12);
    CHECK_NEAR(r->time_us_min, 145.62, 1e-12); /* no Min column: the average */
    pb_import_out_free(&o);
    CHECK(load(REAL "osu_latency-rocm-v7.3.txt", 0, 0, &o, &err) == PB_OK);
    r = row_of(&o, 3, 2); /* the 0-byte row left out; 1048576: 48.35 */
    CHECK(r->bytes == 1048576 && r->world == 2);
    CHECK_NEAR(r->time_us_median, 48.35, 1e-12);
    pb_import_out_free(&o);
    /* a neighbourhood collective is no all-gather: left out, named */
    const char nb[] = "# OSU MPI Neighborhood Allgather Latency Test v7.3\n"
                      "# Size       Avg Latency(us)\n1024  12.5\n";
    pb_import_opts_t op = {PB_IMPORT_AUTO, 0, 4, 0, 0, NULL};
    memset(&o, 0, sizeof o);
    CHECK(pb_import_buffer("nb.txt", nb, sizeof nb - 1, &op, &o, &err) == PB_EINPUT);
    CHECK(o.n == 0 && strstr(err.msg, "without a parbench counterpart: OSU MPI Neighborhood") != NULL);
    /* no title, and a file name naming no OSU program */
    const char notitle[] = "# Size       Avg Latency(us)\n1024  12.5\n";
    pb_err_clear(&err);
    CHECK(pb_import_buffer("run7.txt", notitle, sizeof notitle - 1, &op, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "run7.txt:2: which benchmark? no '# OSU ... Test' title line") != NULL);
    pb_import_out_free(&o);
}

/* a failed run: refused naming the failure; --partial keeps the 3 sizes
 * before it (6 rows) and names it */
static void real_failed(void)
{
    pb_import_out_t o;
    pb_err_t err;
    CHECK(load(REAL "nccl-allreduce-failed.log", 0, 0, &o, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "nccl-allreduce-failed.log:21: the run failed: 67108864 16777216 float "
                          "sum -1node-a: Test NCCL failure common.cu:514 'remote process exited "
                          "or there was a network error / NET/IB") != NULL);
    CHECK(strstr(err.msg, "(--partial keeps the rows before it)") != NULL);
    pb_import_out_free(&o);
    CHECK(load(REAL "nccl-allreduce-failed.log", 1, 0, &o, &err) == PB_OK);
    const pb_result_t *r = row_of(&o, 6, 5); /* 16777216 B in-place: 179.90 us */
    CHECK(o.skipped == 0 && !o.have_avg);
    CHECK(strstr(o.failure, "nccl-allreduce-failed.log:21: 67108864 16777216 float sum "
                            "-1node-a: Test NCCL failure common.cu:514") == o.failure);
    CHECK(r->bytes == 16777216 && r->in_place == 1 && r->world == 8);
    CHECK_NEAR(r->time_us_median, 179.90, 1e-12);
    pb_import_out_free(&o);
}

int main(void)
{
    nccl_new();
    nccl_old();
    nccl_split();
    nccl_world_inferred();
    nccl_truncated();
    osu();
    imb();
    refusals();
    real_ompi4_tag();
    real_ompi5_tag();
    real_srun_label();
    real_no_banner();
    real_osu_titles();
    real_failed();
    PB_TEST_END("import");
}
