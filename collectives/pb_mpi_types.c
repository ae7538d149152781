/* Element types and reduction operators of the MPI backend. */
#include <stdint.h>
#include <stdio.h>

#include "pb_half.h"
#include "pb_mpi_priv.h"

MPI_Datatype pb_mpi_datatype(pb_dtype_t t)
{
    switch (t) {
    case PB_F32:
        return MPI_FLOAT;
    case PB_F64:
        return MPI_DOUBLE;
    case PB_F16:
    case PB_BF16:
        return MPI_UINT16_T;
    case PB_I32:
        return MPI_INT32_T;
    case PB_I8:
        return MPI_INT8_T;
    case PB_I64:
        return MPI_INT64_T;
    case PB_F8E4M3:
    case PB_F8E5M2:
        return MPI_UINT8_T;
    case PB_DTYPE_COUNT:
        break;
    }
    return MPI_DATATYPE_NULL;
}

int pb_mpi_fail(int rc, const char *call, pb_err_t *err)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", rc);
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s", call, msg);
}

/* The user operators widen each element to float, combine, and round back
 * to nearest even, as a GPU's low-precision reduction does.  MPI calls
 * them with chunks of `*len` elements of MPI_UINT16_T / MPI_UINT8_T. */
static float combine1(float a, float b, pb_redop_t op)
{
    return op == PB_SUM ? a + b : op == PB_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

#define PB_SMALL_OP(fname, type, op, widen, narrow)                                    \
    static void fname(void *in, void *inout, int *len, MPI_Datatype *dt)                \
    {                                                                                  \
        (void)dt;                                                                      \
        const type *a = in;                                                            \
        type *b = inout;                                                               \
        for (int i = 0; i < *len; i++)                                                 \
            b[i] = narrow(combine1(widen(a[i]), widen(b[i]), op));                     \
    }

#define PB_SMALL_OPS(prefix, type, widen, narrow)                                      \
    PB_SMALL_OP(prefix##_sum, type, PB_SUM, widen, narrow)                             \
    PB_SMALL_OP(prefix##_max, type, PB_MAX, widen, narrow)                             \
    PB_SMALL_OP(prefix##_min, type, PB_MIN, widen, narrow)

PB_SMALL_OPS(f16, uint16_t, pb_half_to_float, pb_float_to_half)
PB_SMALL_OPS(bf16, uint16_t, pb_bf16_to_float, pb_float_to_bf16)
PB_SMALL_OPS(e4m3, uint8_t, pb_f8e4m3_to_float, pb_float_to_f8e4m3)
PB_SMALL_OPS(e5m2, uint8_t, pb_f8e5m2_to_float, pb_float_to_f8e5m2)

static int small_index(pb_dtype_t t)
{
    switch (t) {
    case PB_F16:
        return 0;
    case PB_BF16:
        return 1;
    case PB_F8E4M3:
        return 2;
    case PB_F8E5M2:
        return 3;
    default:
        return -1;
    }
}

int pb_mpi_ops_create(pb_mpi_state_t *st, pb_err_t *err)
{
    MPI_User_function *fns[4][3] = {{f16_sum, f16_max, f16_min},
                                    {bf16_sum, bf16_max, bf16_min},
                                    {e4m3_sum, e4m3_max, e4m3_min},
                                    {e5m2_sum, e5m2_max, e5m2_min}};
    for (int t = 0; t < 4; t++)
        for (int o = 0; o < PB_REDOP_COUNT; o++)
            st->small_ops[t][o] = MPI_OP_NULL;
    for (int t = 0; t < 4; t++) {
        for (int o = 0; o < 3; o++) {
            int rc = MPI_Op_create(fns[t][o], 1, &st->small_ops[t][o]);
            if (rc != MPI_SUCCESS)
                return pb_mpi_fail(rc, "MPI_Op_create", err);
        }
    }
    return PB_OK;
}

void pb_mpi_ops_free(pb_mpi_state_t *st)
{
    for (int t = 0; t < 4; t++)
        for (int o = 0; o < PB_REDOP_COUNT; o++)
            if (st->small_ops[t][o] != MPI_OP_NULL)
                MPI_Op_free(&st->small_ops[t][o]);
}

int pb_mpi_op(const pb_mpi_state_t *st, pb_dtype_t t, pb_redop_t op, MPI_Op *out, pb_err_t *err)
{
    if (op == PB_AVG)
        return pb_err_set(err, PB_EINPUT,
                          "redop avg is not available on the mpi backend (MPI has no average)");
    int small = small_index(t);
    if (small >= 0) {
        *out = st->small_ops[small][op];
        return PB_OK;
    }
    *out = op == PB_SUM ? MPI_SUM : op == PB_MAX ? MPI_MAX : MPI_MIN;
    return PB_OK;
}
