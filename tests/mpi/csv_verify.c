/* csv_verify FILE NRANKS NSIZES - the acceptance check of a sweep's CSV,
 * read back through parbench's own libcsv reader:
 *   one row per size (and placement), all sizes distinct per placement;
 *   wrong == 0 on every row;
 *   busbw == algbw * 2(n-1)/n (nccl-tests' all-reduce factor) per row;
 *   algbw == bytes / median time. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "pb_test.h"
#include "reports/pb_csv.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: csv_verify FILE NRANKS NSIZES\n");
        return 2;
    }
    int n = atoi(argv[2]);
    size_t nsizes = (size_t)atoi(argv[3]);
    pb_result_t *rows = NULL;
    size_t nrows = 0;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_csv_read(argv[1], &rows, &nrows, &err) != PB_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    size_t out_rows = 0;
    for (size_t i = 0; i < nrows; i++) {
        const pb_result_t *r = &rows[i];
        out_rows += r->in_place == 0;
        CHECK(r->wrong == 0);
        /* every row carries the link its group crossed (one host here:
         * a host-rank class, never empty, never NET) */
        CHECK(r->link_class[0] != '\0' && strcmp(r->link_class, "NET") != 0);
        CHECK(r->world == n && r->group_size == n);
        CHECK_NEAR(r->busbw_gbps, r->algbw_gbps * 2.0 * (n - 1) / n, 1e-6);
        /* bytes / (us * 1e-6) / 1e9 = bytes / us / 1e3 */
        CHECK_NEAR(r->algbw_gbps, (double)r->bytes / r->time_us_median / 1e3, 1e-6);
        CHECK(r->iters > 0 && r->time_us_min <= r->time_us_median &&
              r->time_us_median <= r->time_us_p99 && r->time_us_p99 <= r->time_us_max);
        for (size_t j = 0; j < i; j++)
            CHECK(!(rows[j].bytes == r->bytes && rows[j].in_place == r->in_place));
    }
    CHECK(out_rows == nsizes);
    free(rows);
    PB_TEST_END("csv_verify");
}
