/* pb_jobprof.c - the recorded job's containers and the recorders' names
 * for functions and types. */
#include "pb_jobprof.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/pb_grow.h"

void pb_jobprof_init(pb_jobprof_t *jp)
{
    memset(jp, 0, sizeof *jp);
    jp->every = 1;
}

void pb_jobprof_free(pb_jobprof_t *jp)
{
    for (size_t i = 0; i < jp->ncomms; i++)
        free(jp->comms[i].members);
    free(jp->comms);
    free(jp->ops);
    pb_jobprof_init(jp);
}

/* One of the two arrays made to hold need elements. */
static int grow(void **arr, size_t *cap, size_t need, size_t elem, pb_err_t *err)
{
    if (pb_grow(arr, cap, need, elem, 64) != 0)
        return pb_err_set(err, PB_ERUNTIME, "out of memory holding the recorded job");
    return PB_OK;
}

int pb_jp_comm(pb_jobprof_t *jp, uint64_t id, const char *name, int nranks, pb_err_t *err)
{
    for (size_t i = 0; i < jp->ncomms; i++) {
        pb_jcomm_t *c = &jp->comms[i];
        if (c->id != id)
            continue;
        if (c->nranks != nranks) {
            pb_err_set(err, PB_EINPUT,
                       "communicator %016llx (%s) recorded with %d ranks and with %d",
                       (unsigned long long)id, c->name[0] ? c->name : "no name", c->nranks,
                       nranks);
            return -1;
        }
        if (c->name[0] == '\0' && name)
            snprintf(c->name, sizeof c->name, "%s", name);
        return (int)i;
    }
    if (nranks < 1 || nranks > PB_JP_MAX_RANKS) {
        pb_err_set(err, PB_EINPUT, "communicator %016llx: %d ranks", (unsigned long long)id,
                   nranks);
        return -1;
    }
    if (grow((void **)&jp->comms, &jp->comms_cap, jp->ncomms + 1, sizeof *jp->comms, err))
        return -1;
    pb_jcomm_t *c = &jp->comms[jp->ncomms];
    memset(c, 0, sizeof *c);
    c->members = malloc((size_t)nranks * sizeof *c->members);
    if (c->members == NULL) {
        pb_err_set(err, PB_ERUNTIME, "out of memory holding the recorded job");
        return -1;
    }
    for (int r = 0; r < nranks; r++)
        c->members[r] = -1;
    c->id = id;
    c->nranks = nranks;
    snprintf(c->name, sizeof c->name, "%s", name ? name : "");
    return (int)jp->ncomms++;
}

int pb_jp_add_op(pb_jobprof_t *jp, const pb_jop_t *op, pb_err_t *err)
{
    if (op->comm < 0 || (size_t)op->comm >= jp->ncomms)
        return pb_err_set(err, PB_EINPUT, "an operation on no known communicator");
    int code = grow((void **)&jp->ops, &jp->ops_cap, jp->nops + 1, sizeof *jp->ops, err);
    if (code == PB_OK)
        jp->ops[jp->nops++] = *op;
    return code;
}

/* Lower case without '_' and a leading namespace or "nccl": every
 * recorder's spelling meets one key ("AllReduce", "all_reduce",
 * "c10d::allreduce_" -> "allreduce"; "ncclBfloat16", "c10::BFloat16",
 * "torch.bfloat16" -> "bfloat16"). */
static void fold(const char *s, char *out, size_t len)
{
    static const char *const prefix[] = {"c10d::", "c10::", "torch.", "nccl"};
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (strncasecmp(s, prefix[i], strlen(prefix[i])) == 0)
            s += strlen(prefix[i]);
    size_t n = 0;
    for (; *s && n + 1 < len; s++)
        if (*s != '_')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

int pb_jp_func(const char *name, pb_jkind_t *kind, pb_coll_t *coll)
{
    /* PyTorch's names (torch/csrc/distributed/c10d: the op's name and
     * record_param_comms' "Collective name"), NCCL's (ncclFuncToString) and
     * the tensor variants, folded. */
    static const struct {
        const char *key;
        pb_jkind_t kind;
        pb_coll_t coll;
    } tab[] = {
        {"allreduce", PB_JK_COLL, PB_ALLREDUCE},
        {"allreducecoalesced", PB_JK_COLL, PB_ALLREDUCE},
        {"allgather", PB_JK_COLL, PB_ALLGATHER},
        {"allgatherbase", PB_JK_COLL, PB_ALLGATHER},
        {"allgatherintotensor", PB_JK_COLL, PB_ALLGATHER},
        {"allgatherintotensorcoalesced", PB_JK_COLL, PB_ALLGATHER},
        {"reducescatter", PB_JK_COLL, PB_REDUCESCATTER},
        {"reducescatterbase", PB_JK_COLL, PB_REDUCESCATTER},
        {"reducescattertensor", PB_JK_COLL, PB_REDUCESCATTER},
        {"reducescattertensorcoalesced", PB_JK_COLL, PB_REDUCESCATTER},
        {"alltoall", PB_JK_COLL, PB_ALLTOALL},
        {"alltoallbase", PB_JK_COLL, PB_ALLTOALLV},
        {"alltoallv", PB_JK_COLL, PB_ALLTOALLV},
        {"broadcast", PB_JK_COLL, PB_BROADCAST},
        {"reduce", PB_JK_COLL, PB_REDUCE},
        {"send", PB_JK_SEND, PB_SENDRECV},
        {"recv", PB_JK_RECV, PB_SENDRECV},
        {"recvanysource", PB_JK_RECV, PB_SENDRECV},
    };
    char k[48];
    fold(name ? name : "", k, sizeof k);
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(k, tab[i].key) == 0) {
            *kind = tab[i].kind;
            *coll = tab[i].coll;
            return 0;
        }
    return -1;
}

int pb_jp_dtype(const char *name, pb_dtype_t *out)
{
    /* NCCL's ncclDataType_t names, PyTorch's ScalarType names (c10's
     * "Float", "BFloat16", "Half", "c10::BFloat16", "Long") and the
     * profiler's C type names ("long int", an int64 tensor's "Input
     * type"), then parbench's own. */
    static const struct {
        const char *name;
        pb_dtype_t t;
    } tab[] = {
        {"float32", PB_F32},  {"float", PB_F32},      {"float64", PB_F64},
        {"double", PB_F64},   {"float16", PB_F16},    {"half", PB_F16},
        {"bfloat16", PB_BF16}, {"int32", PB_I32},     {"int", PB_I32},
        {"int8", PB_I8},      {"char", PB_I8},        {"float8e4m3", PB_F8E4M3},
        {"float8e4m3fn", PB_F8E4M3}, {"float8e5m2", PB_F8E5M2},
        {"int64", PB_I64},    {"long", PB_I64},      {"long int", PB_I64},
    };
    char k[48];
    fold(name ? name : "", k, sizeof k);
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(k, tab[i].name) == 0) {
            *out = tab[i].t;
            return 0;
        }
    return pb_dtype_parse(name ? name : "", out);
}

uint64_t pb_jp_bytes(pb_coll_t coll, int n, size_t esize, uint64_t count)
{
    uint64_t b = count * (uint64_t)esize;
    if (coll == PB_ALLGATHER || coll == PB_REDUCESCATTER)
        b *= (uint64_t)(n > 0 ? n : 1);
    return b;
}

const char *pb_jdim_name(pb_jdim_t d)
{
    static const char *const names[PB_JD_COUNT] = {"unknown", "tp",  "cp",    "dp",   "pp",
                                                   "ep",      "edp", "world", "other"};
    return (unsigned)d < PB_JD_COUNT ? names[d] : "unknown";
}
