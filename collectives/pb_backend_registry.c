/* Every backend built into this binary.  Adding one: its ops table in its
 * own file, one extern and one line below. */
#include <string.h>

#include "pb_backend.h"

extern const pb_backend_ops_t pb_mpi_backend_ops;
#ifdef PARBENCH_HAVE_NCCL
extern const pb_backend_ops_t pb_nccl_backend_ops;
#endif

/* "--backend auto" takes the first available: a GPU backend first */
static const pb_backend_ops_t *const registry[] = {
#ifdef PARBENCH_HAVE_NCCL
    &pb_nccl_backend_ops,
#endif
    &pb_mpi_backend_ops,
};

int pb_backend_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const pb_backend_ops_t *pb_backend_at(int i)
{
    return i >= 0 && i < pb_backend_count() ? registry[i] : NULL;
}

const pb_backend_ops_t *pb_backend_find(const char *name)
{
    for (int i = 0; i < pb_backend_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}
