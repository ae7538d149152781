/* test_csv.c - round trips and refusals of reports/pb_csv.
 *
 * Standalone: exits 0 when every check passes, prints each failure.
 * Files go to $TMPDIR (or /tmp) via mkstemp and are removed at the end. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkstemp, close, unlink */
#endif

#include "reports/pb_csv.h"

#include <csv.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

/* The schema, spelled out independently of pb_csv.c's table. */
static const char *const expected_cols[] = {
    "run_id",      "timestamp",   "host",           "nodes",       "world",
    "backend",     "mode",        "pattern",        "collective",  "group",
    "group_size",  "link_class",  "bytes",          "dtype",       "in_place",
    "iters",       "time_us_min", "time_us_median", "time_us_p99", "time_us_max",
    "algbw_gbps",  "busbw_gbps",  "wrong",          "label",       "redop",
    "slowest_rank", "flops",     "tflops",         "expect_gbps", "verdict",
};
#define NCOLS 30

/* Comma, double quote, newline, and leading/trailing blanks that only
 * quoting preserves. */
static const char tricky_label[] = " a,b \"quoted\"\nsecond line\t";

static char tmpdir[4096];

static void make_path(char *buf, size_t size, const char *stem)
{
    snprintf(buf, size, "%s/pb_test_csv_%s_XXXXXX", tmpdir, stem);
    int fd = mkstemp(buf);
    if (fd < 0) {
        perror("mkstemp");
        exit(2);
    }
    close(fd);
}

static void write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    fputs(content, f);
    fclose(f);
}

static void fill_row(pb_result_t *r, int i)
{
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "run-%d", i);
    snprintf(r->timestamp, sizeof r->timestamp, "2024-05-0%dT12:00:00Z", i + 1);
    snprintf(r->host, sizeof r->host, "node%03d", i);
    r->nodes = 2 + i;
    r->world = 16 * (2 + i);
    snprintf(r->backend, sizeof r->backend, "mpi");
    snprintf(r->mode, sizeof r->mode, "latency");
    snprintf(r->pattern, sizeof r->pattern, "ring");
    snprintf(r->collective, sizeof r->collective, "allreduce");
    snprintf(r->group, sizeof r->group, "world");
    r->group_size = r->world;
    snprintf(r->link_class, sizeof r->link_class, "inter");
    r->bytes = (uint64_t)5 << 30; /* 5 GiB = 5368709120: needs all 64 bits */
    snprintf(r->dtype, sizeof r->dtype, "float32");
    r->in_place = i % 2;
    r->iters = 1000 + (uint64_t)i;
    /* Exactly representable and at most 9 significant digits, so "%.9g"
     * reproduces them bit for bit and == comparison is fair. */
    r->time_us_min = 12.5;
    r->time_us_median = 13.25 + i;
    r->time_us_p99 = 20.125;
    r->time_us_max = 1e-3; /* "%.9g" prints 0.001, strtod gives back 1e-3 */
    r->algbw_gbps = 187.5;
    r->busbw_gbps = 328.125;
    r->wrong = i == 0 ? PB_RESULT_WRONG_UNCHECKED : 0;
    snprintf(r->label, sizeof r->label, "plain label %d", i);
    snprintf(r->redop, sizeof r->redop, "sum");
    r->slowest_rank = i == 0 ? -1 : 7;
    r->flops = i == 0 ? 0 : UINT64_C(412316860416); /* 2*4096*3072*16384 */
    r->tflops = i == 0 ? 0.0 : 687.5;
    r->expect_gbps = i == 0 ? 0.0 : 450.0;
    snprintf(r->verdict, sizeof r->verdict, "%s", i == 0 ? "" : "slow");
}

static int same_row(const pb_result_t *a, const pb_result_t *b)
{
    int ok = 1;
#define SAME_STR(f)                                                                 \
    do {                                                                            \
        if (strcmp(a->f, b->f) != 0) {                                              \
            fprintf(stderr, "  field " #f ": '%s' != '%s'\n", a->f, b->f);          \
            ok = 0;                                                                 \
        }                                                                           \
    } while (0)
#define SAME_NUM(f, fmt)                                                            \
    do {                                                                            \
        if (a->f != b->f) {                                                         \
            fprintf(stderr, "  field " #f ": " fmt " != " fmt "\n", a->f, b->f);    \
            ok = 0;                                                                 \
        }                                                                           \
    } while (0)
    SAME_STR(run_id);
    SAME_STR(timestamp);
    SAME_STR(host);
    SAME_NUM(nodes, "%d");
    SAME_NUM(world, "%d");
    SAME_STR(backend);
    SAME_STR(mode);
    SAME_STR(pattern);
    SAME_STR(collective);
    SAME_STR(group);
    SAME_NUM(group_size, "%d");
    SAME_STR(link_class);
    SAME_NUM(bytes, "%" PRIu64);
    SAME_STR(dtype);
    SAME_NUM(in_place, "%d");
    SAME_NUM(iters, "%" PRIu64);
    SAME_NUM(time_us_min, "%.17g");
    SAME_NUM(time_us_median, "%.17g");
    SAME_NUM(time_us_p99, "%.17g");
    SAME_NUM(time_us_max, "%.17g");
    SAME_NUM(algbw_gbps, "%.17g");
    SAME_NUM(busbw_gbps, "%.17g");
    SAME_NUM(wrong, "%" PRId64);
    SAME_STR(label);
    SAME_STR(redop);
    SAME_NUM(slowest_rank, "%d");
    SAME_NUM(flops, "%" PRIu64);
    SAME_NUM(tflops, "%.17g");
    SAME_NUM(expect_gbps, "%.17g");
    SAME_STR(verdict);
#undef SAME_STR
#undef SAME_NUM
    return ok;
}

/* Independent look at the file through libcsv's own parser. */
typedef struct raw_scan {
    size_t field;      /* index within the current record */
    size_t nrecords;
    size_t bad_counts; /* records whose field count is not NCOLS */
    char label[3][PB_RESULT_STR];
    size_t label_len[3];
    char wrong[3][PB_RESULT_STR];
    size_t wrong_len[3];
} raw_scan_t;

static void raw_field(void *s, size_t len, void *data)
{
    raw_scan_t *rs = data;
    /* label is column 24, index 23; record 0 is the header */
    if (rs->field == 23 && rs->nrecords >= 1 && rs->nrecords <= 3 && len < PB_RESULT_STR) {
        memcpy(rs->label[rs->nrecords - 1], s, len);
        rs->label_len[rs->nrecords - 1] = len;
    }
    /* wrong is column 23, index 22 */
    if (rs->field == 22 && rs->nrecords >= 1 && rs->nrecords <= 3 && len < PB_RESULT_STR) {
        memcpy(rs->wrong[rs->nrecords - 1], s, len);
        rs->wrong_len[rs->nrecords - 1] = len;
    }
    rs->field++;
}

static void raw_record(int c, void *data)
{
    raw_scan_t *rs = data;
    (void)c;
    if (rs->field != NCOLS)
        rs->bad_counts++;
    rs->field = 0;
    rs->nrecords++;
}

static void raw_parse(const char *path, raw_scan_t *rs)
{
    struct csv_parser p;
    char buf[4096];
    size_t n;
    FILE *f = fopen(path, "r");

    memset(rs, 0, sizeof *rs);
    CHECK(f != NULL);
    if (f == NULL)
        return;
    CHECK(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) == 0);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        CHECK(csv_parse(&p, buf, n, raw_field, raw_record, rs) == n);
    CHECK(csv_fini(&p, raw_field, raw_record, rs) == 0);
    csv_free(&p);
    fclose(f);
}

/* Lines that begin with "run_id", i.e. header lines (data rows start with
 * a quoted run id).  Only counts at real line starts, so a long line read
 * in pieces is not miscounted. */
static int count_header_lines(const char *path)
{
    char line[8192];
    int count = 0, at_start = 1;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (at_start && strncmp(line, "run_id", 6) == 0)
            count++;
        at_start = strchr(line, '\n') != NULL;
    }
    fclose(f);
    return count;
}

static void test_schema(void)
{
    CHECK(pb_csv_ncolumns() == NCOLS);
    for (int i = 0; i < NCOLS && i < pb_csv_ncolumns(); i++) {
        CHECK(pb_csv_column(i) != NULL && strcmp(pb_csv_column(i), expected_cols[i]) == 0);
        /* the header is written bare; that is only safe for identifiers */
        CHECK(strspn(pb_csv_column(i), "abcdefghijklmnopqrstuvwxyz0123456789_") ==
              strlen(pb_csv_column(i)));
    }
    CHECK(pb_csv_column(-1) == NULL);
    CHECK(pb_csv_column(NCOLS) == NULL);
}

static void test_round_trip(void)
{
    char path[4200];
    pb_csv_writer_t *w = NULL;
    pb_result_t in[3], *out = NULL;
    size_t n = 0;
    pb_err_t err;
    raw_scan_t rs;

    make_path(path, sizeof path, "rt");
    fill_row(&in[0], 0);
    fill_row(&in[1], 1);
    fill_row(&in[2], 2);
    snprintf(in[1].label, sizeof in[1].label, "%s", tricky_label);
    in[2].bytes = UINT64_MAX; /* 18446744073709551615: the largest uint64 */
    in[2].redop[0] = '\0';    /* empty quoted string must stay empty, not absent */

    /* mkstemp left an empty file: pb_csv_open must write the header */
    pb_err_clear(&err);
    CHECK(pb_csv_open(path, &w, &err) == PB_OK);
    if (w == NULL) {
        fprintf(stderr, "  open: %s\n", err.msg);
        return;
    }
    CHECK(pb_csv_write(w, &in[0], &err) == PB_OK);
    CHECK(pb_csv_write(w, &in[1], &err) == PB_OK);
    pb_csv_close(w);

    pb_err_clear(&err);
    CHECK(pb_csv_read(path, &out, &n, &err) == PB_OK);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(same_row(&out[0], &in[0]));
        CHECK(same_row(&out[1], &in[1]));
        CHECK(out[0].wrong == PB_RESULT_WRONG_UNCHECKED); /* written as empty field */
        CHECK(out[1].wrong == 0);
        CHECK(out[0].bytes == UINT64_C(5368709120));
    }
    free(out);
    out = NULL;

    /* libcsv alone: header + 2 rows, 30 fields each, label bytes intact */
    raw_parse(path, &rs);
    CHECK(rs.nrecords == 3);
    CHECK(rs.bad_counts == 0);
    CHECK(rs.label_len[1] == strlen(tricky_label) &&
          memcmp(rs.label[1], tricky_label, strlen(tricky_label)) == 0);
    /* wrong: unchecked (-1) is an empty field, a checked 0 is "0" */
    CHECK(rs.wrong_len[0] == 0);
    CHECK(rs.wrong_len[1] == 1 && rs.wrong[1][0] == '0');

    /* append: the header is checked, not written again */
    pb_err_clear(&err);
    w = NULL;
    CHECK(pb_csv_open(path, &w, &err) == PB_OK);
    if (w == NULL) {
        fprintf(stderr, "  reopen: %s\n", err.msg);
        return;
    }
    CHECK(pb_csv_write(w, &in[2], &err) == PB_OK);
    pb_csv_close(w);

    pb_err_clear(&err);
    CHECK(pb_csv_read(path, &out, &n, &err) == PB_OK);
    CHECK(n == 3);
    if (n == 3) {
        for (int i = 0; i < 3; i++)
            CHECK(same_row(&out[i], &in[i]));
    }
    free(out);
    CHECK(count_header_lines(path) == 1);

    raw_parse(path, &rs);
    CHECK(rs.nrecords == 4); /* header + 3 rows */
    CHECK(rs.bad_counts == 0);
    unlink(path);
}

/* A value "%.9g" cannot hold exactly comes back within its precision. */
static void test_inexact_double(void)
{
    char path[4200];
    pb_csv_writer_t *w = NULL;
    pb_result_t in, *out = NULL;
    size_t n = 0;
    pb_err_t err;

    make_path(path, sizeof path, "dbl");
    fill_row(&in, 0);
    in.algbw_gbps = 1.0 / 3.0;
    pb_err_clear(&err);
    CHECK(pb_csv_open(path, &w, &err) == PB_OK);
    if (w == NULL)
        return;
    CHECK(pb_csv_write(w, &in, &err) == PB_OK);
    pb_csv_close(w);
    CHECK(pb_csv_read(path, &out, &n, &err) == PB_OK && n == 1);
    if (n == 1) {
        double rel = (out[0].algbw_gbps - in.algbw_gbps) / in.algbw_gbps;
        /* 9 significant digits: relative error at most 5e-10 */
        CHECK(rel < 1e-9 && rel > -1e-9);
    }
    free(out);
    unlink(path);
}

static void test_refusals(void)
{
    char path[4200];
    pb_csv_writer_t *w = NULL;
    pb_err_t err;

    /* different header: column 3 is 'foo' where 'host' belongs */
    make_path(path, sizeof path, "hdr");
    write_file(path, "run_id,timestamp,foo,nodes\n\"a\",\"b\",\"c\",1\n");
    pb_err_clear(&err);
    CHECK(pb_csv_open(path, &w, &err) == PB_EINPUT);
    CHECK(w == NULL);
    CHECK(strstr(err.msg, path) != NULL);
    CHECK(strstr(err.msg, "column 3 is 'foo', expected 'host'") != NULL);

    /* the original 24-column schema: appending 30-column rows would be ragged */
    write_file(path, "run_id,timestamp,host,nodes,world,backend,mode,pattern,collective,"
                     "group,group_size,link_class,bytes,dtype,in_place,iters,time_us_min,"
                     "time_us_median,time_us_p99,time_us_max,algbw_gbps,busbw_gbps,wrong,"
                     "label\n");
    pb_err_clear(&err);
    CHECK(pb_csv_open(path, &w, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "'redop'") != NULL);

    /* torn: last row has no newline */
    write_file(path, "run_id,timestamp,host\n\"a\",\"b");
    pb_err_clear(&err);
    CHECK(pb_csv_open(path, &w, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "newline") != NULL);

    /* torn inside a quoted label right after its embedded newline: the file
     * ends in '\n' but the quote is still open */
    {
        char buf[1024];
        size_t len = 0;
        for (int i = 0; i < NCOLS; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "",
                                    expected_cols[i]);
        snprintf(buf + len, sizeof buf - len, "\n\"r\",\"t\",\"h\",1,2,\"x\",\"y\",\"z\",\"w\","
                                              "\"g\",2,\"l\",8,\"d\",0,1,1,1,1,1,1,1,,\"ab\n");
        write_file(path, buf);
    }
    pb_err_clear(&err);
    CHECK(pb_csv_open(path, &w, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "quoted field") != NULL);
    unlink(path);

    /* unwritable path */
    pb_err_clear(&err);
    CHECK(pb_csv_open("/nonexistent-dir/x.csv", &w, &err) == PB_EINPUT);
    CHECK(w == NULL);
    CHECK(strstr(err.msg, "/nonexistent-dir/x.csv") != NULL);
}

/* Header lines written by hand, independent of the writer. */
#define HDR24                                                                      \
    "run_id,timestamp,host,nodes,world,backend,mode,pattern,collective,group,"     \
    "group_size,link_class,bytes,dtype,in_place,iters,time_us_min,time_us_median," \
    "time_us_p99,time_us_max,algbw_gbps,busbw_gbps,wrong,label"
/* one good row for HDR24 */
#define ROW24(bytes, label)                                                         \
    "r1,2024-01-01T00:00:00Z,h,1,8,mpi,latency,ring,allreduce,world,8,intra," bytes \
    ",f32,0,100,1.5,2,3,4.25,10,17.5,," label

static int read_expect_error(const char *content, const char *const *needles, int nneedles)
{
    char path[4200];
    pb_result_t *rows = NULL;
    size_t n = 0;
    pb_err_t err;
    int ok = 1;

    make_path(path, sizeof path, "bad");
    write_file(path, content);
    pb_err_clear(&err);
    if (pb_csv_read(path, &rows, &n, &err) != PB_EINPUT || rows != NULL || n != 0) {
        fprintf(stderr, "  expected PB_EINPUT for:\n%s\n", content);
        ok = 0;
    }
    if (strstr(err.msg, path) == NULL) {
        fprintf(stderr, "  message lacks the file name: %s\n", err.msg);
        ok = 0;
    }
    for (int i = 0; i < nneedles; i++) {
        if (strstr(err.msg, needles[i]) == NULL) {
            fprintf(stderr, "  message lacks '%s': %s\n", needles[i], err.msg);
            ok = 0;
        }
    }
    free(rows);
    unlink(path);
    return ok;
}

static void test_malformed(void)
{
    /* line 1 header, line 2 good row, line 3 the bad bytes field */
    {
        const char *const needles[] = {":3:", "'bytes'", "'abc'"};
        CHECK(read_expect_error(HDR24 "\n" ROW24("64", "ok") "\n" ROW24("abc", "bad") "\n",
                                needles, 3));
    }
    /* the row on line 2 spans lines 2-3 (quoted newline), so the bad row
     * is on line 4 even though it is the third record */
    {
        const char *const needles[] = {":4:", "'bytes'"};
        CHECK(read_expect_error(HDR24 "\n" ROW24("64", "\"two\nlines\"") "\n"
                                ROW24("-1", "bad") "\n",
                                needles, 2));
    }
    /* the bad record itself spans lines 3-4 (its label holds a newline, and
     * the label comes after bytes): the message names line 3, where the
     * record starts, not line 4 where libcsv finishes it */
    {
        const char *const needles[] = {":3:", "'bytes'"};
        CHECK(read_expect_error(HDR24 "\n" ROW24("64", "ok") "\n"
                                ROW24("x1", "\"three\nfour\"") "\n",
                                needles, 2));
    }
    /* a blank line 2 is skipped by libcsv but still counts as a line */
    {
        const char *const needles[] = {":3:", "5 fields, header has 24"};
        CHECK(read_expect_error(HDR24 "\n\n1,2,3,4,5\n", needles, 2));
    }
    {
        const char *const needles[] = {"missing column 'busbw_gbps'"};
        CHECK(read_expect_error("run_id,timestamp,host,nodes,world,backend,mode,pattern,"
                                "collective,group,group_size,link_class,bytes,dtype,"
                                "in_place,iters,time_us_min,time_us_median,time_us_p99,"
                                "time_us_max,algbw_gbps,wrong,label\n",
                                needles, 1));
    }
    /* nodes must fit an int: 2^31 = 2147483648 does not */
    {
        const char *const needles[] = {":2:", "'nodes'", "out of range"};
        CHECK(read_expect_error(HDR24 "\n"
                                "r1,t,h,2147483648,8,mpi,latency,ring,allreduce,world,8,"
                                "intra,64,f32,0,100,1.5,2,3,4.25,10,17.5,,x\n",
                                needles, 3));
    }
    /* 64 characters: one more than a PB_RESULT_STR field holds */
    {
        const char *const needles[] = {":2:", "'label'"};
        CHECK(read_expect_error(
            HDR24 "\n" ROW24("64", "0123456789012345678901234567890123456789012345678901234567890123")
                  "\n",
            needles, 2));
    }
    /* a stray quote inside an unquoted field, on line 2 */
    {
        const char *const needles[] = {":2:"};
        CHECK(read_expect_error(HDR24 "\n" ROW24("64", "a\"b") "\n", needles, 1));
    }
    {
        const char *const needles[] = {"empty"};
        CHECK(read_expect_error("", needles, 1));
    }
    {
        const char *const needles[] = {"'wrong'", "not a number"};
        CHECK(read_expect_error(HDR24 "\n"
                                "r1,t,h,1,8,mpi,latency,ring,allreduce,world,8,"
                                "intra,64,f32,0,100,1.5,2,3,4.25,10,17.5,zero,x\n",
                                needles, 2));
    }
}

/* Older (24-column) and newer (extra column) files both read. */
static void test_compat(void)
{
    char path[4200];
    pb_result_t *rows = NULL;
    size_t n = 0;
    pb_err_t err;

    make_path(path, sizeof path, "old");
    write_file(path, HDR24 "\n" ROW24("64", "old") "\n");
    pb_err_clear(&err);
    CHECK(pb_csv_read(path, &rows, &n, &err) == PB_OK);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(strcmp(rows[0].label, "old") == 0);
        CHECK(rows[0].redop[0] == '\0');         /* absent column: default "" */
        CHECK(rows[0].slowest_rank == -1);       /* absent column: default -1 */
        CHECK(rows[0].flops == 0);               /* absent column: default 0 */
        CHECK(rows[0].tflops == 0.0);            /* absent column: default 0 */
        CHECK(rows[0].expect_gbps == 0.0);       /* absent column: default 0 */
        CHECK(rows[0].verdict[0] == '\0');       /* absent column: default "" */
        CHECK(rows[0].wrong == PB_RESULT_WRONG_UNCHECKED); /* empty field */
        CHECK(rows[0].time_us_max == 4.25);
        CHECK(rows[0].bytes == 64);
    }
    free(rows);
    rows = NULL;

    /* an unknown column in the middle is skipped; columns map by name */
    write_file(path, "future," HDR24 ",slowest_rank\n\"zzz\"," ROW24("128", "new") ",3\r\n");
    pb_err_clear(&err);
    CHECK(pb_csv_read(path, &rows, &n, &err) == PB_OK);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(strcmp(rows[0].run_id, "r1") == 0);
        CHECK(rows[0].bytes == 128);
        CHECK(rows[0].slowest_rank == 3);
        CHECK(rows[0].flops == 0); /* the 26-column schema: no flops, tflops */
        CHECK(rows[0].tflops == 0.0);
        CHECK(strcmp(rows[0].label, "new") == 0);
    }
    free(rows);

    /* a header-only file is zero rows, not an error */
    rows = NULL;
    write_file(path, HDR24 "\n");
    pb_err_clear(&err);
    CHECK(pb_csv_read(path, &rows, &n, &err) == PB_OK);
    CHECK(n == 0);
    free(rows);
    unlink(path);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s", t != NULL && t[0] != '\0' ? t : "/tmp");

    test_schema();
    test_round_trip();
    test_inexact_double();
    test_refusals();
    test_malformed();
    test_compat();

    if (failures != 0) {
        fprintf(stderr, "test_csv: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_csv: all checks passed\n");
    return 0;
}
