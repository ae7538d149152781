/* gemm_csv_check.c FILE NROWS - the rows `parbench gemm` wrote are
 * plausible: NROWS rows of pattern gemm from cuBLAS, each with its shape
 * in the label, flops = 2.M.N.K of that shape, positive times in order,
 * 0 < TFLOP/s < 2000, and TFLOP/s = flops / median time. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/pb_csv.h"
#include "pb_test.h"

/* no GPU of today reaches 2 PFLOP/s dense in bf16, fp16 or fp32 */
#define PLAUSIBLE_TFLOPS_MAX 2000.0

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gemm_csv_check FILE NROWS\n");
        return 2;
    }
    pb_result_t *rows = NULL;
    size_t n = 0;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_csv_read(argv[1], &rows, &n, &err) != PB_OK) {
        fprintf(stderr, "gemm_csv_check: %s\n", err.msg);
        return 1;
    }
    CHECK(n == strtoull(argv[2], NULL, 10));
    for (size_t i = 0; i < n; i++) {
        const pb_result_t *r = &rows[i];
        uint64_t m = 0, nn = 0, k = 0;
        CHECK(strcmp(r->pattern, "gemm") == 0);
        CHECK(strcmp(r->backend, "cublas") == 0);
        CHECK(strncmp(r->collective, "gemm_", 5) == 0);
        CHECK(sscanf(r->label, "M=%" SCNu64 " N=%" SCNu64 " K=%" SCNu64, &m, &nn, &k) == 3);
        CHECK(m > 0 && nn > 0 && k > 0 && r->flops == 2 * m * nn * k);
        CHECK(r->time_us_min > 0.0 && r->time_us_min <= r->time_us_median);
        CHECK(r->time_us_median <= r->time_us_p99 && r->time_us_p99 <= r->time_us_max);
        CHECK(r->tflops > 0.0 && r->tflops < PLAUSIBLE_TFLOPS_MAX);
        CHECK_NEAR(r->tflops, (double)r->flops / (r->time_us_median * 1e-6) / 1e12, 1e-6);
        CHECK(r->wrong == PB_RESULT_WRONG_UNCHECKED);
        printf("%-22s %-9s %s: %.1f TFLOP/s\n", r->collective, r->dtype, r->label, r->tflops);
    }
    free(rows);
    PB_TEST_END("gemm_csv_check");
}
