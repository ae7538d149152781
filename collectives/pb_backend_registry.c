/* Every communication side built into this binary (pb_backend_list.def). */
#include <string.h>

#include "pb_backend.h"

#define PB_BACKEND(ops) extern const pb_comm_ops_t ops;
#include "pb_backend_list.def"
#undef PB_BACKEND

/* NULL-terminated: a build without MPI and CUDA has no backend at all,
 * and C has no empty array */
static const pb_comm_ops_t *const registry[] = {
#define PB_BACKEND(ops) &ops,
#include "pb_backend_list.def"
#undef PB_BACKEND
    NULL};

int pb_backend_count(void) { return (int)(sizeof registry / sizeof registry[0]) - 1; }

const pb_comm_ops_t *pb_backend_at(int i)
{
    return i >= 0 && i < pb_backend_count() ? registry[i] : NULL;
}

const pb_comm_ops_t *pb_backend_find(const char *name)
{
    for (int i = 0; i < pb_backend_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *pb_backend_auto_pick(int nvidia_gpus, int amd_gpus, int nccl_loads, int rccl_loads)
{
    /* nccl's and rccl's available() each ask their own runtime for
     * devices and their own library: the first of the list to answer both
     * is taken (NVIDIA first on a node that has both kinds) */
    if (nvidia_gpus > 0 && nccl_loads)
        return "nccl";
    if (amd_gpus > 0 && rccl_loads)
        return "rccl";
    return "mpi";
}
