#include "pb_dtype.h"

#include <string.h>

struct dtype_info {
    const char *name;    /* as nccl-tests prints it */
    const char *alias1;
    const char *alias2;
    size_t size;
    uint64_t exact_max;
};

/* exact_max: 2^(significand bits) for binary floats (f32 24 bits, f64 53,
 * f16 11, bf16 8, fp8 e4m3 4, e5m2 3); the largest value for signed
 * integers, but 2^53 for int64, which the checker reads through a
 * double. */
static const struct dtype_info dtypes[PB_DTYPE_COUNT] = {
    [PB_F32] = {"float", "f32", "fp32", 4, UINT64_C(1) << 24},
    [PB_F64] = {"double", "f64", "fp64", 8, UINT64_C(1) << 53},
    [PB_F16] = {"half", "f16", "fp16", 2, UINT64_C(1) << 11},
    [PB_BF16] = {"bfloat16", "bf16", "bfloat", 2, UINT64_C(1) << 8},
    [PB_I32] = {"int32", "i32", "int", 4, INT32_MAX},
    [PB_I8] = {"int8", "i8", "char", 1, INT8_MAX},
    [PB_F8E4M3] = {"f8e4m3", "fp8e4m3", "e4m3", 1, UINT64_C(1) << 4},
    [PB_F8E5M2] = {"f8e5m2", "fp8e5m2", "e5m2", 1, UINT64_C(1) << 3},
    [PB_I64] = {"int64", "i64", "long", 8, UINT64_C(1) << 53},
};

static const char *const redops[PB_REDOP_COUNT] = {
    [PB_SUM] = "sum", [PB_MAX] = "max", [PB_MIN] = "min", [PB_AVG] = "avg"};

size_t pb_dtype_size(pb_dtype_t t) { return dtypes[t].size; }
const char *pb_dtype_name(pb_dtype_t t) { return dtypes[t].name; }
uint64_t pb_dtype_exact_max(pb_dtype_t t) { return dtypes[t].exact_max; }

int pb_dtype_parse(const char *s, pb_dtype_t *out)
{
    for (int i = 0; i < PB_DTYPE_COUNT; i++) {
        const struct dtype_info *d = &dtypes[i];
        if (strcmp(s, d->name) == 0 || strcmp(s, d->alias1) == 0 ||
            strcmp(s, d->alias2) == 0) {
            *out = (pb_dtype_t)i;
            return 0;
        }
    }
    return -1;
}

const char *pb_redop_name(pb_redop_t op) { return redops[op]; }

int pb_redop_parse(const char *s, pb_redop_t *out)
{
    for (int i = 0; i < PB_REDOP_COUNT; i++) {
        if (strcmp(s, redops[i]) == 0) {
            *out = (pb_redop_t)i;
            return 0;
        }
    }
    return -1;
}
