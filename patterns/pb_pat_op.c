#include "pb_pat_op.h"

#include <string.h>

const char *pb_gkind_name(pb_gkind_t k)
{
    static const char *const n[] = {"tp", "cp", "dp", "pp", "ep", "edp", "shard", "repl"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

const char *pb_phase_name(pb_phase_t p)
{
    static const char *const n[] = {"fwd", "bwd", "optimizer"};
    return (unsigned)p < sizeof n / sizeof n[0] ? n[p] : "?";
}

int pb_pat_dtype_parse(const char *s, pb_dtype_t *out)
{
    pb_dtype_t t;
    if (pb_dtype_parse(s, &t) != 0 || (t != PB_F32 && t != PB_BF16 && t != PB_F16))
        return -1;
    *out = t;
    return 0;
}

const char *pb_pat_stage_note(pb_pat_stage_t s)
{
    return s == PB_STAGE_FIRST ? " (first stage only)" : s == PB_STAGE_LAST ? " (last stage only)" : "";
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
