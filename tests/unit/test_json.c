/* --json: every row written as JSON Lines parses back (with jansson, the
 * library that wrote it) to the same values the CSV of the same rows
 * reads back to.  Rows: a real 2-rank main-job run (tests/fixtures/report)
 * plus one hand-made row with awkward text and an unchecked `wrong`. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "reports/pb_calib_file.h"
#include "reports/pb_csv.h"
#include "reports/pb_json.h"

static int same_row(const pb_result_t *a, const pb_result_t *b)
{
    for (int i = 0; i < pb_csv_ncolumns(); i++) {
        const char *x = (const char *)a + pb_csv_column_offset(i);
        const char *y = (const char *)b + pb_csv_column_offset(i);
        size_t n = pb_csv_column_type(i) == PB_CSV_STR   ? strlen(x) + 1
                   : pb_csv_column_type(i) == PB_CSV_INT ? sizeof(int)
                                                         : 8;
        if (memcmp(x, y, n) != 0) {
            fprintf(stderr, "column %s differs\n", pb_csv_column(i));
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_result_t *rows = NULL;
    size_t n = 0;
    CHECK(pb_csv_read(PB_SOURCE_DIR "/tests/fixtures/report/results.csv", &rows, &n, &err) ==
          PB_OK);
    CHECK(n == 253); /* 235 measured rows + 18 hand-written model rows */
    if (n == 0)
        PB_TEST_END("unit_json");
    /* one more row: quotes, commas, a newline and UTF-8 in the label,
     * wrong not checked, a size above 2^32 */
    pb_result_t *all = realloc(rows, (n + 1) * sizeof *all);
    CHECK(all != NULL);
    if (all == NULL)
        return 1;
    rows = all;
    rows[n] = rows[0];
    snprintf(rows[n].label, sizeof rows[n].label, "a \"quoted\", label\nwith µ");
    rows[n].wrong = PB_RESULT_WRONG_UNCHECKED;
    rows[n].bytes = UINT64_C(8589934592);
    rows[n].time_us_median = 123456.789;
    n++;

    char csv[] = "/tmp/pb-test-json-XXXXXX";
    char js[] = "/tmp/pb-test-json-XXXXXX";
    int fc = mkstemp(csv), fj = mkstemp(js);
    CHECK(fc >= 0 && fj >= 0);
    close(fc);
    close(fj);
    unlink(csv); /* pb_csv_open writes the header to a new file */
    pb_csv_writer_t *cw = NULL;
    pb_json_writer_t *jw = NULL;
    CHECK(pb_csv_open(csv, &cw, &err) == PB_OK);
    CHECK(pb_json_open(js, &jw, &err) == PB_OK);
    for (size_t i = 0; i < n && cw && jw; i++) {
        CHECK(pb_csv_write(cw, &rows[i], &err) == PB_OK);
        CHECK(pb_json_write(jw, &rows[i], &err) == PB_OK);
    }
    pb_csv_close(cw);
    pb_json_close(jw);

    pb_result_t *rc = NULL, *rj = NULL;
    size_t nc = 0, nj = 0;
    CHECK(pb_csv_read(csv, &rc, &nc, &err) == PB_OK);
    CHECK(pb_json_read(js, &rj, &nj, &err) == PB_OK);
    CHECK(nc == n && nj == n);
    for (size_t i = 0; i < n && i < nc && i < nj; i++)
        CHECK(same_row(&rc[i], &rj[i]));
    CHECK(nj == n && rj[n - 1].wrong == PB_RESULT_WRONG_UNCHECKED);
    CHECK(nj == n && rj[n - 1].bytes == UINT64_C(8589934592));
    CHECK(nj == n && strcmp(rj[n - 1].label, "a \"quoted\", label\nwith µ") == 0);

    /* the file is JSON Lines: each line an object jansson parses alone,
     * with the CSV's column names, `wrong` null when not checked */
    FILE *f = fopen(js, "r");
    char *line = NULL;
    size_t cap = 0, lines = 0;
    json_t *last = NULL;
    while (f && getline(&line, &cap, f) > 0) {
        json_error_t je;
        json_decref(last);
        last = json_loads(line, 0, &je);
        CHECK(json_is_object(last));
        CHECK(json_object_size(last) == (size_t)pb_csv_ncolumns());
        lines++;
    }
    CHECK(lines == n);
    CHECK(json_is_null(json_object_get(last, "wrong")));
    CHECK(json_integer_value(json_object_get(last, "bytes")) == 8589934592LL);
    CHECK(json_real_value(json_object_get(last, "time_us_median")) == 123456.789);
    json_decref(last);
    free(line);
    if (f)
        fclose(f);
    unlink(csv);
    unlink(js);
    free(rows);
    free(rc);
    free(rj);

    /* a malformed line is named with file and line */
    char bad[] = "/tmp/pb-test-json-XXXXXX";
    int fb = mkstemp(bad);
    CHECK(fb >= 0);
    FILE *b = fdopen(fb, "w");
    fputs("{\"bytes\": 8}\n\n{\"bytes\": 8,}\n", b);
    fclose(b);
    pb_err_clear(&err);
    CHECK(pb_json_read(bad, &rj, &nj, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, ":3: malformed JSON") != NULL);
    unlink(bad);

    /* calib.csv: a piece predicts latency + size / bandwidth; 5 us and
     * 10 GB/s (1e4 B/us) at 1e6 B: 5 + 100 = 105 us (by hand) */
    pb_calib_row_t c = {"allreduce", 8, "NV18", 0, UINT64_C(1) << 30, 5.0, 10.0, 0.01, "",
                        0, 1e-4, 0, 0.0, 0.0, 0, 0, 0.0};
    CHECK_NEAR(pb_calib_time_us(&c, 1000000), 105.0, 1e-12);
    pb_calib_row_t *cr = NULL;
    size_t ncr = 0;
    pb_err_clear(&err);
    CHECK(pb_calib_read(PB_SOURCE_DIR "/tests/fixtures/report/calib.csv", &cr, &ncr, &err) ==
          PB_OK);
    CHECK(ncr == 4);
    CHECK(ncr == 4 && strcmp(cr[0].collective, "allreduce") == 0 && cr[0].group_size == 2 &&
          cr[0].bytes_lo == 8 && cr[0].bytes_hi == 65536 && cr[0].latency_us == 1.504 &&
          cr[0].bandwidth_gbps == 3.0963);
    /* that file has no dtype column (written before it): every piece
     * serves any type */
    CHECK(ncr == 4 && cr[0].dtype[0] == '\0' && pb_calib_dtype_matches(&cr[0], "bfloat16"));
    /* nor the model's columns: no piece (-1), and the exact slope follows
     * from the bandwidth, 1e-3 / 3.0963 us per byte (GB/s = 1e3 B/us) */
    CHECK(ncr == 4 && cr[0].piece == -1 && cr[0].line == 2);
    CHECK(ncr == 4 && fabs(cr[0].us_per_byte - 1e-3 / 3.0963) < 1e-18);
    free(cr);
    unsigned have = 0;
    CHECK(pb_calib_read_cols(PB_SOURCE_DIR "/tests/fixtures/report/calib.csv", &cr, &ncr, &have,
                             &err) == PB_OK);
    CHECK(have == (PB_CALIB_HAVE_BANDWIDTH | PB_CALIB_HAVE_FIT_ERROR));
    CHECK(pb_calib_missing(have, PB_CALIB_HAVE_PIECE | PB_CALIB_HAVE_US_PER_BYTE) != NULL &&
          strcmp(pb_calib_missing(have, PB_CALIB_HAVE_PIECE | PB_CALIB_HAVE_US_PER_BYTE),
                 "piece") == 0);
    free(cr);
    /* with the column: a reduction's piece applies to its type only;
     * "any" to every type */
    CHECK(pb_calib_read(PB_SOURCE_DIR "/tests/fixtures/calib-dtype.csv", &cr, &ncr, &err) ==
          PB_OK);
    CHECK(ncr == 4);
    if (ncr == 4) {
        CHECK(strcmp(cr[0].dtype, "float") == 0 && strcmp(cr[1].dtype, "bfloat16") == 0 &&
              strcmp(cr[3].collective, "allgather") == 0 && cr[3].dtype[0] == '\0');
        CHECK(pb_calib_dtype_matches(&cr[0], "float") && !pb_calib_dtype_matches(&cr[0], "bfloat16"));
        CHECK(pb_calib_dtype_matches(&cr[3], "bfloat16") && pb_calib_dtype_matches(&cr[3], "float"));
        /* 10 us + 1e6 B / (0.166667 GB/s x 1e3 B/us) = 10 + 5999.99 us */
        CHECK_NEAR(pb_calib_time_us(&cr[1], 1000000), 10.0 + 1e6 / 166.667, 1e-12);
        /* the model's columns read too: piece 0, the exact slope 0.006
         * us/B of the file (not 1e-3 / 0.166667), 18 points */
        CHECK(cr[1].piece == 0 && cr[1].us_per_byte == 0.006 && cr[1].points == 18);
    }
    free(cr);
    PB_TEST_END("unit_json");
}
