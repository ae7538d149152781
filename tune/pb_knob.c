#include "pb_knob.h"

#include <stdio.h>
#include <string.h>

/* Open MPI 4.1's tuned component (ompi/mca/coll/tuned, listed by
 * `ompi_info --param coll tuned --level 9`): a forced algorithm counts
 * only with coll_tuned_use_dynamic_rules=1.  Values that need exactly two
 * ranks (two_proc) are left out: a job's groups are rarely of 2 only, and
 * the library refuses them elsewhere.  NCCL: env.rst of the NCCL docs and
 * the source named in pb_knob.h. */
#define DYN "coll_tuned_use_dynamic_rules=1"
static const pb_knob_t knobs[] = {
    {"coll_tuned_allreduce_algorithm", PB_KNOB_MPI, PB_APPLY_MPIT, "allreduce", "1,2,3,4,5,6",
     "basic_linear,nonoverlapping,recursive_doubling,ring,segmented_ring,rabenseifner", DYN,
     "Open MPI 4.1+ (rabenseifner 4.1+, the rest 2.0+)", "allreduce algorithm", 2, 0},
    {"coll_tuned_allgather_algorithm", PB_KNOB_MPI, PB_APPLY_MPIT, "allgather", "1,2,3,4,5",
     "linear,bruck,recursive_doubling,ring,neighbor", DYN, "Open MPI 2.0+",
     "allgather algorithm", 0, 0},
    {"coll_tuned_reduce_scatter_block_algorithm", PB_KNOB_MPI, PB_APPLY_MPIT, "reducescatter",
     "1,2,3,4", "basic_linear,recursive_doubling,recursive_halving,butterfly", DYN,
     "Open MPI 4.1+", "reduce-scatter (block) algorithm", 13, 0},
    {"coll_tuned_alltoall_algorithm", PB_KNOB_MPI, PB_APPLY_MPIT, "alltoall", "1,2,3,4",
     "linear,pairwise,modified_bruck,linear_sync", DYN, "Open MPI 2.0+", "all-to-all algorithm",
     3, 0},
    {"coll_tuned_bcast_algorithm", PB_KNOB_MPI, PB_APPLY_MPIT, "broadcast", "1,2,3,4,5,6,7,8,9",
     "basic_linear,chain,pipeline,split_binary_tree,binary_tree,binomial,knomial,"
     "scatter_allgather,scatter_allgather_ring", DYN, "Open MPI 4.1+ (7-9), 2.0+",
     "broadcast algorithm", 7, 0},
    {"NCCL_ALGO", PB_KNOB_NCCL, PB_APPLY_COMM_ENV, "*", "Ring,Tree,NVLS,NVLSTree,CollnetDirect,CollnetChain,PAT",
     NULL, NULL, "NCCL 2.4+ (NVLS 2.17+, PAT 2.23+)", "algorithm; an algorithm the communicator "
     "cannot run fails the candidate, which is then reported and left out", -1, 1},
    {"NCCL_PROTO", PB_KNOB_NCCL, PB_APPLY_COMM_ENV, "*", "LL,LL128,Simple", NULL, NULL,
     "NCCL 2.4+ (LL128 2.5+ on supported GPUs)", "protocol", -1, 1},
    {"NCCL_MIN_NCHANNELS", PB_KNOB_NCCL, PB_APPLY_COMM_CONFIG, "*", "2,4,8,16,32", NULL, NULL,
     "NCCL 2.17+ (ncclConfig_t minCTAs)", "fewest channels (CTAs) a collective uses", -1, 0},
    {"NCCL_MAX_NCHANNELS", PB_KNOB_NCCL, PB_APPLY_COMM_CONFIG, "*", "2,4,8,16,32", NULL, NULL,
     "NCCL 2.17+ (ncclConfig_t maxCTAs)", "most channels: fewer leave SMs to compute", -1, 0},
    {"NCCL_BUFFSIZE", PB_KNOB_NCCL, PB_APPLY_PROCESS_ENV, "*", "1048576,2097152,8388608,16777216",
     "1M,2M,8M,16M", NULL, "NCCL 2.0+ (default 4M)", "buffer per channel and peer (Simple)", -1,
     0},
    {"NCCL_NVLS_ENABLE", PB_KNOB_NCCL, PB_APPLY_PROCESS_ENV, "allreduce,allgather,reducescatter",
     "0,1", NULL, NULL, "NCCL 2.17+ (Hopper+, NVSwitch)", "NVLink SHARP", -1, 0},
    {"NCCL_COLLNET_ENABLE", PB_KNOB_NCCL, PB_APPLY_PROCESS_ENV, "allreduce,allgather,reducescatter",
     "0,1", NULL, NULL, "NCCL 2.6+ (a CollNet plugin, e.g. SHARP)", "in-network reduction", -1,
     0},
    {"NCCL_IB_QPS_PER_CONNECTION", PB_KNOB_NCCL, PB_APPLY_PROCESS_ENV, "*", "1,2,4", NULL, NULL,
     "NCCL 2.10+", "InfiniBand queue pairs per connection (multi-node only)", -1, 0},
    {"NCCL_P2P_NET_CHUNKSIZE", PB_KNOB_NCCL, PB_APPLY_PROCESS_ENV, "sendrecv,alltoall",
     "65536,262144,524288", "64K,256K,512K", NULL, "NCCL 2.14+ (default 128K)",
     "chunk of point-to-point traffic over the network", -1, 0},
    {"CUDA_DEVICE_MAX_CONNECTIONS", PB_KNOB_NCCL, PB_APPLY_PROCESS_ENV, "*", "1,8,32", NULL, NULL,
     "CUDA 7+ (default 8)", "hardware work queues: Megatron sets 1 to order TP communication "
     "before compute", -1, 0},
    {NULL, PB_KNOB_MPI, PB_APPLY_MPIT, NULL, NULL, NULL, NULL, NULL, NULL, -1, 0},
};

const pb_knob_t *pb_knob_at(size_t i)
{
    return i < pb_knob_count() ? &knobs[i] : NULL;
}

size_t pb_knob_count(void)
{
    return sizeof knobs / sizeof knobs[0] - 1;
}

const pb_knob_t *pb_knob_find(const char *name)
{
    for (size_t i = 0; i < pb_knob_count(); i++)
        if (strcmp(knobs[i].name, name) == 0)
            return &knobs[i];
    return NULL;
}

/* Item i of a comma-separated list into buf; 0 when there is none. */
static int item(const char *list, size_t i, char *buf, size_t len)
{
    const char *p = list;
    for (size_t k = 0; p != NULL && k < i; k++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    if (p == NULL || len == 0)
        return 0;
    size_t n = strcspn(p, ",");
    snprintf(buf, len, "%.*s", (int)n, p);
    return 1;
}

int pb_knob_affects(const pb_knob_t *k, const char *op)
{
    char one[32];
    if (strcmp(k->ops, "*") == 0)
        return 1;
    for (size_t i = 0; item(k->ops, i, one, sizeof one); i++)
        if (strcmp(one, op) == 0)
            return 1;
    return 0;
}

const char *pb_knob_nccl_func(const char *op)
{
    /* src/init.cc's ncclFuncStr: Broadcast, Reduce, AllGather,
     * ReduceScatter, AllReduce; parbench's names are the same words */
    static const char *const funcs[] = {"broadcast", "reduce", "allgather", "reducescatter",
                                        "allreduce"};
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
        if (strcmp(op, funcs[i]) == 0)
            return funcs[i];
    return NULL;
}

size_t pb_knob_nvalues(const pb_knob_t *k)
{
    size_t n = 1;
    for (const char *p = k->values; *p; p++)
        n += *p == ',';
    return n;
}

int pb_knob_value(const pb_knob_t *k, size_t i, char *buf, size_t len)
{
    return item(k->values, i, buf, len);
}

int pb_knob_label(const pb_knob_t *k, size_t i, char *buf, size_t len)
{
    return item(k->labels ? k->labels : k->values, i, buf, len);
}

const char *pb_knob_need(const pb_knob_t *k, char *buf, size_t len)
{
    if (k->needs == NULL)
        return NULL;
    size_t n = strcspn(k->needs, "=");
    snprintf(buf, len, "%.*s", (int)n, k->needs);
    return k->needs[n] ? k->needs + n + 1 : "";
}

void pb_knob_env_name(const pb_knob_t *k, const char *name, char *buf, size_t len)
{
    (void)k;
    if (strncmp(name, "NCCL_", 5) == 0 || strncmp(name, "CUDA_", 5) == 0)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "OMPI_MCA_%s", name);
}
