#include "pb_pat_op.h"

#include <string.h>

const char *pb_pat_coll_name(pb_pat_coll_t c)
{
    static const char *const n[] = {"allreduce", "allgather", "reducescatter",
                                    "alltoall",  "alltoallv", "sendrecv"};
    return (unsigned)c < sizeof n / sizeof n[0] ? n[c] : "?";
}

const char *pb_gkind_name(pb_gkind_t k)
{
    static const char *const n[] = {"tp", "cp", "dp", "pp", "ep", "edp"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

const char *pb_phase_name(pb_phase_t p)
{
    static const char *const n[] = {"fwd", "bwd", "optimizer"};
    return (unsigned)p < sizeof n / sizeof n[0] ? n[p] : "?";
}

/* the backend's names (nccl-tests'), so bench/ maps by name */
const char *pb_pat_dtype_name(pb_pat_dtype_t t)
{
    static const char *const n[PB_PDT_COUNT] = {"float", "bfloat16", "half",   "double",
                                                "int32", "int8",     "f8e4m3", "f8e5m2"};
    return (unsigned)t < PB_PDT_COUNT ? n[t] : "?";
}

uint64_t pb_pat_dtype_size(pb_pat_dtype_t t)
{
    static const uint64_t sz[PB_PDT_COUNT] = {4, 2, 2, 8, 4, 1, 1, 1};
    return (unsigned)t < PB_PDT_COUNT ? sz[t] : 0;
}

int pb_pat_dtype_from_name(const char *s, pb_pat_dtype_t *out)
{
    for (int t = 0; t < PB_PDT_COUNT; t++)
        if (strcmp(s, pb_pat_dtype_name((pb_pat_dtype_t)t)) == 0) {
            *out = (pb_pat_dtype_t)t;
            return 0;
        }
    return -1;
}

int pb_pat_dtype_parse(const char *s, pb_pat_dtype_t *out)
{
    static const struct { const char *name; pb_pat_dtype_t t; } tab[] = {
        {"float", PB_PDT_F32},     {"f32", PB_PDT_F32},   {"fp32", PB_PDT_F32},
        {"bfloat16", PB_PDT_BF16}, {"bf16", PB_PDT_BF16}, {"half", PB_PDT_F16},
        {"f16", PB_PDT_F16},       {"fp16", PB_PDT_F16}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(s, tab[i].name) == 0) {
            *out = tab[i].t;
            return 0;
        }
    return -1;
}

const char *pb_strategy_name(pb_strategy_t s)
{
    static const char *const n[] = {"tp", "sp", "pp", "dp", "ep", "cp"};
    return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "?";
}

int pb_strategy_parse(const char *s, pb_strategy_t *out)
{
    for (int i = 0; i < PB_STRAT_COUNT; i++)
        if (strcmp(s, pb_strategy_name((pb_strategy_t)i)) == 0) {
            *out = (pb_strategy_t)i;
            return 0;
        }
    return -1;
}

uint64_t pb_pat_wire_bytes(pb_pat_coll_t c, int n, uint64_t bytes)
{
    uint64_t un = (uint64_t)(n > 0 ? n : 1);
    /* bytes / n * (n - 1) without overflow and without losing the rest */
    uint64_t part = (bytes / un) * (un - 1) + (bytes % un) * (un - 1) / un;
    switch (c) {
    case PB_PAT_ALLREDUCE:
        return 2 * part;
    case PB_PAT_ALLGATHER:
    case PB_PAT_REDUCESCATTER:
    case PB_PAT_ALLTOALL:
    case PB_PAT_ALLTOALLV:
        return part;
    case PB_PAT_SENDRECV:
        return bytes;
    }
    return 0;
}
