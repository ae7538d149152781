/* pb_rocblas.h - rocBLAS, opened when `parbench gemm` opens an AMD GPU.
 *
 * Why rocBLAS and not hipBLASLt: one call multiplies (rocblas_gemm_ex:
 * the operand types are arguments, fp32 accumulation is one of them),
 * where hipBLASLt needs a matmul descriptor, three layouts, a preference,
 * a heuristic query and a workspace before its first multiply; and
 * rocBLAS has kept that call's signature across ROCm 5 and 6, so one
 * binary runs on both.  hipBLASLt is what PyTorch often picks on MI300,
 * so rocBLAS can measure a little less than a training job sees
 * (doc/gpus.md, "AMD GPUs", says so to users).
 *
 * Why opened and not linked: rocBLAS is not packaged in Debian 12, and
 * like cuBLAS (pb_cublas.h) it is large; only gemm maps it.  Which file:
 * PARBENCH_ROCBLAS_LIB=PATH (that file only), else librocblas.so.4
 * (ROCm 6: rocBLAS's CMakeLists.txt sets SOVERSION 4.x), librocblas.so.0
 * (ROCm 5: SOVERSION 0.1), on the loader's path and then under
 * $ROCM_PATH/lib and /opt/rocm/lib (ROCm installs there).
 *
 * The types and values below are rocBLAS's own, declared here because
 * its headers are not on a Debian build machine.  Source: ROCm/rocBLAS,
 * library/include/internal/rocblas-types.h (rocblas_operation_none = 111,
 * _transpose = 112; rocblas_datatype_f16_r = 150, f32_r = 151,
 * bf16_r = 168; rocblas_gemm_algo_standard = 0; rocblas_status_success =
 * 0; rocblas_int = int32_t unless rocblas_ILP64), the same at tags
 * rocm-5.0.0 and at b520bc83 (October 2024).  Prototypes from
 * rocblas-auxiliary.h (create/destroy handle, set stream) and
 * rocblas-functions.h (rocblas_gemm_ex, rocblas_status_to_string).
 * The enums are C enums of int range, passed as int by the C ABI. */
#ifndef PB_ROCBLAS_H
#define PB_ROCBLAS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pb_dtype.h"
#include "../util/pb_err.h"

#define PB_ROCBLAS_SUCCESS 0        /* rocblas_status_success */
#define PB_ROCBLAS_OP_NONE 111      /* rocblas_operation_none */
#define PB_ROCBLAS_OP_TRANSPOSE 112 /* rocblas_operation_transpose */
#define PB_ROCBLAS_F16_R 150        /* rocblas_datatype_f16_r */
#define PB_ROCBLAS_F32_R 151        /* rocblas_datatype_f32_r */
#define PB_ROCBLAS_BF16_R 168       /* rocblas_datatype_bf16_r */
#define PB_ROCBLAS_ALGO_STANDARD 0  /* rocblas_gemm_algo_standard */

typedef struct _rocblas_handle *pb_rocblas_handle_t;

/* the entry points parbench calls, with rocBLAS's signatures (enums as
 * int, rocblas_int as int32_t, hipStream_t as void *) */
typedef struct pb_rocblas {
    void *lib;
    char path[256]; /* the file opened */
    int (*create_handle)(pb_rocblas_handle_t *handle);
    int (*destroy_handle)(pb_rocblas_handle_t handle);
    int (*set_stream)(pb_rocblas_handle_t handle, void *stream);
    int (*gemm_ex)(pb_rocblas_handle_t handle, int trans_a, int trans_b, int32_t m, int32_t n,
                   int32_t k, const void *alpha, const void *a, int a_type, int32_t lda,
                   const void *b, int b_type, int32_t ldb, const void *beta, const void *c,
                   int c_type, int32_t ldc, void *d, int d_type, int32_t ldd, int compute_type,
                   int algo, int32_t solution_index, uint32_t flags);
    const char *(*status_to_string)(int status);
} pb_rocblas_t;

/* rocblas_datatype of a type the probe multiplies (bf16, fp16, fp32);
 * -1 for any other. */
int pb_rocblas_dtype(pb_dtype_t t);

#define PB_ROCBLAS_MAX_CANDIDATES 6

/* The files open tries, in order, into out[] (each `len` bytes): `env`
 * (PARBENCH_ROCBLAS_LIB) alone when set and non-empty, else the two
 * sonames, then each under `rocm_path` (ROCM_PATH; skipped when NULL or
 * empty) and /opt/rocm.  Returns how many. */
int pb_rocblas_candidates(const char *env, const char *rocm_path,
                          char out[][256], int max);

/* Opens rocBLAS (the first candidate that loads); when none does, or it
 * lacks an entry point: PB_EINPUT and one line saying "no rocBLAS: ..."
 * with the files tried. */
int pb_rocblas_open(pb_rocblas_t *r, pb_err_t *err);
void pb_rocblas_close(pb_rocblas_t *r);

/* "rocblas_status_invalid_size" or "rocBLAS status 4" */
const char *pb_rocblas_status(const pb_rocblas_t *r, int status, char *buf, size_t len);

#endif
