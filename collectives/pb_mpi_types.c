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
 * to nearest even, as a GPU's half-precision reduction does.  MPI calls
 * them with chunks of `*len` elements of MPI_UINT16_T. */
typedef float (*widen_fn)(uint16_t);
typedef uint16_t (*narrow_fn)(float);

static void combine(const uint16_t *in, uint16_t *inout, int len, pb_redop_t op,
                    widen_fn widen, narrow_fn narrow)
{
    for (int i = 0; i < len; i++) {
        float a = widen(in[i]), b = widen(inout[i]);
        float c = op == PB_SUM ? a + b : op == PB_MAX ? (a > b ? a : b) : (a < b ? a : b);
        inout[i] = narrow(c);
    }
}

#define PB_HALF_OP(fname, op, widen, narrow)                                           \
    static void fname(void *in, void *inout, int *len, MPI_Datatype *dt)                \
    {                                                                                  \
        (void)dt;                                                                      \
        combine(in, inout, *len, op, widen, narrow);                                   \
    }

PB_HALF_OP(f16_sum, PB_SUM, pb_half_to_float, pb_float_to_half)
PB_HALF_OP(f16_max, PB_MAX, pb_half_to_float, pb_float_to_half)
PB_HALF_OP(f16_min, PB_MIN, pb_half_to_float, pb_float_to_half)
PB_HALF_OP(bf16_sum, PB_SUM, pb_bf16_to_float, pb_float_to_bf16)
PB_HALF_OP(bf16_max, PB_MAX, pb_bf16_to_float, pb_float_to_bf16)
PB_HALF_OP(bf16_min, PB_MIN, pb_bf16_to_float, pb_float_to_bf16)

int pb_mpi_ops_create(pb_mpi_state_t *st, pb_err_t *err)
{
    MPI_User_function *fns[2][3] = {{f16_sum, f16_max, f16_min},
                                    {bf16_sum, bf16_max, bf16_min}};
    for (int t = 0; t < 2; t++)
        for (int o = 0; o < PB_REDOP_COUNT; o++)
            st->half_ops[t][o] = MPI_OP_NULL;
    for (int t = 0; t < 2; t++) {
        for (int o = 0; o < 3; o++) {
            int rc = MPI_Op_create(fns[t][o], 1, &st->half_ops[t][o]);
            if (rc != MPI_SUCCESS)
                return pb_mpi_fail(rc, "MPI_Op_create", err);
        }
    }
    return PB_OK;
}

void pb_mpi_ops_free(pb_mpi_state_t *st)
{
    for (int t = 0; t < 2; t++)
        for (int o = 0; o < PB_REDOP_COUNT; o++)
            if (st->half_ops[t][o] != MPI_OP_NULL)
                MPI_Op_free(&st->half_ops[t][o]);
}

int pb_mpi_op(const pb_mpi_state_t *st, pb_dtype_t t, pb_redop_t op, MPI_Op *out, pb_err_t *err)
{
    if (op == PB_AVG)
        return pb_err_set(err, PB_EINPUT,
                          "redop avg is not available on the mpi backend (MPI has no average)");
    if (t == PB_F16 || t == PB_BF16) {
        *out = st->half_ops[t == PB_BF16][op];
        return PB_OK;
    }
    *out = op == PB_SUM ? MPI_SUM : op == PB_MAX ? MPI_MAX : MPI_MIN;
    return PB_OK;
}
