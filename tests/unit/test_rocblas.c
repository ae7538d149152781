/* rocBLAS is opened by `parbench gemm` on an AMD GPU, never linked
 * (collectives/pb_rocblas.h).  No GPU and no rocBLAS here: what is
 * checked is what needs neither.
 *  - the type map: rocblas_datatype values as rocBLAS's own header
 *    gives them (ROCm/rocBLAS library/include/internal/rocblas-types.h,
 *    the same at tag rocm-5.0.0 and at b520bc83 of October 2024):
 *    f16_r = 150, f32_r = 151, bf16_r = 168; operation none = 111,
 *    transpose = 112; gemm_algo_standard = 0;
 *  - the files open tries, in the documented order;
 *  - a missing library, and a library that is not rocBLAS: one line,
 *    PB_EINPUT, "no rocBLAS", naming the file. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "collectives/pb_rocblas.h"
#include "pb_test.h"

static void type_map(void)
{
    CHECK(pb_rocblas_dtype(PB_F16) == 150);
    CHECK(pb_rocblas_dtype(PB_F32) == 151);
    CHECK(pb_rocblas_dtype(PB_BF16) == 168);
    CHECK(pb_rocblas_dtype(PB_F64) == -1); /* the probe multiplies 16- and 32-bit types only */
    CHECK(pb_rocblas_dtype(PB_I32) == -1);
    CHECK(PB_ROCBLAS_OP_NONE == 111 && PB_ROCBLAS_OP_TRANSPOSE == 112);
    CHECK(PB_ROCBLAS_ALGO_STANDARD == 0 && PB_ROCBLAS_SUCCESS == 0);
}

static void candidates(void)
{
    char c[PB_ROCBLAS_MAX_CANDIDATES][256];
    /* the override alone */
    CHECK(pb_rocblas_candidates("/x/librocblas.so", "/opt/rocm-6.2", c, 6) == 1);
    CHECK(strcmp(c[0], "/x/librocblas.so") == 0);
    /* ROCm 6's soname (.so.4) before ROCm 5's (.so.0), loader path first,
     * then ROCM_PATH, then /opt/rocm */
    CHECK(pb_rocblas_candidates(NULL, "/opt/rocm-6.2", c, 6) == 6);
    CHECK(strcmp(c[0], "librocblas.so.4") == 0 && strcmp(c[1], "librocblas.so.0") == 0);
    CHECK(strcmp(c[2], "/opt/rocm-6.2/lib/librocblas.so.4") == 0);
    CHECK(strcmp(c[3], "/opt/rocm-6.2/lib/librocblas.so.0") == 0);
    CHECK(strcmp(c[4], "/opt/rocm/lib/librocblas.so.4") == 0);
    CHECK(strcmp(c[5], "/opt/rocm/lib/librocblas.so.0") == 0);
    /* an empty override or ROCM_PATH counts as unset */
    CHECK(pb_rocblas_candidates("", "", c, 6) == 4);
    CHECK(strcmp(c[2], "/opt/rocm/lib/librocblas.so.4") == 0);
    CHECK(pb_rocblas_candidates(NULL, NULL, c, 2) == 2); /* never past max */
}

static void refusals(void)
{
    pb_rocblas_t r;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(setenv("PARBENCH_ROCBLAS_LIB", "/nonexistent/librocblas.so.4", 1) == 0);
    CHECK(pb_rocblas_open(&r, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "no rocBLAS: ", 12) == 0);
    CHECK(strstr(err.msg, "/nonexistent/librocblas.so.4") != NULL);
    CHECK(strchr(err.msg, '\n') == NULL && r.lib == NULL);
    /* a library that loads but is not rocBLAS (the C library, on every
     * glibc system under this soname) */
    pb_err_clear(&err);
    CHECK(setenv("PARBENCH_ROCBLAS_LIB", "libc.so.6", 1) == 0);
    CHECK(pb_rocblas_open(&r, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "no rocBLAS: libc.so.6 lacks an entry point") == err.msg);
    CHECK(r.lib == NULL && r.gemm_ex == NULL);
    char buf[64];
    CHECK(strcmp(pb_rocblas_status(&r, 4, buf, sizeof buf), "rocBLAS status 4") == 0);
}

int main(void)
{
    type_map();
    candidates();
    refusals();
    return pb_test_failures ? 1 : 0;
}
