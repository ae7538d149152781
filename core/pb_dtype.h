/* pb_dtype.h - element types and reduction operators: the one list every
 * layer uses (the backends measure in these types, the traffic generators
 * and the cost model size and price operations in them).
 *
 * The names printed are the ones nccl-tests prints (float, half, bfloat16,
 * ...) so a user's eye finds them where it expects; the parser also takes
 * the short forms (f32, bf16, i8). */
#ifndef PB_DTYPE_H
#define PB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_dtype {
    PB_F32,
    PB_F64,
    PB_F16,
    PB_BF16,
    PB_I32,
    PB_I8,
    PB_F8E4M3, /* OCP fp8: 4 exponent bits, 3 mantissa bits, no infinity */
    PB_F8E5M2, /* OCP fp8: 5 exponent bits, 2 mantissa bits */
    PB_I64,    /* counts: an MoE router's tokens per expert (Megatron-Core's and
                * torchtitan's routing_map.sum(0), exchanged before the tokens) */
    PB_DTYPE_COUNT
} pb_dtype_t;

typedef enum pb_redop {
    PB_SUM,
    PB_MAX,
    PB_MIN,
    PB_AVG, /* NCCL only: the MPI standard has no average */
    PB_REDOP_COUNT
} pb_redop_t;

size_t pb_dtype_size(pb_dtype_t t);
const char *pb_dtype_name(pb_dtype_t t);
/* 0 on success, -1 when s names no type. */
int pb_dtype_parse(const char *s, pb_dtype_t *out);

/* Largest integer N such that every integer in [0, N] is exact in t
 * (int64: 2^53, as the checker reads every type back through a double).
 * Verification only ever stores such integers, which is why its expected
 * results hold whatever order a reduction adds in. */
uint64_t pb_dtype_exact_max(pb_dtype_t t);

const char *pb_redop_name(pb_redop_t op);
int pb_redop_parse(const char *s, pb_redop_t *out);

#ifdef __cplusplus
}
#endif

#endif
